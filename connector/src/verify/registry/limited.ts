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
import { limitedCalls, type LimitedCallOptions } from '../../redis/limited-calls.js';
import { createLimiters, type Limiters } from '../../redis/limiters.js';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export type LimitOptions = LimitedCallOptions;

export interface LimitedAdapter extends RegistryAdapter {
  readonly limiter: Bottleneck;
}

export function limitedRegistry(inner: RegistryAdapter, opts: LimitOptions, limiters: Limiters = createLimiters(null)): LimitedAdapter {
  const calls = limitedCalls(`registry-${inner.name}`, opts, limiters);
  const unavailable = (reason: string): RegistryAnswer => ({ kind: 'unavailable', source: inner.name, reason });

  return {
    name: inner.name,
    limiter: calls.limiter,
    lookup(query: RegistryQuery, outer?: AbortSignal): Promise<RegistryAnswer> {
      const due = deadline(opts.timeoutMs, outer);
      if (due.signal.aborted) return Promise.resolve(unavailable('timed out in queue'));
      let started = false;
      return new Promise<RegistryAnswer>((settle) => {
        const resolve = (answer: RegistryAnswer) => {
          due.clear();
          settle(answer);
        };
        // Answers at the deadline even if the upstream call ignores its signal; later settles are no-ops.
        due.signal.addEventListener(
          'abort',
          () => resolve(unavailable(started ? `timed out after ${opts.timeoutMs} ms` : `timed out in queue after ${opts.timeoutMs} ms`)),
          {
            once: true,
          },
        );
        calls
          .run(
            due.signal,
            () => inner.lookup(query, due.signal),
            () => (started = true),
          )
          .then(resolve, (err: unknown) => resolve(unavailable((err as Error).message)));
      });
    },
  };
}
