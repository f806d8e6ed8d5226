/**
 * Wraps an upstream adapter in a bottleneck limiter (its own concurrency and spacing) and a
 * deadline that covers time queued as well as time running, so a slow or saturated upstream turns
 * into `unavailable` (an inconclusive result) rather than a hung request.
 */
import Bottleneck from 'bottleneck';
import type { RegistryAdapter, RegistryAnswer, RegistryQuery } from './types.js';

export interface LimitOptions {
  maxConcurrent: number;
  minTimeMs: number;
  timeoutMs: number;
}

export interface LimitedAdapter extends RegistryAdapter {
  readonly limiter: Bottleneck;
}

export function limitedRegistry(inner: RegistryAdapter, opts: LimitOptions): LimitedAdapter {
  const limiter = new Bottleneck({ maxConcurrent: opts.maxConcurrent, minTime: opts.minTimeMs, id: `registry-${inner.name}` });
  return {
    name: inner.name,
    limiter,
    async lookup(query: RegistryQuery, outer: AbortSignal): Promise<RegistryAnswer> {
      const deadline = AbortSignal.any([outer, AbortSignal.timeout(opts.timeoutMs)]);
      const timedOut = new Promise<RegistryAnswer>((resolve) => {
        const done = () => resolve({ kind: 'unavailable', source: inner.name, reason: `timed out after ${opts.timeoutMs} ms` });
        if (deadline.aborted) done();
        else deadline.addEventListener('abort', done, { once: true });
      });
      const run = limiter.schedule(() => {
        if (deadline.aborted) return Promise.resolve<RegistryAnswer>({ kind: 'unavailable', source: inner.name, reason: 'timed out in queue' });
        return inner.lookup(query, deadline);
      });
      return Promise.race([
        run.catch((err: unknown): RegistryAnswer => ({ kind: 'unavailable', source: inner.name, reason: (err as Error).message })),
        timedOut,
      ]);
    },
  };
}
