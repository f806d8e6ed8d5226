/** Storage of credits: the ledger, charges that check and debit in one step, balances and operator adjustments. */

import type { BalanceAdjustment } from '../balance-adjustment.js';
import type { NewVerification } from './history.js';
import type { IdempotentRecord } from './idempotency.js';
import type { ApiKeyRecord } from './keys.js';

export interface LedgerEntry {
  id: number;
  key_id: string;
  /** Negative for a charge, positive for a refund or grant. */
  delta: number;
  reason: 'charge' | 'reserve' | 'refund' | 'grant' | 'period_reset' | 'adjust';
  ref: string | null;
  balance_after: number;
  created_at: string;
}

export interface ChargeOutcome {
  ok: boolean;
  /** Balance after the charge, or the unchanged balance when refused. */
  balance: number;
}

export interface CreditStore {
  /**
   * Charges `amount` if the balance covers it, in one atomic step with the check. Rolls the
   * balance over to a new billing period first when `period` is newer than the key's. `record` (the
   * request's Idempotency-Key answer) and `verification` (the result's history entry) are written in
   * the same transaction, only when the charge is made.
   */
  charge(
    keyId: string,
    amount: number,
    period: string,
    ref: string | null,
    at: string,
    record?: IdempotentRecord,
    verification?: NewVerification,
  ): Promise<ChargeOutcome>;
  /** Current balance, rolled over to `period` if that is newer. */
  balance(keyId: string, period: string, at: string): Promise<number>;
  /** Operator adjustment: set the allowance and/or add to the balance. */
  adjust(keyId: string, opts: BalanceAdjustment, at: string): Promise<ApiKeyRecord | null>;
  ledger(keyId: string): Promise<LedgerEntry[]>;
}
