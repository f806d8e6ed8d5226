/** Storage of Sheets work: write-backs of results, dataset refresh schedules, and spreadsheet bindings. */

/** One result to place: the policy number that identifies its row, and cell values by column letter. */
export interface WritebackRow {
  policy_number: string;
  cells: Record<string, string | number>;
  /** Extraction results may add a row when their policy number is not in the sheet yet. */
  append_if_missing: boolean;
}

export interface NewWriteback {
  id: string;
  key_id: string;
  /** A watch run's write-backs are the changed rows' status cells (kind verification) and its change log (kind changes). */
  subject_type: 'job' | 'batch' | 'watch_run';
  subject_id: string;
  kind: 'verification' | 'extraction' | 'changes';
  spreadsheet_id: string;
  /** JSON text of the TSheetTarget. */
  target: string;
  /** JSON text of WritebackRow[]. */
  rows: string;
  created_at: string;
}

export interface WritebackRecord extends NewWriteback {
  status: 'pending' | 'written' | 'failed';
  attempts: number;
  next_attempt_at: string;
  written: number;
  missing: string[];
  last_error: string | null;
  updated_at: string;
}

/** A key with write-backs that could be leased now, and when the first of them came due. */
export interface WritebackQueueEntry {
  key_id: string;
  oldest: string;
}

export interface WritebackStore {
  /**
   * Claims for `owner` every due pending write-back of one spreadsheet: the one whose write-back is due
   * first, of `keyId`'s write-backs when given (the claim still takes the other keys' due write-backs of
   * that spreadsheet, which share its reads and writes). A spreadsheet with a write-back under a live
   * lease is passed over: one holder writes a spreadsheet at a time, so rows appended by two writers
   * can't land on the same free row.
   */
  leaseSpreadsheet(owner: string, now: string, until: string, keyId?: string): Promise<WritebackRecord[]>;
  /**
   * The keys that leaseSpreadsheet could claim something for now (due, lease free or run out,
   * spreadsheet not held), by `oldest` then key id: whose turn it may be (sheets/processor.ts).
   */
  dueKeys(now: string): Promise<WritebackQueueEntry[]>;
  /** Extends to `until` the lease of every pending write-back `owner` still holds; returns how many. */
  renew(owner: string, until: string): Promise<number>;
  /**
   * Records the outcome and ends the lease. False, and nothing recorded, when `owner` no longer holds
   * the write-back (its lease ran out and another worker took it, or it is finished already).
   */
  finish(
    id: string,
    owner: string,
    outcome: {
      status: WritebackRecord['status'];
      written: number;
      missing: string[];
      error: string | null;
      next_attempt_at: string | null;
    },
    at: string,
  ): Promise<boolean>;
  forSubject(subjectId: string): Promise<WritebackRecord | null>;
}

export interface ScheduleRecord {
  id: string;
  key_id: string;
  dataset: string;
  spreadsheet_id: string;
  sheet_name: string;
  cadence: 'hourly' | 'daily' | 'weekly';
  point_limit: number;
  /** How each run writes the series (shared/sheets.ts SCHEDULE_OUTPUT_MODES). */
  output_mode: 'overwrite' | 'append' | 'merge';
  next_run_at: string;
  running_until: string | null;
  created_at: string;
  /** Failed runs since the last good one (or resume). */
  failures_in_row: number;
  /** Set when the schedule paused itself; a paused schedule is never leased until resumed. */
  paused_at: string | null;
  paused_reason: string | null;
}

/** A schedule as created: not running, not paused, no failures. */
export type NewSchedule = Omit<ScheduleRecord, 'running_until' | 'failures_in_row' | 'paused_at' | 'paused_reason'>;

export interface ScheduleRunRecord {
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'ok' | 'failed';
  rows: number | null;
  error: string | null;
}

/** How many of a schedule's latest runs the store keeps: finishRun drops older ones. */
export { SCHEDULE_RUNS_KEPT } from '../../../../shared/sheets.js';

export interface ScheduleStore {
  create(s: NewSchedule): Promise<void>;
  get(id: string): Promise<ScheduleRecord | null>;
  list(keyId: string): Promise<ScheduleRecord[]>;
  delete(id: string, keyId: string): Promise<boolean>;
  /**
   * Claims one due schedule not already running and not paused (a run holds it until `until`), recording the
   * run as started. A schedule is never claimed twice at once.
   */
  leaseDue(now: string, until: string): Promise<ScheduleRecord | null>;
  /**
   * Extends to `until` the hold of the run started at `startedAt`, while it is still the schedule's
   * running run; false once its hold ran out and another run took the schedule (and marked this one
   * interrupted), or the run is finished.
   */
  renewRun(id: string, startedAt: string, until: string): Promise<boolean>;
  /**
   * Ends the run started at `startedAt` and sets the next run (counted from now, so missed periods
   * are not replayed). Keeps the latest SCHEDULE_RUNS_KEPT runs of the schedule, dropping older ones.
   * Counts failed runs in a row (a good run resets the count) and returns the count after this run.
   * Null, and nothing recorded, when that run is no longer the running one (its hold ran out and
   * another run took the schedule, marking it interrupted): the newer run owns the schedule now.
   */
  finishRun(id: string, startedAt: string, run: Omit<ScheduleRunRecord, 'started_at'>, nextRunAt: string): Promise<number | null>;
  /** Pauses the schedule, saying why; it is not leased again until resumed. */
  pause(id: string, reason: string, at: string): Promise<void>;
  /**
   * Un-pauses the key's schedule, resets its failure count and sets its next run; false when no
   * such schedule belongs to `keyId`. Resuming a schedule that is not paused only sets the count and next run.
   */
  resume(id: string, keyId: string, nextRunAt: string): Promise<boolean>;
  runs(id: string, limit: number): Promise<ScheduleRunRecord[]>;
}

/**
 * A key's permission to write into one spreadsheet, proved by an editor who wrote the binding
 * token into the spreadsheet's developer metadata (docs/sheets-binding.md). One per key and
 * spreadsheet.
 */
export interface SheetBindingRecord {
  id: string;
  key_id: string;
  spreadsheet_id: string;
  /** SHA-256 of the binding token, hex: the token is shown once, at issue, and never stored. */
  token_hash: string;
  status: 'pending' | 'active';
  created_at: string;
  /** When this token was last found in the spreadsheet; null until then. */
  verified_at: string | null;
}

export interface SheetBindingStore {
  /**
   * Creates the binding of (key, spreadsheet), or gives the existing one (same id) this token:
   * back to pending with verified_at null, so the old token no longer counts.
   */
  issue(b: { id: string; key_id: string; spreadsheet_id: string; token_hash: string; created_at: string }): Promise<SheetBindingRecord>;
  get(id: string): Promise<SheetBindingRecord | null>;
  find(keyId: string, spreadsheetId: string): Promise<SheetBindingRecord | null>;
  /** The key's bindings, by created_at then id. */
  list(keyId: string): Promise<SheetBindingRecord[]>;
  /**
   * Records a check of token `tokenHash` started at `checkedAt`: found -> active, verified_at =
   * checkedAt; not found -> pending. Ignored (false) when the token was replaced meanwhile or a
   * check that started later was already recorded, so a slow stale answer never wins.
   */
  recordCheck(id: string, tokenHash: string, found: boolean, checkedAt: string): Promise<boolean>;
  /** Removes the binding if it belongs to `keyId`. */
  delete(id: string, keyId: string): Promise<boolean>;
}
