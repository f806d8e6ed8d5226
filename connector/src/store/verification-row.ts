/**
 * A result's history entry as stored (docs/history.md), built the same way wherever a result is given:
 * the columns a list filters on are taken from the result, beside the JSON of the input and result.
 * Built here, under the domains, so the sync path, the job queue and watch runs can each write it in
 * the transaction that settles the result.
 */
import crypto from 'node:crypto';
import type { TVerificationResult } from '../../../shared/verification.js';
import type { NewVerification, VerificationSource } from './types/history.js';

export interface VerificationEntry {
  key_id: string;
  source: VerificationSource;
  /** The job id (async), batch id (batch) or watch id (watch); null for a sync request. */
  source_id: string | null;
  /** The policy request as the key sent it (a JSON value). */
  input: unknown;
  result: TVerificationResult;
  /** When the result was given (ISO). */
  at: string;
}

/**
 * A UUID (version 7 layout) whose first 48 bits are the entry's time in ms: ids sort by time, so an
 * insert lands at the right edge of the primary-key index rather than on a random page of it (with
 * random UUIDs, every recorded result wrote one more page); the random 74 bits keep ids of one
 * millisecond apart.
 */
export function verificationId(at: string): string {
  const ms = Date.parse(at);
  const time = (Number.isNaN(ms) ? Date.now() : ms).toString(16).padStart(12, '0').slice(-12);
  // randomUUID draws from a cached pool (cheaper than randomBytes); its version digit becomes 7.
  const random = crypto.randomUUID();
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.slice(15)}`;
}

export function verificationRow(entry: VerificationEntry, id: string = verificationId(entry.at)): NewVerification {
  const { result } = entry;
  return {
    id,
    key_id: entry.key_id,
    source: entry.source,
    source_id: entry.source_id,
    policy_number: result.policy_number,
    country: result.country,
    insurance_type: result.insurance_type,
    status: result.status,
    confidence: result.confidence_score,
    checks: JSON.stringify(result.checks),
    input: JSON.stringify(entry.input ?? null),
    result: JSON.stringify(result),
    created_at: entry.at,
  };
}
