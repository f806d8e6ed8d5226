/**
 * LeasedLoop (connector/src/workers/leased-loop.ts), the loop every leasing worker runs on: it polls,
 * leases one unit at a time, renews the lease while the unit runs, and a stop lets the unit in hand
 * finish without taking another.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { LeasedLoop, type LeaseOne, type LeaseWindow } from '../../connector/src/workers/leased-loop.js';

const logger = createLogger('silent');
const T0 = new Date('2026-11-24T12:00:00Z');

/** A queue of units each of which runs until the test ends it. */
function units() {
  const due: string[] = [];
  const windows: LeaseWindow[] = [];
  const renewals: string[][] = [];
  const running = new Map<string, () => void>();
  const finished: string[] = [];
  const leaseOne: LeaseOne = async (window, hold) => {
    const id = due.shift();
    if (!id) return false;
    windows.push(window);
    const renewed: string[] = [];
    renewals.push(renewed);
    await hold({
      renew: async (until) => void renewed.push(until),
      run: () =>
        new Promise<void>((resolve) =>
          running.set(id, () => {
            running.delete(id);
            finished.push(id);
            resolve();
          }),
        ),
    });
    return true;
  };
  return { due, windows, renewals, running, finished, leaseOne };
}

describe('LeasedLoop', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('leases for one lease length from now and renews every third of it while the unit runs', async () => {
    const u = units();
    u.due.push('a');
    const loop = new LeasedLoop('test', u.leaseOne, { leaseMs: 3000, pollMs: 1000, now: () => new Date(), logger });
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(u.windows).toEqual([{ now: T0, at: T0.toISOString(), until: '2026-11-24T12:00:03.000Z' }]);
    await vi.advanceTimersByTimeAsync(2500);
    expect(u.renewals[0]).toEqual(['2026-11-24T12:00:04.000Z', '2026-11-24T12:00:05.000Z']);
    u.running.get('a')!();
    await vi.advanceTimersByTimeAsync(5000);
    expect(u.renewals[0]).toHaveLength(2);
    await loop.stop();
  });

  it('a unit without `renew` runs without renewals', async () => {
    const ran: string[] = [];
    const loop = new LeasedLoop(
      'test',
      async (_w, hold) => {
        if (ran.length) return false;
        await hold({ run: async () => void ran.push('once') });
        return true;
      },
      { leaseMs: 300, pollMs: 1000, now: () => new Date(), logger },
    );
    expect(await loop.tick()).toBe(true);
    expect(await loop.tick()).toBe(false);
    expect(ran).toEqual(['once']);
  });

  it('idle, it looks again after pollMs, or at once when notified', async () => {
    const u = units();
    const loop = new LeasedLoop('test', u.leaseOne, { leaseMs: 3000, pollMs: 1000, now: () => new Date(), logger });
    loop.start();
    await vi.advanceTimersByTimeAsync(10);
    u.due.push('polled');
    await vi.advanceTimersByTimeAsync(989);
    expect(u.running.has('polled')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(u.running.has('polled')).toBe(true);
    u.running.get('polled')!();
    await vi.advanceTimersByTimeAsync(10);
    u.due.push('notified');
    loop.notify();
    await vi.advanceTimersByTimeAsync(0);
    expect(u.running.has('notified')).toBe(true);
    u.running.get('notified')!();
    await loop.stop();
  });

  it('`loops` units run at once; stop takes no new unit and resolves when those in hand have finished', async () => {
    const u = units();
    u.due.push('a', 'b', 'c');
    const loop = new LeasedLoop('test', u.leaseOne, { leaseMs: 3000, pollMs: 1000, loops: 2, now: () => new Date(), logger });
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect([...u.running.keys()]).toEqual(['a', 'b']);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    u.running.get('a')!();
    await vi.advanceTimersByTimeAsync(100);
    expect(stopped).toBe(false);
    expect(u.running.has('c')).toBe(false);
    u.running.get('b')!();
    await stopping;
    expect(u.finished).toEqual(['a', 'b']);
    expect(u.due).toEqual(['c']);
  });

  it('a lease that throws is logged and the loop goes on at the next poll', async () => {
    const error = vi.fn();
    let calls = 0;
    const loop = new LeasedLoop(
      'flaky',
      async () => {
        calls++;
        if (calls === 1) throw new Error('store down');
        return false;
      },
      { leaseMs: 300, pollMs: 1000, now: () => new Date(), logger: { ...logger, error } as never },
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(error).toHaveBeenCalledWith({ err: expect.any(Error) }, 'flaky tick failed');
    await loop.stop();
  });
});
