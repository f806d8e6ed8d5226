/** Key portal storage in PostgreSQL: e-mail activation requests and the unused-key sweep. */
import type { ConsumeOutcome, PortalStore } from '../types/portal.js';
import { all, one, type Db } from './db.js';
import { toRequest } from './rows.js';

export function portalStore(db: Db): PortalStore {
  return {
    async createRequest(r) {
      await db.query(
        'INSERT INTO portal_key_requests (id, email, mode, token_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)',
        [r.id, r.email, r.mode, r.token_hash, r.created_at, r.expires_at],
      );
    },
    async findRequest(tokenHash) {
      const r = await one(db, 'SELECT * FROM portal_key_requests WHERE token_hash = $1', [tokenHash]);
      return r ? toRequest(r) : null;
    },
    async consumeRequest(tokenHash, at): Promise<ConsumeOutcome> {
      // One conditional UPDATE: of two concurrent activations, the second waits for the row lock,
      // re-checks `used_at IS NULL` and matches nothing.
      const row = await one(
        db,
        'UPDATE portal_key_requests SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING *',
        [tokenHash, at],
      );
      if (row) return { ok: true, request: toRequest(row) };
      const existing = await one(db, 'SELECT used_at FROM portal_key_requests WHERE token_hash = $1', [tokenHash]);
      if (!existing) return { ok: false, reason: 'unknown' };
      return { ok: false, reason: existing.used_at ? 'used' : 'expired' };
    },
    async attachKey(requestId, keyId) {
      await db.query('UPDATE portal_key_requests SET key_id = $1 WHERE id = $2', [keyId, requestId]);
    },
    async deactivateUnused(createdBefore, at, exceptNames) {
      const rows = await all<{ id: string }>(
        db,
        `UPDATE api_keys SET status = 'deactivated', deactivated_at = $2
         WHERE plan = 'free' AND status = 'active' AND last_used_at IS NULL AND created_at < $1 AND NOT (name = ANY($3::text[])) RETURNING id`,
        [createdBefore, at, exceptNames],
      );
      return rows.map((r) => r.id);
    },
  };
}
