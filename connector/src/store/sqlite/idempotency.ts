/** Idempotency-Key claims in SQLite: one immediate transaction decides new, replay, in progress or mismatch. */
import type { Db } from './db.js';
import type { IdempotencyBegin, IdempotencyStore, IdempotentRecord, StoredResponse } from '../types/idempotency.js';
import type { Row } from './rows.js';

/** Completes a claim with its response; for use inside another store's transaction (a charge, an accepted job or batch). */
export function idempotentCompleter(db: Db): (keyId: string, record: IdempotentRecord | undefined, at: string) => void {
  const complete = db.prepare('UPDATE idempotency SET status = ?, body = ?, completed_at = ? WHERE key_id = ? AND idem_key = ?');
  return (keyId, record, at) => {
    if (record) complete.run(record.response.status, record.response.body, at, keyId, record.idemKey);
  };
}

export function idempotencyStore(db: Db): IdempotencyStore {
  const q = {
    get: db.prepare('SELECT * FROM idempotency WHERE key_id = ? AND idem_key = ?'),
    insert: db.prepare('INSERT INTO idempotency (key_id, idem_key, request_hash, created_at) VALUES (?, ?, ?, ?)'),
    retake: db.prepare('UPDATE idempotency SET created_at = ? WHERE key_id = ? AND idem_key = ?'),
    complete: db.prepare('UPDATE idempotency SET status = ?, body = ?, completed_at = ? WHERE key_id = ? AND idem_key = ?'),
    delete: db.prepare('DELETE FROM idempotency WHERE key_id = ? AND idem_key = ? AND status IS NULL'),
  };

  const beginTx = db.transaction((keyId: string, idemKey: string, hash: string, at: string, staleBefore: string): IdempotencyBegin => {
    const row = q.get.get(keyId, idemKey) as Row | undefined;
    if (!row) {
      q.insert.run(keyId, idemKey, hash, at);
      return { state: 'new' };
    }
    if (row.request_hash !== hash) return { state: 'mismatch' };
    if (row.status !== null) return { state: 'replay', status: row.status as number, body: row.body as string };
    // A claim nobody completed (its process died mid-request) is taken over rather than blocking forever.
    if ((row.created_at as string) < staleBefore) {
      q.retake.run(at, keyId, idemKey);
      return { state: 'new' };
    }
    return { state: 'in_progress' };
  });

  return {
    async begin(keyId, idemKey, requestHash, at, staleBefore) {
      return beginTx.immediate(keyId, idemKey, requestHash, at, staleBefore);
    },
    async complete(keyId, idemKey, response: StoredResponse, at) {
      q.complete.run(response.status, response.body, at, keyId, idemKey);
    },
    async release(keyId, idemKey) {
      q.delete.run(keyId, idemKey);
    },
  };
}
