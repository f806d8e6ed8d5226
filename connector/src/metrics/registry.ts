/**
 * The metrics of one connector: a prom-client Registry of its own, so several connectors in one process
 * (as the tests run them) keep their counts apart, merged with the process's default metrics (CPU,
 * memory, event loop, GC), which describe the process and are collected once in it. With metrics off
 * nothing is recorded: the request middleware is not mounted, fetch and the extractor are not wrapped.
 */
import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import { defineMetrics, type Upstream } from './definitions.js';
import type { ExtractionRecorder } from './extraction.js';
import { requestMetrics } from './http.js';
import { storeReaders } from './queue-depth.js';
import { NO_METRICS, type ChargedVia, type MetricsSink, type WebhookOutcome } from './sink.js';
import { timedFetch } from './upstream.js';

export interface Metrics extends MetricsSink {
  readonly enabled: boolean;
  /** Counts and times every HTTP answer; mounted first by app.ts. Null when metrics are off. */
  readonly requests: RequestHandler | null;
  /** `inner`, timed and counted as calls to `upstream`. */
  upstreamFetch(upstream: Upstream, inner: typeof fetch): typeof fetch;
  /** Where the extractor's watcher (extraction.ts) records each document. */
  readonly extraction: ExtractionRecorder;
  /** The exposition of this connector's metrics and the process's. */
  render(): Promise<{ contentType: string; text: string }>;
}

export const METRICS_OFF: Metrics = {
  ...NO_METRICS,
  enabled: false,
  requests: null,
  upstreamFetch: (_upstream, inner) => inner,
  extraction: { document() {} },
  render: () => Promise.reject(new Error('metrics are off')),
};

let processRegistry: Registry | null = null;

/** The process's default metrics: one set of GC and event-loop observers per process, however many connectors it runs. */
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

const ANSWER_CLASSES = ['none', '1xx', '2xx', '3xx', '4xx', '5xx'] as const;

export function createMetrics(opts: { store: Pick<Store, 'jobs' | 'batches' | 'writebacks'>; now: () => Date; logger: Logger }): Metrics {
  const own = new Registry();
  const m = defineMetrics(own, storeReaders(opts.store, opts.now, opts.logger));
  const exposed = Registry.merge([processMetrics(), own]);
  // Each series named once here, from the closed lists of its labels (these events are a few a second at most).
  const credits: Record<ChargedVia, { inc(n: number): void }> = {
    verify: m.credits.labels('verify'),
    job: m.credits.labels('job'),
    batch: m.credits.labels('batch'),
  };
  // Shown at 0 from the start, so that rate() and increase() count the first credits too.
  for (const c of Object.values(credits)) c.inc(0);
  const attempts = Object.fromEntries(
    (['delivered', 'retrying', 'failed'] as WebhookOutcome[]).map((o) => [o, ANSWER_CLASSES.map((a) => m.webhookAttempts.labels(o, a))]),
  ) as Record<WebhookOutcome, { inc(): void }[]>;
  return {
    enabled: true,
    requests: requestMetrics(m.requests),
    creditsCharged(via, n) {
      if (n > 0) credits[via].inc(n);
    },
    webhookAttempt(outcome, status, ms) {
      const answer = status !== null && status >= 100 && status < 600 ? Math.floor(status / 100) : 0;
      attempts[outcome][answer]!.inc();
      m.webhookDuration.observe(ms / 1000);
    },
    upstreamFetch: (upstream, inner) => timedFetch(upstream, inner, { duration: m.upstreamDuration, calls: m.upstreamRequests }),
    extraction: {
      document(outcome, seconds, reason) {
        m.extractionDuration.labels(outcome).observe(seconds);
        if (reason) m.extractionRefusals.labels(reason).inc();
      },
    },
    async render() {
      return { contentType: exposed.contentType, text: await exposed.metrics() };
    },
  };
}
