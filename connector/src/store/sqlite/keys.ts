/** API keys in SQLite. */
import type { Db } from './db.js';
import type { KeyStore, NewApiKey } from '../types/keys.js';
import { toKey, type Row } from './rows.js';

export function keyStore(db: Db): KeyStore {
  const q = {
    insert:
      db.prepare(`INSERT INTO api_keys (id, lookup, hash, name, email, mode, plan, scopes, allowance, balance, period, created_at, webhook_secret)
      VALUES (@id, @lookup, @hash, @name, @email, @mode, @plan, @scopes, @allowance, @allowance, @period, @created_at, @webhook_secret)`),
    secret: db.prepare('UPDATE api_keys SET webhook_secret = ? WHERE id = ?'),
    byLookup: db.prepare('SELECT * FROM api_keys WHERE lookup = ?'),
    byId: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    list: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    revoke: db.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ? AND status != 'revoked'"),
    touch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
  };

  return {
    async create(key: NewApiKey) {
      q.insert.run({ ...key, email: key.email ?? null, scopes: key.scopes.join(','), webhook_secret: key.webhook_secret ?? null });
      return toKey(q.byId.get(key.id) as Row);
    },
    async findByLookup(lookup) {
      const r = q.byLookup.get(lookup) as Row | undefined;
      return r ? toKey(r) : null;
    },
    async get(id) {
      const r = q.byId.get(id) as Row | undefined;
      return r ? toKey(r) : null;
    },
    async list() {
      return (q.list.all() as Row[]).map(toKey);
    },
    async revoke(id, at) {
      return q.revoke.run(at, id).changes > 0;
    },
    async touch(id, at) {
      q.touch.run(at, id);
    },
    async setWebhookSecret(id, secret) {
      q.secret.run(secret, id);
    },
  };
}
