/**
 * Storage of watches (docs/monitoring.md): a key's policies, leased by a runner that re-verifies them in
 * chunks. Every step that matters is one transaction guarded by the watch's lease and its open run: a
 * chunk's results with their credit settlement and changes, a run's close with its deliveries (webhook
 * event, e-mail, sheet write-backs). A process killed mid-run leaves the run open; whoever leases the
 * watch next carries it on from the first policy not yet committed, so nothing is lost or reported twice.
 */

import type { IdempotentRecord } from './idempotency.js';
import type { NewOutbox } from './outbox.js';
import type { KeyMode } from './keys.js';
import type { NewWriteback } from './sheets.js';
import type { Reservation, SubmitOutcome } from './work.js';

export type WatchCadence = 'daily' | 'weekly';
export type WatchRunTrigger = 'schedule' | 'register_change';

export interface WatchRecord {
  id: string;
  key_id: string;
  cadence: WatchCadence;
  expiry_window_days: number;
  webhook_url: string | null;
  /** The address e-mail digests go to (the key's, when the watch was made); null: no e-mail. */
  email_to: string | null;
  /** JSON text of the TSheetTarget; null: no sheet. */
  sheet_target: string | null;
  notify_unchanged: boolean;
  policy_count: number;
  /** When the cadence runs next. */
  next_run_at: string;
  /** Set when an import made some of its policies due for a re-check at once (recheck); null otherwise. */
  recheck_at: string | null;
  paused_at: string | null;
  /** The run under way (open), or null. */
  run_id: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
}

export interface NewWatchItem {
  idx: number;
  policy_number: string;
  /** JSON text: the checked policy, and end_date when one was given. */
  input: string;
}

export type NewWatch = Omit<WatchRecord, 'recheck_at' | 'paused_at' | 'run_id' | 'lease_owner' | 'lease_until' | 'policy_count'> & {
  items: NewWatchItem[];
};

export interface WatchItemRecord {
  watch_id: string;
  idx: number;
  policy_number: string;
  input: string;
  /** JSON text of where the policy stood at its last check (watches/compare.ts ItemState); null before the first. */
  last_state: string | null;
  /** What the reference data said of its insurer at that check (watches/probe.ts), to tell when an import changed it. */
  probe: string | null;
  /** The open run that still has to check it, or null. */
  run_id: string | null;
  /** Credits reserved for it in that run (0 or 1). */
  reserved: number;
  /** An import changed its insurer since its last check: the next run checks it, at once. */
  recheck: boolean;
}

export interface WatchRunRecord {
  id: string;
  watch_id: string;
  trigger: WatchRunTrigger;
  status: 'running' | 'complete' | 'stopped';
  stop_reason: string | null;
  started_at: string;
  finished_at: string | null;
  total: number;
  checked: number;
  changed: number;
  credits: number;
}

export interface WatchChangeRecord {
  run_id: string;
  idx: number;
  policy_number: string;
  /** JSON text of the ItemState before and after. */
  before: string;
  after: string;
  /** JSON text of the reasons (shared/watches.ts WATCH_CHANGE_REASONS). */
  reasons: string;
  why: string;
}

/** One checked policy of a chunk, with what it cost. */
export interface WatchItemOutcome {
  idx: number;
  /** Null: the policy could not be checked this time and keeps its last state and probe. */
  state: string | null;
  probe: string | null;
  /** Credits kept of its reservation; the rest is given back. */
  charge: number;
  change: Omit<WatchChangeRecord, 'run_id' | 'idx' | 'policy_number'> | null;
}

export interface WatchChunk {
  watch_id: string;
  run_id: string;
  owner: string;
  key_id: string;
  items: WatchItemOutcome[];
  /** The ledger reference of the run's reservations and refunds. */
  ref: string;
  at: string;
}

/** An e-mail digest waiting to be sent (watches/mail-sender.ts). */
export interface WatchMailRecord {
  id: string;
  key_id: string;
  watch_id: string;
  run_id: string;
  to_address: string;
  subject: string;
  text: string;
  html: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  next_attempt_at: string;
  last_error: string | null;
  created_at: string;
  sent_at: string | null;
}

export type NewWatchMail = Pick<
  WatchMailRecord,
  'id' | 'key_id' | 'watch_id' | 'run_id' | 'to_address' | 'subject' | 'text' | 'html' | 'created_at'
>;

export interface CloseWatchRun {
  watch_id: string;
  run_id: string;
  owner: string;
  key_id: string;
  status: 'complete' | 'stopped';
  stop_reason: string | null;
  /** The cadence's next run, for a run the cadence started; null leaves it. */
  next_run_at: string | null;
  /** Deliveries of the run's changes, enqueued in the closing transaction. */
  outbox: NewOutbox | null;
  mail: NewWatchMail | null;
  writebacks: NewWriteback[];
  /** The ledger reference of the run, for giving back the reservations of policies it did not check. */
  ref: string;
  at: string;
}

/** A watched policy with what a re-check scan needs (watches/register-rechecks.ts). */
export interface WatchProbeItem {
  watch_id: string;
  idx: number;
  mode: KeyMode;
  input: string;
  last_state: string;
  probe: string | null;
}

/** How many of a watch's latest runs the store keeps (with their changes and deliveries): closeRun drops older ones. */
export const WATCH_RUNS_KEPT = 30;

export interface WatchSnapshot {
  watch: WatchRecord;
  lastRun: WatchRunRecord | null;
  changes: WatchChangeRecord[];
  rechecks: number;
}

export interface WatchStore {
  /** Inserts the watch and its policies in one transaction, with `record` as JobStore.create. */
  create(w: NewWatch, record?: IdempotentRecord): Promise<void>;
  get(id: string): Promise<WatchRecord | null>;
  /**
   * The watch with its latest run, that run's first `changesShown` changes and its pending re-checks, read at
   * one moment: a run that closes meanwhile shows in all of it or in none (its next run with its status).
   */
  snapshot(id: string, changesShown: number): Promise<WatchSnapshot | null>;
  /** The key's watches, by created_at then id. */
  list(keyId: string): Promise<WatchRecord[]>;
  /** Pauses the key's watch; false when it has no such watch. */
  pause(id: string, keyId: string, at: string): Promise<boolean>;
  /** Un-pauses the key's watch (a run its cadence missed is then due at once); false when it has no such watch. */
  resume(id: string, keyId: string): Promise<boolean>;
  /** Removes the key's watch with its policies, runs, changes, mails, webhook deliveries and write-backs; false when it has none such. */
  delete(id: string, keyId: string): Promise<boolean>;
  /**
   * Claims one watch that is not paused and has a run open, or whose cadence or re-check is due, whose
   * lease is free or ran out; null when none.
   */
  lease(owner: string, now: string, until: string): Promise<WatchRecord | null>;
  renew(id: string, owner: string, until: string): Promise<boolean>;
  /** Ends `owner`'s lease without closing anything: the next taker carries the open run on. */
  release(id: string, owner: string): Promise<void>;
  /**
   * Opens a run for the leased watch with no run open: a schedule run takes every policy, a re-check run
   * those marked for re-check (and clears their mark). Null when `owner` no longer holds the watch or a run is open.
   */
  openRun(watchId: string, owner: string, run: { id: string; trigger: WatchRunTrigger; at: string }): Promise<WatchRunRecord | null>;
  /** Policies the open run still has to check, in order, at most `limit`. */
  pendingItems(watchId: string, runId: string, limit: number): Promise<WatchItemRecord[]>;
  /**
   * Reserves `r.amount` credits and marks the policies `idxs` as reserved for, in one transaction; refused
   * (nothing written) when the balance can't cover it. Only while `owner` holds the watch and `runId` is open.
   */
  reserve(watchId: string, runId: string, owner: string, idxs: number[], r: Reservation, at: string): Promise<SubmitOutcome | null>;
  /**
   * A chunk's results in one transaction: each policy's state, its settlement, its change; the run's
   * counts. Policies already committed are skipped. False, nothing written, once `owner` lost the watch.
   */
  commitChunk(c: WatchChunk): Promise<boolean>;
  /** The changes a run found, by policy order; `limit` the first ones. */
  changes(runId: string, limit?: number): Promise<WatchChangeRecord[]>;
  /**
   * Closes the open run once: policies it left unchecked lose their place in it (and their reservations
   * are given back), the run's deliveries are enqueued, the cadence's next run set, the lease ended, and
   * runs beyond WATCH_RUNS_KEPT dropped with their changes and deliveries. False once `owner` lost the watch.
   */
  closeRun(c: CloseWatchRun): Promise<boolean>;
  run(runId: string): Promise<WatchRunRecord | null>;
  /** The watch's latest run, or null. */
  lastRun(watchId: string): Promise<WatchRunRecord | null>;
  /** Policies of the watch marked for a re-check. */
  rechecksPending(watchId: string): Promise<number>;
  /**
   * Checked policies of every watch that no open run still has to check, by (watch_id, idx) after `after`, at most
   * `limit`: what a re-check scan reads (a run checks its pending ones against reference data as of its chunk).
   */
  probeItems(after: { watch_id: string; idx: number } | null, limit: number): Promise<WatchProbeItem[]>;
  /** Marks policies for a re-check and makes their watches due at `at` (kept if already due earlier). */
  markRecheck(items: { watch_id: string; idx: number }[], at: string): Promise<void>;
  /** The reference-data version the last re-check scan saw (InsurerStore.version), or null before the first. */
  referenceVersion(): Promise<number | null>;
  setReferenceVersion(version: number): Promise<void>;
  /** Claims the next due pending e-mail for `until`, or null. */
  leaseMail(now: string, until: string): Promise<WatchMailRecord | null>;
  /** Records a sending attempt's outcome and ends the lease. */
  finishMail(
    id: string,
    outcome: { status: WatchMailRecord['status']; error: string | null; next_attempt_at: string | null },
    at: string,
  ): Promise<void>;
  /** The e-mails of a run (for tests and operators). */
  mails(runId: string): Promise<WatchMailRecord[]>;
}
