/**
 * Retention and erasure in SQLite. Each chunk is one immediate transaction: a document and its bytes
 * on the key's count go together, and a job, batch or watch run goes with everything that holds its content.
 */
import type { ExpiredRecord, JobErasure, RetentionStore } from '../types/retention.js';
import type { Db } from './db.js';
import { runDropper } from './watches.js';

interface Due {
  id: string;
  key_id: string;
  completed_at: string;
}

export function retentionStore(db: Db): RetentionStore {
  const q = {
    dueDocuments: db.prepare(`SELECT d.job_id AS id, j.key_id FROM job_documents d JOIN jobs j ON j.id = d.job_id
      WHERE j.status != 'pending' AND j.completed_at < ? LIMIT ?`),
    documentSize: db.prepare('SELECT length(content) AS bytes FROM job_documents WHERE job_id = ?'),
    documentDelete: db.prepare('DELETE FROM job_documents WHERE job_id = ?'),
    // Never below 0: a document removed by hand must not leave a key more room than its quota.
    bytesTakeOff: db.prepare('UPDATE key_document_bytes SET bytes = max(0, bytes - ?) WHERE key_id = ?'),
    attemptsDelete: db.prepare('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_outbox WHERE subject_id = ?)'),
    deliveriesDelete: db.prepare('DELETE FROM webhook_outbox WHERE subject_id = ?'),
    writebacksDelete: db.prepare('DELETE FROM sheet_writebacks WHERE subject_id = ?'),
    jobGet: db.prepare('SELECT key_id, status FROM jobs WHERE id = ?'),
    jobDelete: db.prepare('DELETE FROM jobs WHERE id = ?'),
    dueJobs: db.prepare(
      "SELECT id, key_id, completed_at FROM jobs WHERE status != 'pending' AND completed_at < ? ORDER BY completed_at LIMIT ?",
    ),
    dueBatches: db.prepare(
      "SELECT id, key_id, completed_at FROM batches WHERE status = 'complete' AND completed_at < ? ORDER BY completed_at LIMIT ?",
    ),
    itemsDelete: db.prepare('DELETE FROM batch_items WHERE batch_id = ?'),
    batchDelete: db.prepare('DELETE FROM batches WHERE id = ?'),
    expiredInsert: db.prepare('INSERT OR IGNORE INTO expired_work (id, key_id, kind, finished_at, expired_at) VALUES (?, ?, ?, ?, ?)'),
    expiredGet: db.prepare('SELECT * FROM expired_work WHERE id = ?'),
    expiredDelete: db.prepare('DELETE FROM expired_work WHERE id = ? AND key_id = ?'),
    expiredPurge: db.prepare('DELETE FROM expired_work WHERE id IN (SELECT id FROM expired_work WHERE expired_at < ? LIMIT ?)'),
    // Key by key through each key's time index (CROSS JOIN keeps api_keys the outer loop): no index on age alone (migration 17).
    historyPurge: db.prepare(`DELETE FROM verifications WHERE rowid IN (
      SELECT v.rowid FROM api_keys k CROSS JOIN verifications v ON v.key_id = k.id AND v.created_at < ? LIMIT ?)`),
    historyErase: db.prepare("DELETE FROM verifications WHERE source_id = ? AND source = 'async' AND key_id = ?"),
    // Closed runs, each but its watch's latest (the order of WatchStore.lastRun); a watch has at most 30 (WATCH_RUNS_KEPT).
    dueWatchRuns: db.prepare(`SELECT r.id FROM watch_runs r WHERE r.status != 'running' AND r.finished_at < ?
        AND r.id != (SELECT l.id FROM watch_runs l WHERE l.watch_id = r.watch_id ORDER BY l.started_at DESC, l.id DESC LIMIT 1)
      ORDER BY r.finished_at LIMIT ?`),
    idempotencyPurge: db.prepare('DELETE FROM idempotency WHERE rowid IN (SELECT rowid FROM idempotency WHERE created_at < ? LIMIT ?)'),
  };

  /** Removes the job's document and takes its bytes off the key's count; the bytes removed (0: none). */
  function removeDocument(jobId: string, keyId: string): number {
    const doc = q.documentSize.get(jobId) as { bytes: number } | undefined;
    if (!doc) return 0;
    q.documentDelete.run(jobId);
    q.bytesTakeOff.run(doc.bytes, keyId);
    return doc.bytes;
  }

  /** Deliveries (with their attempts) and write-backs hold a copy of the subject's result. */
  function removeCopies(subjectId: string): void {
    q.attemptsDelete.run(subjectId);
    q.deliveriesDelete.run(subjectId);
    q.writebacksDelete.run(subjectId);
  }

  function removeJob(id: string, keyId: string): number {
    const bytes = removeDocument(id, keyId);
    removeCopies(id);
    q.jobDelete.run(id);
    return bytes;
  }

  const purgeDocuments = db.transaction((before: string, limit: number) => {
    const due = q.dueDocuments.all(before, limit) as { id: string; key_id: string }[];
    let bytes = 0;
    for (const d of due) bytes += removeDocument(d.id, d.key_id);
    return { documents: due.length, bytes };
  });

  const expireJobs = db.transaction((before: string, at: string, limit: number) => {
    const due = q.dueJobs.all(before, limit) as Due[];
    for (const j of due) {
      removeJob(j.id, j.key_id);
      q.expiredInsert.run(j.id, j.key_id, 'job', j.completed_at, at);
    }
    return due.length;
  });

  const expireBatches = db.transaction((before: string, at: string, limit: number) => {
    const due = q.dueBatches.all(before, limit) as Due[];
    for (const b of due) {
      removeCopies(b.id);
      q.itemsDelete.run(b.id);
      q.batchDelete.run(b.id);
      q.expiredInsert.run(b.id, b.key_id, 'batch', b.completed_at, at);
    }
    return due.length;
  });

  const dropRuns = runDropper(db);
  const purgeWatchRuns = db.transaction((before: string, limit: number) => {
    const due = (q.dueWatchRuns.all(before, limit) as { id: string }[]).map((r) => r.id);
    dropRuns(due);
    return due.length;
  });

  const eraseJob = db.transaction((id: string, keyId: string): JobErasure => {
    const job = q.jobGet.get(id) as { key_id: string; status: string } | undefined;
    if (!job) {
      if (q.expiredDelete.run(id, keyId).changes === 0) return { outcome: 'not_found' };
      q.historyErase.run(id, keyId);
      return { outcome: 'erased', document_bytes: 0 };
    }
    if (job.key_id !== keyId) return { outcome: 'not_found' };
    if (job.status === 'pending') return { outcome: 'pending' };
    q.historyErase.run(id, keyId);
    return { outcome: 'erased', document_bytes: removeJob(id, keyId) };
  });

  return {
    async purgeDocuments(before, limit) {
      return purgeDocuments.immediate(before, limit);
    },
    async expireJobs(before, at, limit) {
      return expireJobs.immediate(before, at, limit);
    },
    async expireBatches(before, at, limit) {
      return expireBatches.immediate(before, at, limit);
    },
    async purgeIdempotency(before, limit) {
      return q.idempotencyPurge.run(before, limit).changes;
    },
    async purgeVerifications(before, limit) {
      return q.historyPurge.run(before, limit).changes;
    },
    async purgeWatchRuns(before, limit) {
      return purgeWatchRuns.immediate(before, limit);
    },
    async purgeExpired(before, limit) {
      return q.expiredPurge.run(before, limit).changes;
    },
    async expired(id) {
      return (q.expiredGet.get(id) as ExpiredRecord | undefined) ?? null;
    },
    async eraseJob(id, keyId) {
      return eraseJob.immediate(id, keyId);
    },
  };
}
