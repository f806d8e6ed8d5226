/**
 * The durable work queue's workers. Each loop leases one job or batch from the store (a lease
 * expires, so work held by a dead process is taken again), renews the lease while it works, and
 * finishes through the store's guarded transactions, so every accepted unit completes once.
 *
 * Job lifecycle: pending -> complete | failed, both final. A job is retried (released and leased
 * again) when processing throws; after MAX_JOB_ATTEMPTS leases it fails with internal_error.
 * Batch lifecycle: pending -> processing (first item done) -> complete (every item done).
 */
import crypto from 'node:crypto';
import type { TErrorBody } from '../../../shared/errors.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { documentCost, isCharged } from '../credits/charge.js';
import { errorBody } from '../errors.js';
import type { Logger } from '../logger.js';
import type { MetricsSink } from '../metrics/sink.js';
import type { ApiKeyRecord, BatchItemRecord, BatchRecord, JobRecord, Settlement, Store } from '../store/types.js';
import { verificationRow } from '../store/verification-row.js';
import type { EngineDeps } from '../verify/engine.js';
import { outboxEvent } from '../webhooks/events.js';
import { batchWriteback, jobWriteback } from '../sheets/writeback.js';
import { LeasedLoop, type Hold, type LeasedUnit, type LeaseWindow, type Worker } from '../workers/index.js';
import type { Completions } from './completions.js';
import { crossCheck } from './cross-check.js';
import { DocumentTurns, type DocumentShares } from './lanes.js';
import type { Extractor } from './extraction-port.js';
import { verifyOne } from './verify-one.js';
import { batchView, DOCUMENT_NOT_EXTRACTED, jobView, type DocumentOutcome } from './views.js';

export const MAX_JOB_ATTEMPTS = 5;

export interface QueueOptions {
  /** Workers for jobs without a document and for batches. */
  workers: number;
  batchConcurrency: number;
  leaseMs: number;
  pollMs: number;
  /** Workers for jobs that carry a document (lanes.ts); default 1. */
  documentWorkers?: number;
  /** Documents one key may have in the readers at once; default 2 for a live key, 1 for a sandbox key. */
  documentShares?: DocumentShares;
}

export interface QueueDeps {
  store: Store;
  engine: EngineDeps;
  logger: Logger;
  now: () => Date;
  /** Wakes the webhook outbox when a unit of work wrote an event. */
  onEvent?: () => void;
  /** PDF extraction; without it, extraction jobs fail and documents are kept unread. */
  extractor?: Extractor;
  /** Wakes long-polling GETs (?wait=) when a job or batch finishes. */
  completions?: Completions;
  /** Where the credits a job or batch item kept are counted. */
  metrics?: MetricsSink;
}

/** When the extraction pool is saturated, a job is given back and tried again this much later. */
const BUSY_RETRY_MS = 500;

const INTERNAL: TErrorBody = errorBody('internal_error', 'Processing failed repeatedly; nothing was charged.');

function settlement(reserved: number, cost: number, ref: string): Settlement {
  const charge = Math.min(reserved, cost);
  return { charge, refund: reserved - charge, ref };
}

export class WorkQueue implements Worker {
  readonly name = 'work queue';
  readonly owner = `worker-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private keys = new Map<string, ApiKeyRecord | null>();
  private readonly verification: LeasedLoop;
  private readonly documents: LeasedLoop;
  private readonly turns: DocumentTurns;
  /** Set by stop: a job whose attempt the stop cuts short (its document's reading given up) is handed back, not failed. */
  private stopping = false;

  constructor(
    private readonly deps: QueueDeps,
    private readonly opts: QueueOptions,
  ) {
    const loop = { leaseMs: opts.leaseMs, pollMs: opts.pollMs, now: deps.now, logger: deps.logger };
    this.verification = new LeasedLoop('work queue', (w, hold) => this.leaseVerification(w, hold), { ...loop, loops: opts.workers });
    this.documents = new LeasedLoop('document queue', (w, hold) => this.leaseDocument(w, hold), {
      ...loop,
      loops: opts.workers > 0 ? (opts.documentWorkers ?? 1) : 0,
    });
    this.turns = new DocumentTurns(opts.documentShares ?? { perLiveKey: 2, perSandboxKey: 1 });
  }

  start(): void {
    this.stopping = false;
    this.verification.start();
    this.documents.start();
  }

  /** Stops taking new work and waits for the units in hand to finish. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([this.verification.stop(), this.documents.stop()]);
  }

  notify(): void {
    this.verification.notify();
    this.documents.notify();
  }

  /** Leases and processes one unit of either lane; false when there was nothing to do (for tests and one-off runs). */
  async tick(): Promise<boolean> {
    return (await this.tickVerification()) || (await this.tickDocuments());
  }

  /** The verification lane: a job without a document, else a batch. */
  tickVerification(): Promise<boolean> {
    return this.verification.tick();
  }

  /** The document lane: the next key's turn (lanes.ts), its oldest document. */
  tickDocuments(): Promise<boolean> {
    return this.documents.tick();
  }

  private async leaseVerification({ at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const job = await this.deps.store.jobs.lease(this.owner, at, until, { documents: false });
    if (job) {
      await hold(this.jobUnit(job));
      return true;
    }
    const batch = await this.deps.store.batches.lease(this.owner, at, until);
    if (batch) {
      await hold({ renew: (u) => this.deps.store.batches.renew(batch.id, this.owner, u), run: () => this.processBatch(batch) });
      return true;
    }
    return false;
  }

  private async leaseDocument({ now, at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    for (const keyId of this.turns.order(await this.deps.store.jobs.documentQueue(at))) {
      // Another worker may have taken that key's last one meanwhile: then the next key.
      const job = await this.deps.store.jobs.lease(this.owner, at, until, { documents: true, keyId });
      if (!job) continue;
      this.turns.took(keyId);
      await hold(this.jobUnit(job));
      return true;
    }
    return false;
  }

  private jobUnit(job: JobRecord): LeasedUnit {
    return { renew: (u) => this.deps.store.jobs.renew(job.id, this.owner, u), run: () => this.processJob(job) };
  }

  private async key(id: string): Promise<ApiKeyRecord | null> {
    if (!this.keys.has(id)) this.keys.set(id, await this.deps.store.keys.get(id));
    return this.keys.get(id) ?? null;
  }

  private async processJob(job: JobRecord): Promise<void> {
    const at = () => this.deps.now().toISOString();
    const key = await this.key(job.key_id);
    const finish = async (
      status: 'complete' | 'failed',
      payload: { result?: unknown; error?: TErrorBody },
      cost: number,
      documentOutcome: DocumentOutcome | null,
      /** A verification's policy and result, for the key's history (written with the finish). */
      verified?: { policy: TPolicy; result: TVerificationResult },
    ) => {
      const done = at();
      const result = payload.result === undefined ? null : JSON.stringify(payload.result);
      const error = payload.error ? JSON.stringify(payload.error) : null;
      const outcome = documentOutcome ? JSON.stringify(documentOutcome) : null;
      const record: JobRecord = { ...job, status, result, error, document_outcome: outcome, updated_at: done, completed_at: done };
      const type = status === 'complete' ? 'job.completed' : 'job.failed';
      const settled = settlement(job.reserved, cost, `job:${job.id}`);
      const finished = await this.deps.store.jobs.finish({
        id: job.id,
        owner: this.owner,
        status,
        result,
        error,
        document_outcome: outcome,
        settlement: settled,
        outbox: job.webhook_url ? outboxEvent(type, job.key_id, job.webhook_url, job.id, jobView(record), done) : null,
        writeback: jobWriteback(job, payload, done),
        verification: verified
          ? verificationRow({
              key_id: job.key_id,
              source: 'async',
              source_id: job.id,
              input: verified.policy,
              result: verified.result,
              at: done,
            })
          : null,
        at: done,
      });
      if (!finished) this.deps.logger.warn({ job_id: job.id }, 'job finished elsewhere (lease lost); result discarded');
      else this.deps.metrics?.creditsCharged('job', settled.charge);
      this.deps.onEvent?.();
      this.deps.completions?.done(job.id);
    };
    if (job.attempts > MAX_JOB_ATTEMPTS) return finish('failed', { error: INTERNAL }, 0, null);
    const extractor = this.deps.extractor;
    if ((job.kind === 'extraction' || job.document_bytes !== null) && extractor?.busy()) {
      await this.deps.store.jobs.release(job.id, this.owner, new Date(this.deps.now().getTime() + BUSY_RETRY_MS).toISOString());
      return;
    }
    try {
      if (job.kind === 'extraction') {
        if (!extractor)
          return finish('failed', { error: errorBody('service_unavailable', 'PDF extraction is not available on this server.') }, 0, null);
        const doc = await this.deps.store.jobs.document(job.id);
        const out = await extractor.extract(doc ?? Buffer.alloc(0));
        if (!out.ok) return finish('failed', { error: errorBody('unreadable_document', out.message) }, 0, null);
        return finish('complete', { result: out.fields }, key && isCharged(key) ? 1 : 0, null);
      }
      const { policy } = JSON.parse(job.payload) as { policy: TPolicy };
      const outcome = await verifyOne(policy, key, this.deps.engine);
      if (!outcome.ok) return finish('failed', { error: outcome.error }, 0, null);
      let documentOutcome: DocumentOutcome | null = null;
      if (job.document_bytes !== null) {
        if (!extractor) {
          documentOutcome = { bytes: job.document_bytes, extraction: 'not_available', detail: DOCUMENT_NOT_EXTRACTED };
        } else {
          const read = await extractor.extract((await this.deps.store.jobs.document(job.id)) ?? Buffer.alloc(0));
          if (!read.ok) {
            documentOutcome = { bytes: job.document_bytes, extraction: 'failed', detail: read.message };
          } else {
            const mismatches = crossCheck(policy, outcome.result, read.fields);
            if (mismatches.length > 0 && !outcome.result.flags.includes('document_mismatch'))
              outcome.result.flags.push('document_mismatch');
            documentOutcome = {
              bytes: job.document_bytes,
              extraction: 'complete',
              detail: mismatches.length
                ? `The document disagrees on ${mismatches.join(', ')}.`
                : 'The document agrees with the submitted fields it states.',
              fields: read.fields,
              mismatches,
            };
          }
        }
      }
      // The document's credit (reserved at submission) is kept only when it was read: credits/charge.ts.
      return finish(
        'complete',
        { result: outcome.result },
        outcome.cost + documentCost(key, documentOutcome?.extraction ?? null),
        documentOutcome,
        { policy, result: outcome.result },
      );
    } catch (err) {
      if (this.stopping) {
        // Free for the next taker at once, another instance or this one's next start.
        this.deps.logger.info({ job_id: job.id, reason: (err as Error).message }, 'job handed back: the connector is stopping');
        await this.deps.store.jobs.release(job.id, this.owner, at());
        return;
      }
      this.deps.logger.error({ err, job_id: job.id, attempt: job.attempts }, 'job attempt failed; will retry');
      const retryAt = new Date(this.deps.now().getTime() + 1000 * 2 ** Math.min(job.attempts, 6)).toISOString();
      await this.deps.store.jobs.release(job.id, this.owner, retryAt);
    }
  }

  private async processBatch(batch: BatchRecord): Promise<void> {
    const key = await this.key(batch.key_id);
    const pending = (await this.deps.store.batches.items(batch.id)).filter((i) => i.state === 'pending');
    let next = 0;
    let lost = false;
    const worker = async () => {
      while (!lost && next < pending.length) {
        const item = pending[next++]!;
        if (!(await this.processItem(batch, item, key))) lost = true;
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.opts.batchConcurrency, pending.length) }, worker));
    if (lost) {
      this.deps.logger.warn({ batch_id: batch.id }, 'batch lease lost; another worker continues it');
      return;
    }
    const done = this.deps.now().toISOString();
    const items = await this.deps.store.batches.items(batch.id);
    const complete: BatchRecord = { ...batch, status: 'complete', completed_count: items.length, updated_at: done, completed_at: done };
    const outbox = batch.webhook_url
      ? outboxEvent('batch.completed', batch.key_id, batch.webhook_url, batch.id, batchView(complete, items), done)
      : null;
    await this.deps.store.batches.complete(batch.id, this.owner, outbox, done, batchWriteback(complete, items, done));
    this.deps.onEvent?.();
    this.deps.completions?.done(batch.id);
  }

  /** False when the batch is no longer ours (lease lost), so the caller stops. */
  private async processItem(batch: BatchRecord, item: BatchItemRecord, key: ApiKeyRecord | null): Promise<boolean> {
    const ref = `batch:${batch.id}:${item.idx}`;
    let result: string | null = null;
    let error: string | null = null;
    let cost = 0;
    let verified: { policy: TPolicy; result: TVerificationResult } | null = null;
    try {
      const policy = JSON.parse(item.input) as TPolicy;
      const outcome = await verifyOne(policy, key, this.deps.engine);
      if (outcome.ok) {
        result = JSON.stringify(outcome.result);
        cost = outcome.cost;
        verified = { policy, result: outcome.result };
      } else {
        error = JSON.stringify(outcome.error);
      }
    } catch (err) {
      this.deps.logger.error({ err, batch_id: batch.id, index: item.idx }, 'batch item failed');
      error = JSON.stringify(errorBody('internal_error', 'This item could not be processed; nothing was charged for it.'));
    }
    const settled = settlement(item.reserved, cost, ref);
    const at = this.deps.now().toISOString();
    const finished = await this.deps.store.batches.finishItem({
      batch_id: batch.id,
      idx: item.idx,
      owner: this.owner,
      result,
      error,
      settlement: settled,
      verification: verified
        ? verificationRow({
            key_id: batch.key_id,
            source: 'batch',
            source_id: batch.id,
            input: verified.policy,
            result: verified.result,
            at,
          })
        : null,
      at,
    });
    if (finished) this.deps.metrics?.creditsCharged('batch', settled.charge);
    return finished;
  }
}
