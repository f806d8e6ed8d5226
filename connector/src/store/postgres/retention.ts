/**
 * Retention and erasure in PostgreSQL. Due rows are claimed with FOR UPDATE SKIP LOCKED, so instances
 * sweeping at once each take different rows; a document's bytes leave its key's count in the
 * transaction that deletes it, and a row another transaction deleted first returns nothing, so the
 * bytes are taken off once.
 */
import type { ExpiredRecord, JobErasure, RetentionStore } from '../types/retention.js';
import { changed, one, tx, type Db, type Tx } from './db.js';
import { dropRuns } from './watches.js';

interface Due {
  id: string;
  key_id: string;
  completed_at: string;
}

/** Removes the jobs' documents and takes their bytes off each key's count; the bytes removed. */
async function removeDocuments(c: Tx, jobIds: string[]): Promise<number> {
  if (!jobIds.length) return 0;
  const r = await one<{ bytes: number }>(
    c,
    `WITH gone AS (
       DELETE FROM job_documents d USING jobs j WHERE d.job_id = j.id AND d.job_id = ANY($1)
       RETURNING j.key_id, octet_length(d.content)::bigint AS bytes
     ), per_key AS (
       SELECT key_id, sum(bytes)::bigint AS bytes FROM gone GROUP BY key_id
     ), counted AS (
       -- Never below 0: a document removed by hand must not leave a key more room than its quota.
       UPDATE key_document_bytes k SET bytes = greatest(0, k.bytes - p.bytes) FROM per_key p WHERE k.key_id = p.key_id
     )
     SELECT coalesce(sum(bytes), 0)::bigint AS bytes FROM per_key`,
    [jobIds],
  );
  return r?.bytes ?? 0;
}

/** Deliveries (with their attempts) and write-backs hold a copy of the subjects' results. */
async function removeCopies(c: Tx, subjectIds: string[]): Promise<void> {
  // Locked first: an attempt being recorded (outbox.ts) then waits, and finds its delivery gone.
  await c.query('SELECT id FROM webhook_outbox WHERE subject_id = ANY($1) FOR UPDATE', [subjectIds]);
  await c.query('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_outbox WHERE subject_id = ANY($1))', [
    subjectIds,
  ]);
  await c.query('DELETE FROM webhook_outbox WHERE subject_id = ANY($1)', [subjectIds]);
  await c.query('DELETE FROM sheet_writebacks WHERE subject_id = ANY($1)', [subjectIds]);
}

async function removeJobs(c: Tx, ids: string[]): Promise<number> {
  const bytes = await removeDocuments(c, ids);
  await removeCopies(c, ids);
  await c.query('DELETE FROM jobs WHERE id = ANY($1)', [ids]);
  return bytes;
}

async function remember(c: Tx, due: Due[], kind: 'job' | 'batch', at: string): Promise<void> {
  await c.query(
    `INSERT INTO expired_work (id, key_id, kind, finished_at, expired_at)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[], $5::timestamptz[]) ON CONFLICT (id) DO NOTHING`,
    [due.map((d) => d.id), due.map((d) => d.key_id), due.map(() => kind), due.map((d) => d.completed_at), due.map(() => at)],
  );
}

export function retentionStore(db: Db): RetentionStore {
  return {
    async purgeDocuments(before, limit) {
      return tx(db, async (c) => {
        const due = (
          await c.query<{ job_id: string }>(
            `SELECT d.job_id FROM job_documents d JOIN jobs j ON j.id = d.job_id
             WHERE j.status <> 'pending' AND j.completed_at < $1 LIMIT $2 FOR UPDATE OF d SKIP LOCKED`,
            [before, limit],
          )
        ).rows.map((r) => r.job_id);
        return { documents: due.length, bytes: await removeDocuments(c, due) };
      });
    },
    async expireJobs(before, at, limit) {
      return tx(db, async (c) => {
        const due = (
          await c.query<Due>(
            `SELECT id, key_id, completed_at FROM jobs WHERE status <> 'pending' AND completed_at < $1
             ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
            [before, limit],
          )
        ).rows;
        if (!due.length) return 0;
        await removeJobs(
          c,
          due.map((d) => d.id),
        );
        await remember(c, due, 'job', at);
        return due.length;
      });
    },
    async expireBatches(before, at, limit) {
      return tx(db, async (c) => {
        const due = (
          await c.query<Due>(
            `SELECT id, key_id, completed_at FROM batches WHERE status = 'complete' AND completed_at < $1
             ORDER BY completed_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
            [before, limit],
          )
        ).rows;
        if (!due.length) return 0;
        const ids = due.map((d) => d.id);
        await removeCopies(c, ids);
        await c.query('DELETE FROM batch_items WHERE batch_id = ANY($1)', [ids]);
        await c.query('DELETE FROM batches WHERE id = ANY($1)', [ids]);
        await remember(c, due, 'batch', at);
        return due.length;
      });
    },
    async purgeIdempotency(before, limit) {
      return changed(
        db,
        `DELETE FROM idempotency WHERE (key_id, idem_key) IN (
           SELECT key_id, idem_key FROM idempotency WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
        [before, limit],
      );
    },
    async purgeVerifications(before, limit) {
      return changed(
        db,
        'DELETE FROM verifications WHERE id IN (SELECT id FROM verifications WHERE created_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
        [before, limit],
      );
    },
    async purgeWatchRuns(before, limit) {
      return tx(db, async (c) => {
        // Closed runs, each but its watch's latest (the order of WatchStore.lastRun); a watch has at most 30 (WATCH_RUNS_KEPT).
        const due = (
          await c.query<{ id: string }>(
            `SELECT r.id FROM watch_runs r WHERE r.status <> 'running' AND r.finished_at < $1
               AND r.id <> (SELECT l.id FROM watch_runs l WHERE l.watch_id = r.watch_id ORDER BY l.started_at DESC, l.id DESC LIMIT 1)
             ORDER BY r.finished_at LIMIT $2 FOR UPDATE OF r SKIP LOCKED`,
            [before, limit],
          )
        ).rows.map((r) => r.id);
        await dropRuns(c, due);
        return due.length;
      });
    },
    async purgeExpired(before, limit) {
      return changed(
        db,
        'DELETE FROM expired_work WHERE id IN (SELECT id FROM expired_work WHERE expired_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)',
        [before, limit],
      );
    },
    async expired(id) {
      return one<ExpiredRecord>(db, 'SELECT id, key_id, kind, finished_at, expired_at FROM expired_work WHERE id = $1', [id]);
    },
    async eraseJob(id, keyId) {
      return tx(db, async (c): Promise<JobErasure> => {
        // Locked: a concurrent erasure or expiry of the same job waits, then finds it gone.
        const job = await one<{ key_id: string; status: string }>(c, 'SELECT key_id, status FROM jobs WHERE id = $1 FOR UPDATE', [id]);
        const eraseHistory = () =>
          c.query("DELETE FROM verifications WHERE source_id = $1 AND source = 'async' AND key_id = $2", [id, keyId]);
        if (!job) {
          const forgotten = await changed(c, 'DELETE FROM expired_work WHERE id = $1 AND key_id = $2', [id, keyId]);
          if (!forgotten) return { outcome: 'not_found' };
          await eraseHistory();
          return { outcome: 'erased', document_bytes: 0 };
        }
        if (job.key_id !== keyId) return { outcome: 'not_found' };
        if (job.status === 'pending') return { outcome: 'pending' };
        await eraseHistory();
        return { outcome: 'erased', document_bytes: await removeJobs(c, [id]) };
      });
    },
  };
}
