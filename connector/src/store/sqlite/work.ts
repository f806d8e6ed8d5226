/**
 * Jobs and batches in SQLite. Every state change that matters to a customer (result, credit
 * settlement, outbox row, write-back) happens in one immediate transaction guarded by the current
 * state and lease owner, so work is finished once even if two workers raced for it.
 */
import type { IdempotentRecord } from '../types/idempotency.js';
import type { NewOutbox } from '../types/outbox.js';
import type { NewWriteback } from '../types/sheets.js';
import type {
  BatchStore,
  DocumentQueueEntry,
  JobKind,
  JobStore,
  QueueDepth,
  Reservation,
  Settlement,
  SubmitOutcome,
} from '../types/work.js';
import type { CreditOps } from './credit-ops.js';
import type { Db } from './db.js';
import { verificationInsert } from './history.js';
import { idempotentCompleter } from './idempotency.js';
import { deliveryEnqueuer } from './outbox.js';
import { toBatch, toItem, toJob, type Row } from './rows.js';
import { writebackEnqueuer } from './sheets.js';

/** Queue depth of pending rows (store/types/work.ts QueueDepth): held by a live lease as of @now, or not. */
const DEPTH_COLUMNS = `count(*) - coalesce(sum(CASE WHEN lease_owner IS NOT NULL AND lease_until >= @now THEN 1 ELSE 0 END), 0) AS queued,
  coalesce(sum(CASE WHEN lease_owner IS NOT NULL AND lease_until >= @now THEN 1 ELSE 0 END), 0) AS running,
  min(CASE WHEN lease_owner IS NOT NULL AND lease_until >= @now THEN NULL ELSE created_at END) AS oldest_queued`;

/** 1 when a job carries a document (an extraction, or a verification sent with one), else 0. */
const HAS_DOCUMENT =
  "CASE WHEN jobs.kind = 'extraction' OR EXISTS (SELECT 1 FROM job_documents d WHERE d.job_id = jobs.id) THEN 1 ELSE 0 END";

export function workStores(db: Db, credits: CreditOps): { jobs: JobStore; batches: BatchStore } {
  const JOB_COLS = 'jobs.*, (SELECT length(content) FROM job_documents d WHERE d.job_id = jobs.id) AS document_bytes';
  const q = {
    jobInsert: db.prepare(`INSERT INTO jobs (id, key_id, kind, payload, webhook_url, sheet_target, reserved, created_at, updated_at)
      VALUES (@id, @key_id, @kind, @payload, @webhook_url, @sheet_target, @reserved, @created_at, @created_at)`),
    docInsert: db.prepare('INSERT INTO job_documents (job_id, content) VALUES (?, ?)'),
    docGet: db.prepare('SELECT content FROM job_documents WHERE job_id = ?'),
    docBytesAdd: db.prepare(
      'INSERT INTO key_document_bytes (key_id, bytes) VALUES (?, ?) ON CONFLICT (key_id) DO UPDATE SET bytes = key_document_bytes.bytes + excluded.bytes',
    ),
    docBytesGet: db.prepare('SELECT bytes FROM key_document_bytes WHERE key_id = ?'),
    jobGet: db.prepare(`SELECT ${JOB_COLS} FROM jobs WHERE id = ?`),
    jobLease: db.prepare(`UPDATE jobs SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1, updated_at = @now
      WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < @now) ORDER BY created_at, id LIMIT 1)
      RETURNING id`),
    // The lanes (jobs/lanes.ts): @documents 1 or 0; @key_id null for any key.
    jobLeaseLane: db.prepare(`UPDATE jobs SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1, updated_at = @now
      WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < @now)
        AND (@key_id IS NULL OR key_id = @key_id)
        AND (${HAS_DOCUMENT}) = @documents
        ORDER BY created_at, id LIMIT 1)
      RETURNING id`),
    documentQueue: db.prepare(`SELECT j.key_id, k.mode,
        sum(CASE WHEN j.lease_until IS NULL OR j.lease_until < @now THEN 1 ELSE 0 END) AS leasable,
        sum(CASE WHEN j.lease_owner IS NOT NULL AND j.lease_until >= @now THEN 1 ELSE 0 END) AS active,
        count(*) AS pending,
        min(CASE WHEN j.lease_until IS NULL OR j.lease_until < @now THEN j.created_at END) AS oldest
      FROM jobs j JOIN api_keys k ON k.id = j.key_id
      WHERE j.status = 'pending' AND (${HAS_DOCUMENT.replaceAll('jobs.', 'j.')}) = 1
      GROUP BY j.key_id, k.mode`),
    // The open-work indexes (jobs_open, batches_open) cover the pending rows these read.
    jobDepth: db.prepare(`SELECT kind, ${DEPTH_COLUMNS} FROM jobs WHERE status = 'pending' GROUP BY kind`),
    batchDepth: db.prepare(`SELECT ${DEPTH_COLUMNS} FROM batches WHERE status != 'complete'`),
    jobRenew: db.prepare("UPDATE jobs SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status = 'pending'"),
    jobPending: db.prepare("SELECT count(*) AS n FROM jobs WHERE status = 'pending' AND kind = ?"),
    jobFinish:
      db.prepare(`UPDATE jobs SET status = @status, result = @result, error = @error, charged = @charge, document_outcome = @document_outcome, lease_owner = NULL, lease_until = NULL,
      finished_by = @owner, updated_at = @at, completed_at = @at WHERE id = @id AND status = 'pending' AND lease_owner = @owner RETURNING key_id`),
    jobRelease: db.prepare(
      "UPDATE jobs SET lease_owner = NULL, lease_until = @retry, updated_at = @retry WHERE id = @id AND lease_owner = @owner AND status = 'pending'",
    ),
    batchInsert:
      db.prepare(`INSERT INTO batches (id, key_id, total_count, completed_count, webhook_url, sheet_target, created_at, updated_at)
      VALUES (@id, @key_id, @total, @done, @webhook_url, @sheet_target, @created_at, @created_at)`),
    itemInsert: db.prepare(`INSERT INTO batch_items (batch_id, idx, policy_number, input, state, result, error, reserved)
      VALUES (@batch_id, @idx, @policy_number, @input, @state, @result, @error, @reserved)`),
    batchGet: db.prepare('SELECT * FROM batches WHERE id = ?'),
    itemsGet: db.prepare('SELECT * FROM batch_items WHERE batch_id = ? ORDER BY idx'),
    batchLease: db.prepare(`UPDATE batches SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1, updated_at = @now
      WHERE id = (SELECT id FROM batches WHERE status != 'complete' AND (lease_until IS NULL OR lease_until < @now) ORDER BY created_at, id LIMIT 1)
      RETURNING *`),
    batchRenew: db.prepare("UPDATE batches SET lease_until = ? WHERE id = ? AND lease_owner = ? AND status != 'complete'"),
    batchOwned: db.prepare("SELECT key_id FROM batches WHERE id = ? AND lease_owner = ? AND status != 'complete'"),
    itemFinish: db.prepare(`UPDATE batch_items SET state = 'done', result = @result, error = @error, charged = @charge
      WHERE batch_id = @batch_id AND idx = @idx AND state = 'pending'`),
    batchProgress: db.prepare(
      `UPDATE batches SET completed_count = completed_count + 1, status = 'processing', updated_at = @at WHERE id = @id`,
    ),
    batchComplete:
      db.prepare(`UPDATE batches SET status = 'complete', lease_owner = NULL, lease_until = NULL, updated_at = @at, completed_at = @at
      WHERE id = @id AND lease_owner = @owner AND status != 'complete'
        AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = @id AND state = 'pending')`),
    batchRelease: db.prepare(
      "UPDATE batches SET lease_owner = NULL, lease_until = @retry WHERE id = @id AND lease_owner = @owner AND status != 'complete'",
    ),
  };

  function reserve(keyId: string, r: Reservation | null, at: string): SubmitOutcome {
    if (!r || r.amount === 0) return { ok: true };
    const balance = credits.debit(keyId, r.amount, r.period, 'reserve', r.ref, at);
    return balance === null ? { ok: false, balance: credits.balance(keyId) } : { ok: true };
  }

  function settle(keyId: string, s: Settlement, at: string): void {
    credits.refund(keyId, s.refund, s.ref, at);
  }

  const enqueue = deliveryEnqueuer(db);
  const enqueueWriteback = writebackEnqueuer(db);
  const recordVerification = verificationInsert(db);
  const completeIdempotent = idempotentCompleter(db);

  const jobCreate = db.transaction(
    (job: Parameters<JobStore['create']>[0], r: Reservation | null, record?: IdempotentRecord): SubmitOutcome => {
      const reserved = reserve(job.key_id, r, job.created_at);
      if (!reserved.ok) return reserved;
      q.jobInsert.run({ ...job, sheet_target: job.sheet_target ?? null, reserved: r?.amount ?? 0 });
      if (job.document) {
        q.docInsert.run(job.id, job.document);
        q.docBytesAdd.run(job.key_id, job.document.length);
      }
      completeIdempotent(job.key_id, record, job.created_at);
      return reserved;
    },
  );

  const jobFinish = db.transaction((f: Parameters<JobStore['finish']>[0]): boolean => {
    const row = q.jobFinish.get({
      id: f.id,
      owner: f.owner,
      status: f.status,
      result: f.result,
      error: f.error,
      charge: f.settlement.charge,
      document_outcome: f.document_outcome ?? null,
      at: f.at,
    }) as { key_id: string } | undefined;
    if (!row) return false;
    settle(row.key_id, f.settlement, f.at);
    enqueue(f.outbox);
    enqueueWriteback(f.writeback);
    if (f.verification) recordVerification(f.verification);
    return true;
  });

  const batchCreate = db.transaction(
    (b: Parameters<BatchStore['create']>[0], r: Reservation | null, record?: IdempotentRecord): SubmitOutcome => {
      const reserved = reserve(b.key_id, r, b.created_at);
      if (!reserved.ok) return reserved;
      const done = b.items.filter((i) => i.state === 'done').length;
      q.batchInsert.run({
        id: b.id,
        key_id: b.key_id,
        total: b.items.length,
        done,
        webhook_url: b.webhook_url,
        sheet_target: b.sheet_target ?? null,
        created_at: b.created_at,
      });
      for (const item of b.items) q.itemInsert.run({ ...item, batch_id: b.id });
      completeIdempotent(b.key_id, record, b.created_at);
      return reserved;
    },
  );

  const itemFinish = db.transaction((f: Parameters<BatchStore['finishItem']>[0]): boolean => {
    const owned = q.batchOwned.get(f.batch_id, f.owner) as { key_id: string } | undefined;
    if (!owned) return false;
    const changed = q.itemFinish.run({
      batch_id: f.batch_id,
      idx: f.idx,
      result: f.result,
      error: f.error,
      charge: f.settlement.charge,
    }).changes;
    if (changed === 0) return false;
    q.batchProgress.run({ id: f.batch_id, at: f.at });
    settle(owned.key_id, f.settlement, f.at);
    if (f.verification) recordVerification(f.verification);
    return true;
  });

  const batchComplete = db.transaction(
    (id: string, owner: string, outbox: NewOutbox | null, at: string, writeback: NewWriteback | null): boolean => {
      if (q.batchComplete.run({ id, owner, at }).changes === 0) return false;
      enqueue(outbox);
      enqueueWriteback(writeback);
      return true;
    },
  );

  // Lease statements run in immediate transactions so two processes can't claim the same row.
  const jobLease = db.transaction((p: { owner: string; now: string; until: string }) => q.jobLease.get(p) as { id: string } | undefined);
  const jobLeaseLane = db.transaction(
    (p: { owner: string; now: string; until: string; documents: number; key_id: string | null }) =>
      q.jobLeaseLane.get(p) as { id: string } | undefined,
  );
  const batchLease = db.transaction((p: { owner: string; now: string; until: string }) => q.batchLease.get(p) as Row | undefined);

  return {
    jobs: {
      async pendingCount(kind) {
        return (q.jobPending.get(kind) as { n: number }).n;
      },
      async documentBytes(keyId) {
        return (q.docBytesGet.get(keyId) as { bytes: number } | undefined)?.bytes ?? 0;
      },
      async create(job, r, record) {
        return jobCreate.immediate(job, r, record);
      },
      async get(id) {
        const r = q.jobGet.get(id) as Row | undefined;
        return r ? toJob(r) : null;
      },
      async document(id) {
        const r = q.docGet.get(id) as { content: Buffer } | undefined;
        return r?.content ?? null;
      },
      async lease(owner, now, until, lane) {
        const r = lane
          ? jobLeaseLane.immediate({ owner, now, until, documents: lane.documents ? 1 : 0, key_id: lane.keyId ?? null })
          : jobLease.immediate({ owner, now, until });
        return r ? toJob(q.jobGet.get(r.id) as Row) : null;
      },
      async documentQueue(now) {
        return q.documentQueue.all({ now }) as DocumentQueueEntry[];
      },
      async depth(now) {
        const none: QueueDepth = { queued: 0, running: 0, oldest_queued: null };
        const out: Record<JobKind, QueueDepth> = { verification: none, extraction: none };
        for (const { kind, ...d } of q.jobDepth.all({ now }) as (QueueDepth & { kind: JobKind })[]) out[kind] = d;
        return out;
      },
      async renew(id, owner, until) {
        return q.jobRenew.run(until, id, owner).changes > 0;
      },
      async finish(f) {
        return jobFinish.immediate(f);
      },
      async release(id, owner, retry) {
        q.jobRelease.run({ id, owner, retry });
      },
    },
    batches: {
      async create(b, r, record) {
        return batchCreate.immediate(b, r, record);
      },
      async get(id) {
        const r = q.batchGet.get(id) as Row | undefined;
        return r ? toBatch(r) : null;
      },
      async items(id) {
        return (q.itemsGet.all(id) as Row[]).map(toItem);
      },
      async lease(owner, now, until) {
        const r = batchLease.immediate({ owner, now, until });
        return r ? toBatch(r) : null;
      },
      async renew(id, owner, until) {
        return q.batchRenew.run(until, id, owner).changes > 0;
      },
      async finishItem(f) {
        return itemFinish.immediate(f);
      },
      async complete(id, owner, outbox, at, writeback) {
        return batchComplete.immediate(id, owner, outbox, at, writeback ?? null);
      },
      async release(id, owner, retry) {
        q.batchRelease.run({ id, owner, retry });
      },
      async depth(now) {
        return q.batchDepth.get({ now }) as QueueDepth;
      },
    },
  };
}
