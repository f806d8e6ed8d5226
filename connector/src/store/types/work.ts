/** Storage of durable work: async jobs and batches, leased by workers and finished once with their credit settlement. */

import type { NewVerification } from './history.js';
import type { IdempotentRecord } from './idempotency.js';
import type { NewOutbox } from './outbox.js';
import type { NewWriteback } from './sheets.js';

export type JobKind = 'verification' | 'extraction';
export type JobStatus = 'pending' | 'complete' | 'failed';

export interface JobRecord {
  id: string;
  key_id: string;
  kind: JobKind;
  status: JobStatus;
  /** The accepted request, as JSON text (validated before it was stored). */
  payload: string;
  /** JSON text of the result when complete. */
  result: string | null;
  /** JSON text of the error body when failed. */
  error: string | null;
  webhook_url: string | null;
  reserved: number;
  charged: number;
  attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** The worker (lease owner: process and instance) that finished the job; for operators tracing work across instances. */
  finished_by: string | null;
  /** Size of the stored document, when the job came with one. */
  document_bytes: number | null;
  /** JSON text: what extraction made of the document (async verification with a document). */
  document_outcome: string | null;
  sheet_target: string | null;
}

export interface NewJob {
  id: string;
  key_id: string;
  kind: JobKind;
  payload: string;
  webhook_url: string | null;
  created_at: string;
  document?: Buffer;
  /** JSON text of the TSheetTarget, when results go to a sheet. */
  sheet_target?: string | null;
}

/** Credits to reserve with a submission, in the same transaction as the insert. */
export interface Reservation {
  amount: number;
  period: string;
  ref: string;
}

export type SubmitOutcome = { ok: true } | { ok: false; balance: number };

/** How a finished unit of work settles its credits: keep `charge`, give back `refund` (charge + refund = reserved). */
export interface Settlement {
  charge: number;
  refund: number;
  ref: string;
}

export interface FinishJob {
  id: string;
  owner: string;
  status: 'complete' | 'failed';
  result: string | null;
  error: string | null;
  settlement: Settlement;
  outbox: NewOutbox | null;
  at: string;
  document_outcome?: string | null;
  /** Sheet write-back to queue with the result (same transaction). */
  writeback?: NewWriteback | null;
  /** The result's history entry (same transaction): a result is kept exactly when it is recorded. */
  verification?: NewVerification | null;
}

export interface LeaseLane {
  documents: boolean;
  keyId?: string;
}

export interface DocumentQueueEntry {
  key_id: string;
  mode: 'live' | 'test';
  /** Jobs whose lease is free or expired. */
  leasable: number;
  /** Jobs a live worker holds. */
  active: number;
  /** Every pending job of the key that carries a document (released ones waiting to be retried included). */
  pending: number;
  /** created_at of the oldest leasable job, or null. */
  oldest: string | null;
}

/** Pending work of one kind as an operator watches it (the metrics' queue gauges), read in one cheap query. */
export interface QueueDepth {
  /** Pending and held by no live lease: waiting for a worker, or for its retry time. */
  queued: number;
  /** Pending and held by a live lease. */
  running: number;
  /** created_at of the oldest queued one, or null. */
  oldest_queued: string | null;
}

export interface JobStore {
  /** Pending jobs of a kind, for back-pressure on uploads. */
  pendingCount(kind: JobKind): Promise<number>;
  /**
   * Bytes of documents the key's jobs hold in the store, pending or finished (counted as `create`
   * stores them; retention, when it removes documents, takes them off), for the per-key storage quota.
   */
  documentBytes(keyId: string): Promise<number>;
  /**
   * Inserts the job (and its document) and reserves credits in one transaction; refused when the balance can't cover it.
   * `record` completes the request's Idempotency-Key claim in that transaction, so the answer is kept exactly when the job is.
   */
  create(job: NewJob, reserve: Reservation | null, record?: IdempotentRecord): Promise<SubmitOutcome>;
  get(id: string): Promise<JobRecord | null>;
  document(id: string): Promise<Buffer | null>;
  /**
   * Claims the oldest pending job whose lease is free or expired, or null. With `lane`, only jobs
   * that carry a document (extractions, verifications with one) or only those that don't, and
   * optionally only one key's: verification never waits behind extraction (jobs/lanes.ts).
   */
  lease(owner: string, now: string, leaseUntil: string, lane?: LeaseLane): Promise<JobRecord | null>;
  /** Per key with pending jobs that carry a document: how many could be leased now, how many are leased, the oldest leasable. */
  documentQueue(now: string): Promise<DocumentQueueEntry[]>;
  /** Pending jobs by kind, queued and running, as of `now` (leases past `now` are not running). */
  depth(now: string): Promise<Record<JobKind, QueueDepth>>;
  renew(id: string, owner: string, leaseUntil: string): Promise<boolean>;
  /**
   * Result, status, credit settlement and webhook outbox row in one transaction, only if the job
   * is still pending and leased by `owner`: a job is finished once, whoever else took it over.
   */
  finish(f: FinishJob): Promise<boolean>;
  /** Gives a job back after a failed attempt; it is retried after `retryAt`. */
  release(id: string, owner: string, retryAt: string): Promise<void>;
}

export type BatchStatus = 'pending' | 'processing' | 'complete';

export interface BatchRecord {
  id: string;
  key_id: string;
  status: BatchStatus;
  total_count: number;
  completed_count: number;
  webhook_url: string | null;
  sheet_target: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface BatchItemRecord {
  batch_id: string;
  idx: number;
  policy_number: string | null;
  /** The item as submitted, JSON text. */
  input: string;
  state: 'pending' | 'done';
  result: string | null;
  error: string | null;
  reserved: number;
  charged: number;
}

export interface NewBatch {
  id: string;
  key_id: string;
  webhook_url: string | null;
  created_at: string;
  sheet_target?: string | null;
  /** Items refused at submission are stored done with their error and nothing reserved. */
  items: Omit<BatchItemRecord, 'batch_id' | 'charged'>[];
}

export interface FinishBatchItem {
  batch_id: string;
  idx: number;
  owner: string;
  result: string | null;
  error: string | null;
  settlement: Settlement;
  at: string;
  /** The item's history entry, when it has a result (same transaction). */
  verification?: NewVerification | null;
}

export interface BatchStore {
  /** Inserts the batch and its items and reserves credits in one transaction, with `record` as JobStore.create. */
  create(batch: NewBatch, reserve: Reservation | null, record?: IdempotentRecord): Promise<SubmitOutcome>;
  get(id: string): Promise<BatchRecord | null>;
  items(id: string): Promise<BatchItemRecord[]>;
  lease(owner: string, now: string, leaseUntil: string): Promise<BatchRecord | null>;
  renew(id: string, owner: string, leaseUntil: string): Promise<boolean>;
  /** One item's result and credit settlement, once; the batch moves to processing. */
  finishItem(f: FinishBatchItem): Promise<boolean>;
  /** Marks the batch complete (every item done) with its outbox row, once. */
  complete(id: string, owner: string, outbox: NewOutbox | null, at: string, writeback?: NewWriteback | null): Promise<boolean>;
  release(id: string, owner: string, retryAt: string): Promise<void>;
  /** Batches not complete, queued and running, as JobStore.depth. */
  depth(now: string): Promise<QueueDepth>;
}
