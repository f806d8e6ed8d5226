/** Idempotency-Key claims in PostgreSQL: an insert that may conflict, then the existing claim read under its row lock. */
import type { IdempotencyBegin, IdempotencyStore, IdempotentRecord } from '../types/idempotency.js';
import { changed, one, tx, type Db, type Tx } from './db.js';

/** Completes a claim with its response inside another store's transaction (an accepted job or batch). */
export async function completeIdempotent(c: Tx, keyId: string, record: IdempotentRecord | undefined, at: string): Promise<void> {
  if (!record) return;
  await c.query('UPDATE idempotency SET status = $1, body = $2, completed_at = $3 WHERE key_id = $4 AND idem_key = $5', [
    record.response.status,
    record.response.body,
    at,
    keyId,
    record.idemKey,
  ]);
}

export function idempotencyStore(db: Db): IdempotencyStore {
  return {
    async begin(keyId, idemKey, hash, at, staleBefore): Promise<IdempotencyBegin> {
      return tx(db, async (c) => {
        const inserted = await changed(
          c,
          'INSERT INTO idempotency (key_id, idem_key, request_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key_id, idem_key) DO NOTHING',
          [keyId, idemKey, hash, at],
        );
        if (inserted) return { state: 'new' };
        const row = await one(c, 'SELECT * FROM idempotency WHERE key_id = $1 AND idem_key = $2 FOR UPDATE', [keyId, idemKey]);
        // Released between our insert and this read: the caller may retry as new.
        if (!row) return { state: 'in_progress' };
        if (row.request_hash !== hash) return { state: 'mismatch' };
        if (row.status !== null) return { state: 'replay', status: row.status as number, body: row.body as string };
        // A claim nobody completed (its process died mid-request) is taken over rather than blocking forever.
        if ((row.created_at as string) < staleBefore) {
          await c.query('UPDATE idempotency SET created_at = $1 WHERE key_id = $2 AND idem_key = $3', [at, keyId, idemKey]);
          return { state: 'new' };
        }
        return { state: 'in_progress' };
      });
    },
    async complete(keyId, idemKey, response, at) {
      await db.query('UPDATE idempotency SET status = $1, body = $2, completed_at = $3 WHERE key_id = $4 AND idem_key = $5', [
        response.status,
        response.body,
        at,
        keyId,
        idemKey,
      ]);
    },
    async release(keyId, idemKey) {
      await db.query('DELETE FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND status IS NULL', [keyId, idemKey]);
    },
  };
}
