/** The webhook outbox in PostgreSQL: deliveries queued with finished work, leased with FOR UPDATE SKIP LOCKED, attempts logged. */
import type { AttemptRecord, NewOutbox, OutboxStore } from '../types/outbox.js';
import { all, one, tx, type Db, type Row, type Tx } from './db.js';
import { str, toOutbox } from './rows.js';

/** Queues a delivery; run inside the transaction that finishes the work it reports. */
export async function enqueueDelivery(c: Tx, o: NewOutbox | null): Promise<void> {
  if (!o) return;
  await c.query(
    `INSERT INTO webhook_outbox (id, key_id, url, event_type, subject_id, body, next_attempt_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)`,
    [o.id, o.key_id, o.url, o.event_type, o.subject_id, o.body, o.created_at],
  );
}

export function outboxStore(db: Db): OutboxStore {
  return {
    async lease(now, until) {
      const r = await one(
        db,
        `UPDATE webhook_outbox SET lease_until = $2
         WHERE id = (SELECT id FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
                     ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [now, until],
      );
      return r ? toOutbox(r) : null;
    },
    async recordAttempt(id, a, next) {
      await tx(db, async (c) => {
        // The delivery may have gone with its job's erasure while the attempt was in flight; the lock keeps it until this commits.
        if (!(await one(c, 'SELECT 1 FROM webhook_outbox WHERE id = $1 FOR UPDATE', [id]))) return;
        await c.query(
          'INSERT INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, attempt) DO NOTHING',
          [id, a.attempt, a.at, a.status, a.error, a.duration_ms],
        );
        await c.query(
          `UPDATE webhook_outbox SET status = $2, attempts = $3, next_attempt_at = coalesce($4, next_attempt_at), lease_until = NULL,
             last_status = $5, last_error = $6, delivered_at = CASE WHEN $2 = 'delivered' THEN $7 ELSE delivered_at END WHERE id = $1`,
          [id, next.status, a.attempt, next.next_attempt_at, a.status, a.error, a.at],
        );
      });
    },
    async get(id) {
      const r = await one(db, 'SELECT * FROM webhook_outbox WHERE id = $1', [id]);
      return r ? toOutbox(r) : null;
    },
    async list(keyId, page) {
      const rows = (
        await all(db, 'SELECT * FROM webhook_outbox WHERE key_id = $1 ORDER BY created_at DESC, id LIMIT $2 OFFSET $3', [
          keyId,
          page.limit,
          page.offset,
        ])
      ).map(toOutbox);
      const attempts = await all<Row>(
        db,
        'SELECT delivery_id, attempt, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, attempt',
        [rows.map((r) => r.id)],
      );
      const byDelivery = new Map<string, AttemptRecord[]>();
      for (const a of attempts) {
        const list = byDelivery.get(a.delivery_id as string) ?? [];
        list.push({
          attempt: a.attempt as number,
          at: a.at as string,
          status: (a.status as number | null) ?? null,
          error: str(a.error),
          duration_ms: a.duration_ms as number,
        });
        byDelivery.set(a.delivery_id as string, list);
      }
      const total = (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM webhook_outbox WHERE key_id = $1', [keyId]))!.n;
      return { items: rows.map((r) => ({ ...r, attempt_log: byDelivery.get(r.id) ?? [] })), total };
    },
    async forSubject(subjectId) {
      return (await all(db, 'SELECT * FROM webhook_outbox WHERE subject_id = $1 ORDER BY created_at, id', [subjectId])).map(toOutbox);
    },
  };
}
