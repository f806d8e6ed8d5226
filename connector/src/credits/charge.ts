/**
 * Credit rules (spec 8): 1 credit for a verified or unverified outcome, 0 for inconclusive or an
 * error; 1 more for a document read (documentCost); sandbox (pk_test_) keys are never charged. The balance check and the deduction are one
 * atomic store step, so concurrent calls can never overdraw a key.
 */
import type { TVerificationStatus } from '../../../shared/verification.js';
import { AppError } from '../errors.js';
import type { ApiKeyRecord, CreditStore, IdempotentRecord, NewVerification } from '../store/types.js';
import { billingPeriod } from './period.js';

export function creditCost(status: TVerificationStatus): 0 | 1 {
  return status === 'inconclusive' ? 0 : 1;
}

export function isCharged(key: Pick<ApiKeyRecord, 'mode'>): boolean {
  return key.mode === 'live';
}

/**
 * Reading a document costs 1 credit wherever it is read, so that no route hands out for free what
 * another sells: POST /documents/extract, and the document of an async verification (on top of the
 * verification's own credit). Kept only when the document was read and its fields returned; a document
 * that could not be read, or a server without extraction, costs nothing.
 */
export const DOCUMENT_CREDIT = 1;

/** What a verification job's document costs once its outcome is known (`extraction` null: no document). */
export function documentCost(key: Pick<ApiKeyRecord, 'mode'> | null, extraction: 'complete' | 'failed' | 'not_available' | null): number {
  return key && isCharged(key) && extraction === 'complete' ? DOCUMENT_CREDIT : 0;
}

/**
 * Balance a caller may spend now, from the key record read at authentication (no extra query):
 * a record from an earlier period is due its full allowance. Only a hint for an early 402; the
 * charge itself re-checks atomically.
 */
export function spendableBalance(key: ApiKeyRecord, now: Date): number {
  return key.period < billingPeriod(now) ? key.allowance : key.balance;
}

export type ChargeResult = { ok: true; charged: number; balance: number } | { ok: false; balance: number };

export async function chargeKey(
  credits: CreditStore,
  key: ApiKeyRecord,
  amount: number,
  ref: string | null,
  now: Date,
  /** Idempotent response to record in the same transaction as the charge, so a crash can't split them. */
  record?: IdempotentRecord,
  /** The result's history entry, likewise: a charged result is always in the history. */
  verification?: NewVerification,
): Promise<ChargeResult> {
  if (!isCharged(key) || amount === 0) return { ok: true, charged: 0, balance: key.balance };
  const outcome = await credits.charge(key.id, amount, billingPeriod(now), ref, now.toISOString(), record, verification);
  return outcome.ok ? { ok: true, charged: amount, balance: outcome.balance } : { ok: false, balance: outcome.balance };
}

/**
 * The one refusal for a key without the credits a request needs (sync, async and batch alike);
 * it carries the balance, which the sync form shows (spec 4.1).
 */
export function outOfCredits(balance: number, needed: number, now: Date): AppError {
  const need = needed > 1 ? `; this needs ${needed}` : '';
  return new AppError('insufficient_credits', `Credits exhausted for billing period ${billingPeriod(now)}: balance ${balance}${need}.`, {
    balance,
  });
}
