/**
 * Every metric the connector exports besides the process's own: name, help, labels and buckets, in one
 * place (docs/metrics.md lists the same). Labels take values from closed lists only (a route's name in
 * the table, a status code, a reason code, an upstream's name): never a key, a policy number, an id or
 * a path, so the number of series stays bounded whatever the traffic.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Depths, ScrapeReaders } from './queue-depth.js';
import { SeriesHistogram } from './series-histogram.js';

/** Seconds. A sync verification answers in about a millisecond; the widest bucket covers a long ?wait. */
const HTTP_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Seconds. A text-layer PDF reads in well under a second, a scan by OCR in tens; the wall limit defaults to 300 s. */
const EXTRACTION_BUCKETS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 40, 80, 160, 320];
/** Seconds. Upstream calls and webhook attempts: deadlines of 2 s (registries) to 10 s (webhooks) by default. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** The upstreams the connector calls, by the name they get in the `upstream` label. */
export type Upstream = 'registry' | 'fca_register' | 'dataset_refresh';

/** `read`: what the gauges read from the store at each scrape (queue-depth.ts). */
export function defineMetrics(registry: Registry, read: ScrapeReaders) {
  const registers = [registry];
  const requests = new SeriesHistogram(
    'covercheck_http_request_duration_seconds',
    'HTTP answers by route (its name in the route table; "unmatched" for no route) and status, and the time to answer them',
    ['route', 'status'],
    HTTP_BUCKETS,
  );
  registry.registerMetric(requests as never);
  return {
    requests,
    jobsQueued: new Gauge({
      name: 'covercheck_jobs_queued',
      help: 'Pending jobs and batches no worker holds (waiting, or waiting to be retried), by kind',
      labelNames: ['kind'],
      registers,
      async collect() {
        setByKind(this, await read.depth(), (d) => d.queued);
      },
    }),
    jobsRunning: new Gauge({
      name: 'covercheck_jobs_running',
      help: 'Pending jobs and batches a worker holds under a live lease, by kind',
      labelNames: ['kind'],
      registers,
      async collect() {
        setByKind(this, await read.depth(), (d) => d.running);
      },
    }),
    oldestQueued: new Gauge({
      name: 'covercheck_jobs_oldest_queued_age_seconds',
      help: 'Age of the oldest job or batch no worker holds, by kind; 0 when none waits',
      labelNames: ['kind'],
      registers,
      async collect() {
        setByKind(this, await read.depth(), (d) => d.oldestAgeS);
      },
    }),
    writebackLag: new Gauge({
      name: 'covercheck_sheets_writeback_lag_seconds',
      help: 'How long the sheet write-back that came due first has been due without being written; 0 when none is due',
      registers,
      async collect() {
        const lag = await read.writebackLagS();
        // Unread (the store did not answer): no sample rather than a stale one.
        if (lag === null) this.reset();
        else this.set(lag);
      },
    }),
    credits: new Counter({
      name: 'covercheck_credits_charged_total',
      help: 'Credits kept from live keys: by the sync route (verify), a job (job) or a batch item (batch)',
      labelNames: ['via'],
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'covercheck_webhook_attempts_total',
      help: 'Webhook attempts by what became of the delivery (delivered, retrying, failed) and the answer (2xx ... 5xx, none)',
      labelNames: ['outcome', 'answer'],
      registers,
    }),
    webhookDuration: new Histogram({
      name: 'covercheck_webhook_attempt_duration_seconds',
      help: 'Time of one webhook attempt (DNS, connect, TLS, answer)',
      buckets: CALL_BUCKETS,
      registers,
    }),
    extractionDuration: new Histogram({
      name: 'covercheck_extraction_duration_seconds',
      help: 'Time to extract one document, waiting for a thread included, by outcome: read, refused (unreadable), error (retried)',
      labelNames: ['outcome'],
      buckets: EXTRACTION_BUCKETS,
      registers,
    }),
    extractionRefusals: new Counter({
      name: 'covercheck_extraction_refusals_total',
      help: 'Documents the extractor could not read, by reason (corrupt_pdf, encrypted_pdf, no_readable_text, too_many_pages, over_limit)',
      labelNames: ['reason'],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: 'covercheck_upstream_request_duration_seconds',
      help: 'Time to the answer of one upstream call (registry, fca_register, dataset_refresh), failed calls included',
      labelNames: ['upstream'],
      buckets: CALL_BUCKETS,
      registers,
    }),
    upstreamRequests: new Counter({
      name: 'covercheck_upstream_requests_total',
      help: 'Upstream calls by upstream and outcome: the answer class (2xx ... 5xx), timeout or unreachable',
      labelNames: ['upstream', 'outcome'],
      registers,
    }),
  };
}

export type Definitions = ReturnType<typeof defineMetrics>;

/** One sample per kind; none at all when the store did not answer, rather than stale ones. */
function setByKind(gauge: Gauge<'kind'>, depth: Depths | null, value: (d: Depths[keyof Depths]) => number): void {
  gauge.reset();
  if (depth) for (const kind of Object.keys(depth) as (keyof Depths)[]) gauge.set({ kind }, value(depth[kind]));
}
