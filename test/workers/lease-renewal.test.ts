/** whileRenewing (connector/src/workers/lease-renewal.ts): the renewal loop the job queue, write-backs and schedules share. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { whileRenewing } from '../../connector/src/workers/lease-renewal.js';
import { createLogger } from '../../connector/src/logger.js';

const logger = createLogger('silent');

describe('whileRenewing', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: new Date('2026-11-24T12:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Work that ends when `end` is called. */
  function work() {
    let end!: (v: string) => void;
    const done = new Promise<string>((r) => (end = r));
    return { run: () => done, end };
  }

  it('renews every third of the lease, each time one lease length from now, and stops when the work ends', async () => {
    const untils: string[] = [];
    const w = work();
    const held = whileRenewing({ ms: 3000, now: () => new Date(), renew: async (u) => untils.push(u), logger }, w.run);
    await vi.advanceTimersByTimeAsync(3500);
    expect(untils).toEqual(['2026-11-24T12:00:04.000Z', '2026-11-24T12:00:05.000Z', '2026-11-24T12:00:06.000Z']);
    w.end('result');
    expect(await held).toBe('result');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(untils).toHaveLength(3);
  });

  it('a renewal the store has not answered is not joined by another; the next goes out once it settles', async () => {
    let calls = 0;
    let release!: () => void;
    const w = work();
    const held = whileRenewing(
      {
        ms: 300,
        now: () => new Date(),
        renew: () => {
          calls++;
          return calls === 1 ? new Promise<void>((r) => (release = r)) : Promise.resolve();
        },
        logger,
      },
      w.run,
    );
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
    release();
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
    w.end('ok');
    await held;
  });

  it("a failed renewal is logged and the work goes on; the work's own failure reaches the caller and ends the renewals", async () => {
    const warn = vi.fn();
    let calls = 0;
    const held = whileRenewing(
      {
        ms: 300,
        now: () => new Date(),
        renew: async () => {
          calls++;
          throw new Error('store down');
        },
        logger: { ...logger, warn } as never,
      },
      async () => {
        await new Promise((r) => setTimeout(r, 250));
        throw new Error('work failed');
      },
    );
    const outcome = held.catch((e: Error) => e.message);
    await vi.advanceTimersByTimeAsync(260);
    expect(await outcome).toBe('work failed');
    expect(calls).toBe(2);
    expect(warn).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
  });
});
