/** Key portal storage in SQLite: e-mail activation requests and the unused-key sweep. */
import type { ConsumeOutcome, PortalStore } from '../types/portal.js';
import type { Db } from './db.js';
import { toRequest, type Row } from './rows.js';

export function portalStore(db: Db): PortalStore {
  const q = {
    insert: db.prepare(`INSERT INTO portal_key_requests (id, email, mode, token_hash, created_at, expires_at)
      VALUES (@id, @email, @mode, @token_hash, @created_at, @expires_at)`),
    byHash: db.prepare('SELECT * FROM portal_key_requests WHERE token_hash = ?'),
    consume: db.prepare(`UPDATE portal_key_requests SET used_at = @at
      WHERE token_hash = @hash AND used_at IS NULL AND expires_at > @at RETURNING *`),
    attach: db.prepare('UPDATE portal_key_requests SET key_id = ? WHERE id = ?'),
    deactivate: db.prepare(`UPDATE api_keys SET status = 'deactivated', deactivated_at = @at
      WHERE plan = 'free' AND status = 'active' AND last_used_at IS NULL AND created_at < @before
        AND name NOT IN (SELECT value FROM json_each(@except)) RETURNING id`),
  };

  const consumeTx = db.transaction((hash: string, at: string): ConsumeOutcome => {
    const row = q.consume.get({ hash, at }) as Row | undefined;
    if (row) return { ok: true, request: toRequest(row) };
    const existing = q.byHash.get(hash) as Row | undefined;
    if (!existing) return { ok: false, reason: 'unknown' };
    return { ok: false, reason: existing.used_at ? 'used' : 'expired' };
  });

  return {
    async createRequest(r) {
      q.insert.run(r);
    },
    async findRequest(tokenHash) {
      const r = q.byHash.get(tokenHash) as Row | undefined;
      return r ? toRequest(r) : null;
    },
    async consumeRequest(tokenHash, at) {
      return consumeTx.immediate(tokenHash, at);
    },
    async attachKey(requestId, keyId) {
      q.attach.run(keyId, requestId);
    },
    async deactivateUnused(createdBefore, at, exceptNames) {
      return (q.deactivate.all({ before: createdBefore, at, except: JSON.stringify(exceptNames) }) as { id: string }[]).map((r) => r.id);
    },
  };
}
