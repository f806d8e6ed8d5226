/**
 * Storage of the result history: one row per verification result a key was given (sync, async job,
 * batch item, watch run), kept for the result retention period. Rows are written once and never
 * changed; a key reads only its own, newest first, by (created_at, id) so that a cursor stays valid
 * while new results arrive.
 */

/** Where a recorded result came from. */
export type VerificationSource = 'sync' | 'async' | 'batch' | 'watch';

/** A result to record, as stored: the columns a list filters on beside the JSON it was built from. */
export interface NewVerification {
  id: string;
  key_id: string;
  source: VerificationSource;
  /** The job id (async), batch id (batch) or watch id (watch); null for a sync request. */
  source_id: string | null;
  /** As the result has it: normalised for matching. */
  policy_number: string;
  country: string;
  insurance_type: string;
  status: string;
  confidence: number;
  /** JSON text of the result's checks[]. */
  checks: string;
  /** JSON text of the policy request as the key sent it. */
  input: string;
  /** JSON text of the verification result. */
  result: string;
  created_at: string;
}

/** A recorded result, as read back. */
export type VerificationRecord = NewVerification;

/** A position in a key's history: entries strictly older than it, in (created_at, id) order. */
export interface HistoryCursor {
  created_at: string;
  id: string;
}

export interface HistoryQuery {
  key_id: string;
  /** created_at >= from (ISO). */
  from?: string;
  /** created_at < to (ISO). */
  to?: string;
  status?: string;
  /** Normalised as results hold it. */
  policy_number?: string;
  /** Entries of this watch only (source 'watch', source_id = it). */
  watch_id?: string;
  after?: HistoryCursor;
  limit: number;
}

export interface HistoryStore {
  /** Writes one entry on its own (a result whose other writes, if any, are already committed). */
  record(entry: NewVerification): Promise<void>;
  /** The key's entries matching the query, newest first ((created_at, id) descending), at most `limit`. */
  list(query: HistoryQuery): Promise<VerificationRecord[]>;
}
