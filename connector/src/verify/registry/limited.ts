/**
 * Wraps an upstream adapter in a bottleneck limiter (its concurrency, spacing and, optionally, a
 * per-second quota; shared by every instance when Redis is configured) and a deadline that covers
 * time queued as well as time running, so a slow or saturated upstream turns into `unavailable`
 * (an inconclusive result) rather than a hung request.
 *
 * Limiter slots are not tied to the lookup that asked for them: each lookup queues one slot, and a
 * slot, when it starts, serves the oldest lookup still waiting. A lookup that gave up in the queue
 * therefore doesn't spend a start of the quota on a call nobody waits for; under overload the
 * quota keeps serving live requests instead of a backlog of expired ones.
 */
import type Bottleneck from 'bottleneck';
import { deadline } from '../../deadline.js';
import { createLimiters, type Limiters } from '../../redis/limiters.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export interface LimitOptions {
  maxConcurrent: number;
  minTimeMs: number;
  timeoutMs: number;
  /** Calls started per second (a reservoir refilled every second); null or absent: no quota. */
  perSecond?: number | null;
}

export interface LimitedAdapter extends RegistryAdapter {
  readonly limiter: Bottleneck;
}

interface Waiter {
  query: RegistryQuery;
  deadline: AbortSignal;
  settle(answer: RegistryAnswer): void;
}

export function limitedRegistry(inner: RegistryAdapter, opts: LimitOptions, limiters: Limiters = createLimiters(null)): LimitedAdapter {
  const limiter = limiters.limiter(`registry-${inner.name}`, {
    maxConcurrent: opts.maxConcurrent,
    minTime: opts.minTimeMs,
    quota: opts.perSecond ? { amount: opts.perSecond, intervalMs: 1000 } : null,
  });
  const jobOptions = limiters.job(opts.timeoutMs);
  const unavailable = (reason: string): RegistryAnswer => ({ kind: 'unavailable', source: inner.name, reason });
  // Insertion order is arrival order: the first entry is the oldest lookup still waiting.
  const waiting = new Set<Waiter>();

  const slot = async (): Promise<void> => {
    const next = waiting.values().next();
    if (next.done) return;
    const w = next.value;
    waiting.delete(w);
    w.settle(await inner.lookup(w.query, w.deadline).catch((err: unknown) => unavailable((err as Error).message)));
  };

  return {
    name: inner.name,
    limiter,
    lookup(query: RegistryQuery, outer: AbortSignal): Promise<RegistryAnswer> {
      const due = deadline(outer, opts.timeoutMs);
      if (due.signal.aborted) return Promise.resolve(unavailable('timed out in queue'));
      return new Promise<RegistryAnswer>((settle) => {
        const resolve = (answer: RegistryAnswer) => {
          due.clear();
          settle(answer);
        };
        const waiter: Waiter = { query, deadline: due.signal, settle: resolve };
        waiting.add(waiter);
        // Answers at the deadline even if the upstream call ignores its signal; later settles are no-ops.
        due.signal.addEventListener(
          'abort',
          () => {
            const queued = waiting.delete(waiter);
            resolve(unavailable(queued ? `timed out in queue after ${opts.timeoutMs} ms` : `timed out after ${opts.timeoutMs} ms`));
          },
          { once: true },
        );
        limiter.schedule(jobOptions, slot).catch((err: unknown) => {
          // The limiter refused the slot (stopped, or Redis failed): this lookup can't count on one.
          if (waiting.delete(waiter)) resolve(unavailable(`rate limiter unavailable (${(err as Error).message})`));
        });
      });
    },
  };
}
