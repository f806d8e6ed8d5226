/** API keys in PostgreSQL. */
import type { KeyStore } from '../types/keys.js';
import { all, changed, one, type Db } from './db.js';
import { toKey } from './rows.js';

export function keyStore(db: Db): KeyStore {
  return {
    async create(key) {
      const r = await one(
        db,
        `INSERT INTO api_keys (id, lookup, hash, name, email, mode, plan, scopes, allowance, balance, period, created_at, webhook_secret)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12) RETURNING *`,
        [
          key.id,
          key.lookup,
          key.hash,
          key.name,
          key.email ?? null,
          key.mode,
          key.plan,
          key.scopes,
          key.allowance,
          key.period,
          key.created_at,
          key.webhook_secret ?? null,
        ],
      );
      return toKey(r!);
    },
    async findByLookup(lookup) {
      const r = await one(db, 'SELECT * FROM api_keys WHERE lookup = $1', [lookup]);
      return r ? toKey(r) : null;
    },
    async get(id) {
      const r = await one(db, 'SELECT * FROM api_keys WHERE id = $1', [id]);
      return r ? toKey(r) : null;
    },
    async list() {
      return (await all(db, 'SELECT * FROM api_keys ORDER BY created_at, id')).map(toKey);
    },
    async revoke(id, at) {
      return (
        (await changed(db, "UPDATE api_keys SET status = 'revoked', revoked_at = $1 WHERE id = $2 AND status <> 'revoked'", [at, id])) > 0
      );
    },
    async touch(id, at) {
      await db.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, id]);
    },
    async setWebhookSecret(id, secret) {
      await db.query('UPDATE api_keys SET webhook_secret = $1 WHERE id = $2', [secret, id]);
    },
  };
}
