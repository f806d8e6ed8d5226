/**
 * Jobs and batches in PostgreSQL. Work is claimed with FOR UPDATE SKIP LOCKED, so instances
 * polling at once each take a different row without waiting on each other; every state change
 * that matters to a customer (result, credit settlement, outbox row, write-back) happens in one
 * transaction guarded by the current state and lease owner, so work is finished once.
 */
import type { BatchStore, JobKind, JobStore, QueueDepth, Reservation, SubmitOutcome } from '../types/work.js';
import { currentBalance, debit, refund } from './credit-ops.js';
import { all, changed, one, tx, type Db, type Tx } from './db.js';
import { insertVerification } from './history.js';
import { completeIdempotent } from './idempotency.js';
import { enqueueDelivery } from './outbox.js';
import { toBatch, toItem, toJob } from './rows.js';
import { enqueueWriteback } from './sheets.js';

const JOB_COLS = 'jobs.*, (SELECT octet_length(content) FROM job_documents d WHERE d.job_id = jobs.id) AS document_bytes';

async function reserve(c: Tx, keyId: string, r: Reservation | null, at: string): Promise<SubmitOutcome> {
  if (!r || r.amount === 0) return { ok: true };
  const balance = await debit(c, keyId, r.amount, r.period, 'reserve', r.ref, at);
  return balance === null ? { ok: false, balance: await currentBalance(c, keyId) } : { ok: true };
}

/** Queue depth of pending rows (store/types/work.ts QueueDepth): held by a live lease as of $1, or not. */
const DEPTH_COLUMNS = `count(*) FILTER (WHERE lease_owner IS NULL OR lease_until IS NULL OR lease_until < $1) AS queued,
  count(*) FILTER (WHERE lease_owner IS NOT NULL AND lease_until >= $1) AS running,
  min(created_at) FILTER (WHERE lease_owner IS NULL OR lease_until IS NULL OR lease_until < $1) AS oldest_queued`;
type DepthRow = { queued: string; running: string; oldest_queued: string | null };
const toDepth = (r: DepthRow): QueueDepth => ({ queued: Number(r.queued), running: Number(r.running), oldest_queued: r.oldest_queued });

/** Whether a job carries a document (an extraction, or a verification sent with one). */
const HAS_DOCUMENT = "jobs.kind = 'extraction' OR EXISTS (SELECT 1 FROM job_documents d WHERE d.job_id = jobs.id)";

export function workStores(db: Db): { jobs: JobStore; batches: BatchStore } {
  return {
    jobs: {
      async pendingCount(kind) {
        return (await one<{ n: number }>(db, "SELECT count(*)::int AS n FROM jobs WHERE status = 'pending' AND kind = $1", [kind]))!.n;
      },
      async documentBytes(keyId) {
        return (await one<{ bytes: number }>(db, 'SELECT bytes FROM key_document_bytes WHERE key_id = $1', [keyId]))?.bytes ?? 0;
      },
      async create(job, r, record) {
        return tx(db, async (c) => {
          const reserved = await reserve(c, job.key_id, r, job.created_at);
          if (!reserved.ok) return reserved;
          await c.query(
            `INSERT INTO jobs (id, key_id, kind, payload, webhook_url, sheet_target, reserved, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)`,
            [job.id, job.key_id, job.kind, job.payload, job.webhook_url, job.sheet_target ?? null, r?.amount ?? 0, job.created_at],
          );
          if (job.document) {
            await c.query('INSERT INTO job_documents (job_id, content) VALUES ($1, $2)', [job.id, job.document]);
            await c.query(
              'INSERT INTO key_document_bytes (key_id, bytes) VALUES ($1, $2) ON CONFLICT (key_id) DO UPDATE SET bytes = key_document_bytes.bytes + excluded.bytes',
              [job.key_id, job.document.length],
            );
          }
          await completeIdempotent(c, job.key_id, record, job.created_at);
          return reserved;
        });
      },
      async get(id) {
        const r = await one(db, `SELECT ${JOB_COLS} FROM jobs WHERE id = $1`, [id]);
        return r ? toJob(r) : null;
      },
      async document(id) {
        return (await one<{ content: Buffer }>(db, 'SELECT content FROM job_documents WHERE job_id = $1', [id]))?.content ?? null;
      },
      async lease(owner, now, until, lane) {
        // The lanes (jobs/lanes.ts): only jobs with a document, or only those without; perhaps one key's.
        const filter = lane ? `AND (${HAS_DOCUMENT}) = $4 AND ($5::text IS NULL OR key_id = $5)` : '';
        const r = await one(
          db,
          `UPDATE jobs SET lease_owner = $1, lease_until = $3, attempts = attempts + 1, updated_at = $2
           WHERE id = (SELECT id FROM jobs WHERE status = 'pending' AND (lease_until IS NULL OR lease_until < $2) ${filter}
                       ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING ${JOB_COLS}`,
          lane ? [owner, now, until, lane.documents, lane.keyId ?? null] : [owner, now, until],
        );
        return r ? toJob(r) : null;
      },
      async documentQueue(now) {
        const rows = await all<{
          key_id: string;
          mode: 'live' | 'test';
          leasable: string;
          active: string;
          pending: string;
          oldest: string | null;
        }>(
          db,
          `SELECT j.key_id, k.mode,
             count(*) FILTER (WHERE j.lease_until IS NULL OR j.lease_until < $1) AS leasable,
             count(*) FILTER (WHERE j.lease_owner IS NOT NULL AND j.lease_until >= $1) AS active,
             count(*) AS pending,
             min(j.created_at) FILTER (WHERE j.lease_until IS NULL OR j.lease_until < $1) AS oldest
           FROM jobs j JOIN api_keys k ON k.id = j.key_id
           WHERE j.status = 'pending' AND (${HAS_DOCUMENT.replaceAll('jobs.', 'j.')})
           GROUP BY j.key_id, k.mode`,
          [now],
        );
        return rows.map((r) => ({
          key_id: r.key_id,
          mode: r.mode,
          leasable: Number(r.leasable),
          active: Number(r.active),
          pending: Number(r.pending),
          oldest: r.oldest,
        }));
      },
      async depth(now) {
        const none: QueueDepth = { queued: 0, running: 0, oldest_queued: null };
        const out: Record<JobKind, QueueDepth> = { verification: none, extraction: none };
        const rows = await all<DepthRow & { kind: JobKind }>(
          db,
          `SELECT kind, ${DEPTH_COLUMNS} FROM jobs WHERE status = 'pending' GROUP BY kind`,
          [now],
        );
        for (const r of rows) out[r.kind] = toDepth(r);
        return out;
      },
      async renew(id, owner, until) {
        return (
          (await changed(db, "UPDATE jobs SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status = 'pending'", [
            until,
            id,
            owner,
          ])) > 0
        );
      },
      async finish(f) {
        return tx(db, async (c) => {
          const row = await one<{ key_id: string }>(
            c,
            `UPDATE jobs SET status = $3, result = $4, error = $5, charged = $6, document_outcome = $7, lease_owner = NULL, lease_until = NULL,
               finished_by = $2, updated_at = $8, completed_at = $8 WHERE id = $1 AND status = 'pending' AND lease_owner = $2 RETURNING key_id`,
            [f.id, f.owner, f.status, f.result, f.error, f.settlement.charge, f.document_outcome ?? null, f.at],
          );
          if (!row) return false;
          await refund(c, row.key_id, f.settlement.refund, f.settlement.ref, f.at);
          await enqueueDelivery(c, f.outbox);
          await enqueueWriteback(c, f.writeback);
          if (f.verification) await insertVerification(c, f.verification);
          return true;
        });
      },
      async release(id, owner, retry) {
        await db.query(
          "UPDATE jobs SET lease_owner = NULL, lease_until = $3, updated_at = $3 WHERE id = $1 AND lease_owner = $2 AND status = 'pending'",
          [id, owner, retry],
        );
      },
    },
    batches: {
      async create(b, r, record) {
        return tx(db, async (c) => {
          const reserved = await reserve(c, b.key_id, r, b.created_at);
          if (!reserved.ok) return reserved;
          const done = b.items.filter((i) => i.state === 'done').length;
          await c.query(
            `INSERT INTO batches (id, key_id, total_count, completed_count, webhook_url, sheet_target, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
            [b.id, b.key_id, b.items.length, done, b.webhook_url, b.sheet_target ?? null, b.created_at],
          );
          // One statement for up to 100 items: a round trip per item would dominate the submit.
          await c.query(
            `INSERT INTO batch_items (batch_id, idx, policy_number, input, state, result, error, reserved)
             SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::int[])`,
            [
              b.id,
              b.items.map((i) => i.idx),
              b.items.map((i) => i.policy_number),
              b.items.map((i) => i.input),
              b.items.map((i) => i.state),
              b.items.map((i) => i.result),
              b.items.map((i) => i.error),
              b.items.map((i) => i.reserved),
            ],
          );
          await completeIdempotent(c, b.key_id, record, b.created_at);
          return reserved;
        });
      },
      async get(id) {
        const r = await one(db, 'SELECT * FROM batches WHERE id = $1', [id]);
        return r ? toBatch(r) : null;
      },
      async items(id) {
        return (await all(db, 'SELECT * FROM batch_items WHERE batch_id = $1 ORDER BY idx', [id])).map(toItem);
      },
      async lease(owner, now, until) {
        const r = await one(
          db,
          `UPDATE batches SET lease_owner = $1, lease_until = $3, attempts = attempts + 1, updated_at = $2
           WHERE id = (SELECT id FROM batches WHERE status <> 'complete' AND (lease_until IS NULL OR lease_until < $2)
                       ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING *`,
          [owner, now, until],
        );
        return r ? toBatch(r) : null;
      },
      async renew(id, owner, until) {
        return (
          (await changed(db, "UPDATE batches SET lease_until = $1 WHERE id = $2 AND lease_owner = $3 AND status <> 'complete'", [
            until,
            id,
            owner,
          ])) > 0
        );
      },
      async finishItem(f) {
        return tx(db, async (c) => {
          // Locks the batch row: a takeover by another instance (new lease owner) waits for this item, or this item sees it and stops.
          const owned = await one<{ key_id: string }>(
            c,
            "SELECT key_id FROM batches WHERE id = $1 AND lease_owner = $2 AND status <> 'complete' FOR UPDATE",
            [f.batch_id, f.owner],
          );
          if (!owned) return false;
          const n = await changed(
            c,
            "UPDATE batch_items SET state = 'done', result = $3, error = $4, charged = $5 WHERE batch_id = $1 AND idx = $2 AND state = 'pending'",
            [f.batch_id, f.idx, f.result, f.error, f.settlement.charge],
          );
          if (n === 0) return false;
          await c.query("UPDATE batches SET completed_count = completed_count + 1, status = 'processing', updated_at = $2 WHERE id = $1", [
            f.batch_id,
            f.at,
          ]);
          await refund(c, owned.key_id, f.settlement.refund, f.settlement.ref, f.at);
          if (f.verification) await insertVerification(c, f.verification);
          return true;
        });
      },
      async complete(id, owner, outbox, at, writeback) {
        return tx(db, async (c) => {
          const n = await changed(
            c,
            `UPDATE batches SET status = 'complete', lease_owner = NULL, lease_until = NULL, updated_at = $3, completed_at = $3
             WHERE id = $1 AND lease_owner = $2 AND status <> 'complete'
               AND NOT EXISTS (SELECT 1 FROM batch_items WHERE batch_id = $1 AND state = 'pending')`,
            [id, owner, at],
          );
          if (n === 0) return false;
          await enqueueDelivery(c, outbox);
          await enqueueWriteback(c, writeback);
          return true;
        });
      },
      async release(id, owner, retry) {
        await db.query(
          "UPDATE batches SET lease_owner = NULL, lease_until = $3 WHERE id = $1 AND lease_owner = $2 AND status <> 'complete'",
          [id, owner, retry],
        );
      },
      async depth(now) {
        return toDepth((await one<DepthRow>(db, `SELECT ${DEPTH_COLUMNS} FROM batches WHERE status <> 'complete'`, [now]))!);
      },
    },
  };
}
