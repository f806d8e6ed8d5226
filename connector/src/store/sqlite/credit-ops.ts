/** Credit statements shared by the store's transactions: period rollover, conditional debit, refund. */
import type { LedgerEntry } from '../types/credits.js';
import type { Db } from './db.js';

export interface CreditOps {
  /** Resets the balance to the allowance when `period` is newer than the key's; call inside a transaction. */
  rollover(keyId: string, period: string, at: string): void;
  /** Debits `amount` if the balance covers it; returns the new balance, or null (and nothing written) if not. */
  debit(keyId: string, amount: number, period: string, reason: LedgerEntry['reason'], ref: string | null, at: string): number | null;
  /** Gives `amount` back; one ledger row. */
  refund(keyId: string, amount: number, ref: string | null, at: string): void;
  balance(keyId: string): number;
}

export function creditOps(db: Db): CreditOps {
  const q = {
    rollover: db.prepare('UPDATE api_keys SET balance = allowance, period = @period WHERE id = @id AND period < @period RETURNING balance'),
    debit: db.prepare('UPDATE api_keys SET balance = balance - @amount WHERE id = @id AND balance >= @amount RETURNING balance'),
    credit: db.prepare('UPDATE api_keys SET balance = balance + @amount WHERE id = @id RETURNING balance'),
    balance: db.prepare('SELECT balance FROM api_keys WHERE id = ?'),
    ledger: db.prepare('INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
  };
  const ops: CreditOps = {
    rollover(keyId, period, at) {
      const rolled = q.rollover.get({ id: keyId, period }) as { balance: number } | undefined;
      if (rolled) q.ledger.run(keyId, 0, 'period_reset', period, rolled.balance, at);
    },
    debit(keyId, amount, period, reason, ref, at) {
      ops.rollover(keyId, period, at);
      const row = q.debit.get({ id: keyId, amount }) as { balance: number } | undefined;
      if (!row) return null;
      q.ledger.run(keyId, -amount, reason, ref, row.balance, at);
      return row.balance;
    },
    refund(keyId, amount, ref, at) {
      if (amount <= 0) return;
      const row = q.credit.get({ id: keyId, amount }) as { balance: number };
      q.ledger.run(keyId, amount, 'refund', ref, row.balance, at);
    },
    balance(keyId) {
      return (q.balance.get(keyId) as { balance: number } | undefined)?.balance ?? 0;
    },
  };
  return ops;
}
