/**
 * Times the calls to an upstream by wrapping the `fetch` it is given (registries, the FCA register,
 * dataset refreshes): the time to the answer's headers, and the outcome as the HTTP class of the
 * answer, or `timeout` / `unreachable` when there is none. What an answer means (a registry's 404 is
 * "not found", not a failure) is the caller's to judge; the metric keeps the class.
 */
import type { Counter, Histogram } from 'prom-client';
import type { Upstream } from './definitions.js';

export type UpstreamOutcome = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'timeout' | 'unreachable';

const CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;

/** An aborted or timed-out call (AbortSignal.timeout, a deadline's abort) against one that found nothing to talk to. */
function failureOf(err: unknown): UpstreamOutcome {
  const name = (err as { name?: unknown } | null)?.name;
  return name === 'AbortError' || name === 'TimeoutError' ? 'timeout' : 'unreachable';
}

export function timedFetch(
  upstream: Upstream,
  inner: typeof fetch,
  metrics: { duration: Histogram<'upstream'>; calls: Counter<'upstream' | 'outcome'> },
): typeof fetch {
  const duration = metrics.duration.labels(upstream);
  const counted = Object.fromEntries([...CLASSES, 'timeout', 'unreachable'].map((o) => [o, metrics.calls.labels(upstream, o)]));
  return async (input, init) => {
    const started = performance.now();
    try {
      const res = await inner(input, init);
      counted[CLASSES[Math.floor(res.status / 100) - 1] ?? '5xx']!.inc();
      return res;
    } catch (err) {
      counted[failureOf(err)]!.inc();
      throw err;
    } finally {
      duration.observe((performance.now() - started) / 1000);
    }
  };
}
