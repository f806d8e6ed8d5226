/**
 * What the work itself reports to the metrics: the narrow interface the job queue, the sync charge and
 * the webhook outbox are handed (as an optional dependency), so they record an event in one call and
 * know nothing of Prometheus. registry.ts implements it; NO_METRICS is the one that records nothing.
 */

/** Where credits were kept: the sync route's charge, a job's settlement, a batch item's settlement. */
export type ChargedVia = 'verify' | 'job' | 'batch';

/** What became of a webhook delivery after one attempt. */
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed';

export interface MetricsSink {
  /** Credits kept from a live key (0 is recorded as nothing). */
  creditsCharged(via: ChargedVia, credits: number): void;
  /** One webhook attempt: the delivery's state after it, the HTTP status answered (null: no answer), and how long it took. */
  webhookAttempt(outcome: WebhookOutcome, status: number | null, ms: number): void;
}

export const NO_METRICS: MetricsSink = {
  creditsCharged() {},
  webhookAttempt() {},
};
