/**
 * Storage of retention and erasure: removing uploaded documents, then whole jobs, batches and watch runs,
 * once their work has been finished long enough, and erasing one job at its key's request. Each method
 * works in transactions of at most `limit` rows and is safe to run from several instances at once:
 * what one removed the other finds gone, and a document's bytes leave its key's count exactly once.
 */

/** What is kept of a job or batch whose retention ran out: enough to tell its key it expired, nothing of its content. */
export interface ExpiredRecord {
  id: string;
  key_id: string;
  kind: 'job' | 'batch';
  /** When its work finished. */
  finished_at: string;
  /** When it was removed. */
  expired_at: string;
}

/** The outcome of erasing one job for a key. */
export type JobErasure =
  /** Removed; `document_bytes` the bytes of the document that went with it (0: none was held). */
  | { outcome: 'erased'; document_bytes: number }
  /** Still pending: nothing was touched. */
  | { outcome: 'pending' }
  /** No such job, or another key's: nothing was touched. */
  | { outcome: 'not_found' };

export interface RetentionStore {
  /**
   * Removes the documents of jobs finished (complete or failed) before `finishedBefore`, at most
   * `limit`, taking their bytes off each key's document count in the same transaction.
   */
  purgeDocuments(finishedBefore: string, limit: number): Promise<{ documents: number; bytes: number }>;
  /**
   * Removes jobs finished before `finishedBefore`, at most `limit`: the row and its result, its
   * document (bytes off the count), its webhook deliveries with their attempts, its sheet write-backs;
   * leaves an ExpiredRecord stamped `at`. Returns how many went.
   */
  expireJobs(finishedBefore: string, at: string, limit: number): Promise<number>;
  /** As expireJobs, for batches completed before `finishedBefore` (the batch, its items, deliveries and write-backs). */
  expireBatches(finishedBefore: string, at: string, limit: number): Promise<number>;
  /** Removes Idempotency-Key claims made before `createdBefore` (their stored answers hold results), at most `limit`. */
  purgeIdempotency(createdBefore: string, limit: number): Promise<number>;
  /** Removes result history entries recorded before `createdBefore`, at most `limit`. */
  purgeVerifications(createdBefore: string, limit: number): Promise<number>;
  /**
   * Removes watch runs finished before `finishedBefore`, at most `limit`, with their changes, e-mail digests,
   * webhook deliveries (and attempts) and sheet write-backs. Each watch's latest run stays, and so does where
   * its policies stood at their last check (watch_items): what the next run compares with. Returns how many went.
   */
  purgeWatchRuns(finishedBefore: string, limit: number): Promise<number>;
  /** Removes ExpiredRecords made before `expiredBefore`, at most `limit`: from then on the id is unknown. */
  purgeExpired(expiredBefore: string, limit: number): Promise<number>;
  /** The ExpiredRecord of a job or batch id, or null. */
  expired(id: string): Promise<ExpiredRecord | null>;
  /**
   * Erases one finished job of `keyId` now, as expireJobs does but leaving no record, and its result's
   * history entry with it; a job that had already expired loses its ExpiredRecord (answered erased, 0 bytes). Another key's job, or an
   * unknown id: not_found; a pending job: pending; either way nothing is touched.
   */
  eraseJob(id: string, keyId: string): Promise<JobErasure>;
}
