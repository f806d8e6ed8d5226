/**
 * Credit statements shared by the store's transactions: period rollover, conditional debit,
 * refund. Rollover and debit are server-side functions (migrations 2 and 4). The debit is one
 * conditional UPDATE: under READ COMMITTED a concurrent charge on the same key waits for the row
 * lock and re-checks `balance >= amount` against the committed row, so no interleaving can
 * overdraw a key.
 */
import type { LedgerEntry } from '../types/credits.js';
import { one, type Queryable } from './db.js';

export async function writeLedger(
  c: Queryable,
  keyId: string,
  delta: number,
  reason: LedgerEntry['reason'],
  ref: string | null,
  balanceAfter: number,
  at: string,
): Promise<void> {
  await c.query('INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
    keyId,
    delta,
    reason,
    ref,
    balanceAfter,
    at,
  ]);
}

/** Resets the balance to the allowance when `period` is newer than the key's; call inside a transaction. */
export async function rollover(c: Queryable, keyId: string, period: string, at: string): Promise<void> {
  await c.query('SELECT covercheck_rollover($1, $2, $3)', [keyId, period, at]);
}

/** Debits `amount` if the balance covers it (rolling the period over first); the new balance, or null (nothing debited) if not. */
export async function debit(
  c: Queryable,
  keyId: string,
  amount: number,
  period: string,
  reason: LedgerEntry['reason'],
  ref: string | null,
  at: string,
): Promise<number | null> {
  return (await one<{ balance: number | null }>(c, 'SELECT covercheck_debit($1, $2, $3, $4, $5, $6) AS balance', [
    keyId,
    amount,
    period,
    reason,
    ref,
    at,
  ]))!.balance;
}

export async function refund(c: Queryable, keyId: string, amount: number, ref: string | null, at: string): Promise<void> {
  if (amount <= 0) return;
  const row = await one<{ balance: number }>(c, 'UPDATE api_keys SET balance = balance + $2 WHERE id = $1 RETURNING balance', [
    keyId,
    amount,
  ]);
  if (row) await writeLedger(c, keyId, amount, 'refund', ref, row.balance, at);
}

export async function currentBalance(c: Queryable, keyId: string): Promise<number> {
  return (await one<{ balance: number }>(c, 'SELECT balance FROM api_keys WHERE id = $1', [keyId]))?.balance ?? 0;
}
