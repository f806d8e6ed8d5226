/** Credits in SQLite: charges (grouped into one commit per event-loop turn), balances, operator adjustments, the ledger. */
import type { Db } from './db.js';
import { adjustedBalance, type BalanceAdjustment } from '../balance-adjustment.js';
import type { ChargeOutcome, CreditStore, LedgerEntry } from '../types/credits.js';
import type { NewVerification } from '../types/history.js';
import type { IdempotentRecord } from '../types/idempotency.js';
import type { CreditOps } from './credit-ops.js';
import { groupCommit } from './group-commit.js';
import { verificationInsert } from './history.js';
import { toKey, type Row } from './rows.js';

export function creditStore(db: Db, credits: CreditOps): CreditStore {
  const q = {
    keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    ledgerInsert: db.prepare('INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
    ledgerList: db.prepare('SELECT * FROM credit_ledger WHERE key_id = ? ORDER BY id'),
    idemComplete: db.prepare('UPDATE idempotency SET status = ?, body = ?, completed_at = ? WHERE key_id = ? AND idem_key = ?'),
  };

  const recordVerification = verificationInsert(db);

  // Charges are the hot write of sync verification: grouped into one commit per event-loop turn.
  const charge = groupCommit(
    db,
    (
      keyId: string,
      amount: number,
      period: string,
      ref: string | null,
      at: string,
      record?: IdempotentRecord,
      verification?: NewVerification,
    ): ChargeOutcome => {
      const balance = credits.debit(keyId, amount, period, 'charge', ref, at);
      if (balance === null) return { ok: false, balance: credits.balance(keyId) };
      if (record) q.idemComplete.run(record.response.status, record.response.body, at, keyId, record.idemKey);
      if (verification) recordVerification(verification);
      return { ok: true, balance };
    },
  );

  const balanceTx = db.transaction((keyId: string, period: string, at: string): number => {
    credits.rollover(keyId, period, at);
    return credits.balance(keyId);
  });

  const adjustTx = db.transaction((keyId: string, opts: BalanceAdjustment, at: string) => {
    const before = q.keyById.get(keyId) as Row | undefined;
    if (!before) return null;
    if (opts.allowance !== undefined) db.prepare('UPDATE api_keys SET allowance = ? WHERE id = ?').run(opts.allowance, keyId);
    const balance = adjustedBalance(before.balance as number, opts);
    const delta = balance - (before.balance as number);
    if (delta !== 0) {
      db.prepare('UPDATE api_keys SET balance = ? WHERE id = ?').run(balance, keyId);
      q.ledgerInsert.run(keyId, delta, 'adjust', null, balance, at);
    }
    return toKey(q.keyById.get(keyId) as Row);
  });

  return {
    async charge(keyId, amount, period, ref, at, record, verification) {
      return charge(keyId, amount, period, ref, at, record, verification);
    },
    async balance(keyId, period, at) {
      return balanceTx.immediate(keyId, period, at);
    },
    async adjust(keyId, opts, at) {
      return adjustTx.immediate(keyId, opts, at);
    },
    async ledger(keyId) {
      return q.ledgerList.all(keyId) as LedgerEntry[];
    },
  };
}
