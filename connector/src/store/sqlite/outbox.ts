/** The webhook outbox in SQLite: deliveries queued with finished work, leased one at a time, attempts logged. */
import type { AttemptRecord, NewOutbox, OutboxRecord, OutboxStore } from '../types/outbox.js';
import type { Db } from './db.js';
import { toOutbox, type Row } from './rows.js';

/** Queues a delivery; run inside the transaction that finishes the work it reports. */
export function deliveryEnqueuer(db: Db): (o: NewOutbox | null) => void {
  const insert = db.prepare(`INSERT INTO webhook_outbox (id, key_id, url, event_type, subject_id, body, next_attempt_at, created_at)
      VALUES (@id, @key_id, @url, @event_type, @subject_id, @body, @created_at, @created_at)`);
  return (o) => {
    if (o) insert.run(o);
  };
}

export function outboxStore(db: Db): OutboxStore {
  const q = {
    lease: db.prepare(`UPDATE webhook_outbox SET lease_until = @until
      WHERE id = (SELECT id FROM webhook_outbox WHERE status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now)
                  ORDER BY next_attempt_at, id LIMIT 1)
      RETURNING *`),
    get: db.prepare('SELECT * FROM webhook_outbox WHERE id = ?'),
    update:
      db.prepare(`UPDATE webhook_outbox SET status = @status, attempts = @attempt, next_attempt_at = coalesce(@next, next_attempt_at), lease_until = NULL,
      last_status = @last_status, last_error = @last_error, delivered_at = CASE WHEN @status = 'delivered' THEN @at ELSE delivered_at END WHERE id = @id`),
    // Only while the delivery exists: its job may have been erased while the attempt was in flight (store/types/retention.ts).
    attemptInsert: db.prepare(
      `INSERT OR IGNORE INTO webhook_attempts (delivery_id, attempt, at, status, error, duration_ms)
       SELECT @id, @attempt, @at, @status, @error, @duration_ms WHERE EXISTS (SELECT 1 FROM webhook_outbox WHERE id = @id)`,
    ),
    attemptsGet: db.prepare('SELECT attempt, at, status, error, duration_ms FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt'),
    list: db.prepare('SELECT * FROM webhook_outbox WHERE key_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?'),
    count: db.prepare('SELECT count(*) AS n FROM webhook_outbox WHERE key_id = ?'),
    forSubject: db.prepare('SELECT * FROM webhook_outbox WHERE subject_id = ? ORDER BY created_at, id'),
  };

  // The lease runs in an immediate transaction so two processes can't claim the same row.
  const lease = db.transaction((p: { now: string; until: string }) => q.lease.get(p) as Row | undefined);

  const recordAttempt = db.transaction(
    (id: string, a: AttemptRecord, next: { status: OutboxRecord['status']; next_attempt_at: string | null }) => {
      q.attemptInsert.run({ id, attempt: a.attempt, at: a.at, status: a.status, error: a.error, duration_ms: a.duration_ms });
      q.update.run({
        id,
        status: next.status,
        attempt: a.attempt,
        next: next.next_attempt_at,
        last_status: a.status,
        last_error: a.error,
        at: a.at,
      });
    },
  );

  return {
    async lease(now, until) {
      const r = lease.immediate({ now, until });
      return r ? toOutbox(r) : null;
    },
    async recordAttempt(id, attempt, next) {
      recordAttempt.immediate(id, attempt, next);
    },
    async get(id) {
      const r = q.get.get(id) as Row | undefined;
      return r ? toOutbox(r) : null;
    },
    async list(keyId, page) {
      const rows = (q.list.all(keyId, page.limit, page.offset) as Row[]).map(toOutbox);
      return {
        items: rows.map((r) => ({ ...r, attempt_log: q.attemptsGet.all(r.id) as AttemptRecord[] })),
        total: (q.count.get(keyId) as { n: number }).n,
      };
    },
    async forSubject(subjectId) {
      return (q.forSubject.all(subjectId) as Row[]).map(toOutbox);
    },
  };
}
