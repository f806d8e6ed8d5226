/**
 * Runs an upstream's calls through one bottleneck limiter (concurrency, spacing and a per-second
 * quota; shared by every instance when Redis is configured), each call until its caller's deadline.
 * The registry upstreams (verify/registry/limited.ts) and the FCA register (insurers/online/) both
 * queue here.
 *
 * A limiter slot is not tied to the call that asked for it: each call queues one slot, and a slot,
 * when it starts, runs the oldest call still waiting. A call whose caller gave up in the queue leaves
 * it at once, so under overload the quota keeps serving live requests instead of a backlog of expired
 * ones, and is never spent on a call nobody waits for.
 */
import type Bottleneck from 'bottleneck';
import type { Limiters } from './limiters.js';

export interface LimitedCallOptions {
  maxConcurrent: number;
  minTimeMs: number;
  /** Calls started per second (a reservoir refilled every second); null or absent: no quota. */
  perSecond?: number | null;
  /** The longest a call can be waited for; a clustered limiter frees a dead instance's slot a little after it. */
  timeoutMs: number;
}

export interface LimitedCalls {
  readonly limiter: Bottleneck;
  /**
   * Runs `work` in a slot unless `signal` aborts first, in which case it rejects with the signal's
   * reason and `work` never runs. `onStart` is told when the slot is taken.
   */
  run<T>(signal: AbortSignal, work: () => Promise<T>, onStart?: () => void): Promise<T>;
  stop(): Promise<void>;
}

interface Waiter {
  start(): Promise<void>;
}

export function limitedCalls(id: string, opts: LimitedCallOptions, limiters: Limiters): LimitedCalls {
  const limiter = limiters.limiter(id, {
    maxConcurrent: opts.maxConcurrent,
    minTime: opts.minTimeMs,
    quota: opts.perSecond ? { amount: opts.perSecond, intervalMs: 1000 } : null,
  });
  const jobOptions = limiters.job(opts.timeoutMs);
  // Insertion order is arrival order: the first entry is the oldest call still waiting.
  const waiting = new Set<Waiter>();

  const slot = async (): Promise<void> => {
    const next = waiting.values().next();
    if (next.done) return;
    waiting.delete(next.value);
    await next.value.start();
  };

  return {
    limiter,
    run<T>(signal: AbortSignal, work: () => Promise<T>, onStart?: () => void): Promise<T> {
      if (signal.aborted) return Promise.reject(signal.reason);
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          if (waiting.delete(waiter)) reject(signal.reason);
        };
        const waiter: Waiter = {
          async start() {
            signal.removeEventListener('abort', onAbort);
            onStart?.();
            // The slot stays taken until the call ends, which its signal bounds.
            await work().then(resolve, reject);
          },
        };
        waiting.add(waiter);
        signal.addEventListener('abort', onAbort, { once: true });
        limiter.schedule(jobOptions, slot).catch((err: unknown) => {
          // The limiter refused the slot (stopped, or Redis failed): this call can't count on one.
          if (waiting.delete(waiter)) {
            signal.removeEventListener('abort', onAbort);
            reject(new Error(`rate limiter unavailable (${(err as Error).message})`));
          }
        });
      });
    },
    async stop() {
      await limiter.stop({ dropWaitingJobs: true });
    },
  };
}
