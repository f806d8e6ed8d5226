/** Credits in PostgreSQL: charges (one statement when no idempotency claim rides along), balances, operator adjustments, the ledger. */
import { adjustedBalance } from '../balance-adjustment.js';
import type { CreditStore, LedgerEntry } from '../types/credits.js';
import type { NewVerification } from '../types/history.js';
import { currentBalance, debit, rollover, writeLedger } from './credit-ops.js';
import { all, one, tx, type Db } from './db.js';
import { insertVerification, VERIFICATION_COLUMNS, verificationPlaceholders, verificationValues } from './history.js';
import { toKey } from './rows.js';

/**
 * A charge and the result's history entry as one statement: the entry is written only when the debit
 * is made, and a charged sync verification stays one round trip. (A WITH query naming a volatile
 * function's result twice evaluates it once.)
 */
async function debitRecording(
  db: Db,
  [keyId, amount, period, ref, at]: [string, number, string, string | null, string],
  verification: NewVerification,
): Promise<number | null> {
  const row = await one<{ balance: number | null }>(
    db,
    `WITH d AS (SELECT covercheck_debit($1, $2, $3, 'charge', $4, $5) AS balance),
       h AS (INSERT INTO verifications (${VERIFICATION_COLUMNS}) SELECT ${verificationPlaceholders(6)} FROM d WHERE d.balance IS NOT NULL)
     SELECT balance FROM d`,
    [keyId, amount, period, ref, at, ...verificationValues(verification)],
  );
  return row!.balance;
}

export function creditStore(db: Db): CreditStore {
  return {
    async charge(keyId, amount, period, ref, at, record, verification) {
      // The common case is one statement (autocommit): one round trip per charged verification.
      if (!record) {
        const balance = verification
          ? await debitRecording(db, [keyId, amount, period, ref, at], verification)
          : await debit(db, keyId, amount, period, 'charge', ref, at);
        return balance === null ? { ok: false, balance: await currentBalance(db, keyId) } : { ok: true, balance };
      }
      return tx(db, async (c) => {
        const balance = await debit(c, keyId, amount, period, 'charge', ref, at);
        if (balance === null) return { ok: false, balance: await currentBalance(c, keyId) };
        await c.query('UPDATE idempotency SET status = $1, body = $2, completed_at = $3 WHERE key_id = $4 AND idem_key = $5', [
          record.response.status,
          record.response.body,
          at,
          keyId,
          record.idemKey,
        ]);
        if (verification) await insertVerification(c, verification);
        return { ok: true, balance };
      });
    },
    async balance(keyId, period, at) {
      return tx(db, async (c) => {
        await rollover(c, keyId, period, at);
        return currentBalance(c, keyId);
      });
    },
    async adjust(keyId, opts, at) {
      return tx(db, async (c) => {
        // The row lock keeps a concurrent charge from slipping between the read and the write.
        const before = await one(c, 'SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
        if (!before) return null;
        if (opts.allowance !== undefined) await c.query('UPDATE api_keys SET allowance = $1 WHERE id = $2', [opts.allowance, keyId]);
        const balance = adjustedBalance(before.balance as number, opts);
        const delta = balance - (before.balance as number);
        if (delta !== 0) {
          await c.query('UPDATE api_keys SET balance = $1 WHERE id = $2', [balance, keyId]);
          await writeLedger(c, keyId, delta, 'adjust', null, balance, at);
        }
        return toKey((await one(c, 'SELECT * FROM api_keys WHERE id = $1', [keyId]))!);
      });
    },
    async ledger(keyId) {
      return all<LedgerEntry>(
        db,
        'SELECT id, key_id, delta, reason, ref, balance_after, created_at FROM credit_ledger WHERE key_id = $1 ORDER BY id',
        [keyId],
      );
    },
  };
}
