/**
 * Retention (docs/personal-data.md): an uploaded document is removed once its job has been finished
 * (complete or failed) for the document retention period; a finished job or batch, with the webhook
 * deliveries and sheet write-backs that copy its result, Idempotency-Key answers, result history
 * entries (docs/history.md) and watch runs with their changes and deliveries (docs/monitoring.md), after
 * the result retention period. A periodic worker sweeps; every instance may run it at once without a lease,
 * because each store step claims the rows it removes (store/types/retention.ts), and a second
 * sweeper finds them gone.
 */
import type { Logger } from '../logger.js';
import type { RetentionStore } from '../store/types.js';
import { periodic, type Worker } from '../workers/index.js';

export interface RetentionPolicy {
  /** An uploaded document is removed this long after its job finished. */
  documentMs: number;
  /** A finished job, batch or watch run, its deliveries and write-backs, an Idempotency-Key claim and a history entry are removed this long after. */
  resultMs: number;
}

/** Rows per transaction: SQLite's one writer is never held long, and a PostgreSQL sweep locks few rows at a time. */
export const RETENTION_CHUNK = 200;

export interface RetentionSweep {
  documents: number;
  document_bytes: number;
  jobs: number;
  batches: number;
  idempotency_keys: number;
  verifications: number;
  watch_runs: number;
  expiry_notices: number;
}

/** Repeats a step until a chunk comes back short: what was due when the sweep began is gone when it ends. */
async function drain(step: () => Promise<number>, chunk: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step();
    total += n;
    if (n < chunk) return total;
  }
}

/** One sweep at `now`. */
export async function sweepRetention(
  store: RetentionStore,
  policy: RetentionPolicy,
  now: Date,
  chunk = RETENTION_CHUNK,
): Promise<RetentionSweep> {
  const at = now.toISOString();
  const documentsBefore = new Date(now.getTime() - policy.documentMs).toISOString();
  const resultsBefore = new Date(now.getTime() - policy.resultMs).toISOString();
  let document_bytes = 0;
  const documents = await drain(async () => {
    const r = await store.purgeDocuments(documentsBefore, chunk);
    document_bytes += r.bytes;
    return r.documents;
  }, chunk);
  return {
    documents,
    document_bytes,
    jobs: await drain(() => store.expireJobs(resultsBefore, at, chunk), chunk),
    batches: await drain(() => store.expireBatches(resultsBefore, at, chunk), chunk),
    idempotency_keys: await drain(() => store.purgeIdempotency(resultsBefore, chunk), chunk),
    verifications: await drain(() => store.purgeVerifications(resultsBefore, chunk), chunk),
    // Each watch keeps its latest run and its policies' last state: the next run compares with them.
    watch_runs: await drain(() => store.purgeWatchRuns(resultsBefore, chunk), chunk),
    // An expiry notice is kept as long again as the result was; then the id is simply unknown.
    expiry_notices: await drain(() => store.purgeExpired(resultsBefore, chunk), chunk),
  };
}

/** The sweep as a background worker: once at start, then every `intervalMs`; `notify()` sweeps now. */
export function createRetentionWorker(
  deps: { store: RetentionStore; logger: Logger; now: () => Date },
  policy: RetentionPolicy,
  intervalMs: number,
): Worker {
  return periodic(
    'retention',
    async () => {
      const swept = await sweepRetention(deps.store, policy, deps.now());
      if (Object.values(swept).some((n) => n > 0)) deps.logger.info(swept, 'retention removed finished work past its retention period');
    },
    { intervalMs, logger: deps.logger },
  );
}
