import { describe, expect, it } from 'vitest';
import { mainThreadCpuMs } from '../../bench/lib.js';

// bench/verify divides these readings by request counts to print CPU per request: a misread field
// (the wrong column, or a command name with spaces shifting them) would print nonsense quietly.
describe('mainThreadCpuMs', () => {
  it('grows by about the CPU the main thread spends, and not while it sleeps', async () => {
    const before = mainThreadCpuMs(process.pid);
    const spinUntil = performance.now() + 300;
    while (performance.now() < spinUntil);
    const afterSpin = mainThreadCpuMs(process.pid);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const afterSleep = mainThreadCpuMs(process.pid);
    // 300 ms of spinning, read at 10 ms resolution; a noisy VM may take some of it away.
    expect(afterSpin - before).toBeGreaterThanOrEqual(150);
    expect(afterSpin - before).toBeLessThanOrEqual(400);
    expect(afterSleep - afterSpin).toBeLessThan(100);
  });

  it('is NaN for a process that does not exist', () => {
    expect(mainThreadCpuMs(2 ** 22 + 1)).toBeNaN();
  });
});
