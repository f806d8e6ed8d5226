/** Sheet write-backs, dataset refresh schedules and spreadsheet bindings in PostgreSQL. */
import {
  SCHEDULE_RUNS_KEPT,
  type NewWriteback,
  type ScheduleRunRecord,
  type ScheduleStore,
  type SheetBindingStore,
  type WritebackQueueEntry,
  type WritebackStore,
} from '../types/sheets.js';
import { all, changed, one, tx, type Db, type Tx } from './db.js';
import { toBinding, toWriteback, toSchedule } from './rows.js';

/** Queues a write-back; run inside the transaction that finishes the job or batch whose results it carries. */
export async function enqueueWriteback(c: Tx, w: NewWriteback | null | undefined): Promise<void> {
  if (!w) return;
  await c.query(
    `INSERT INTO sheet_writebacks (id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, next_attempt_at, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $9)`,
    [w.id, w.key_id, w.subject_type, w.subject_id, w.kind, w.spreadsheet_id, w.target, w.rows, w.created_at],
  );
}

/** Write-backs that could be leased at $1: due, lease free or run out, and no write-back of their spreadsheet under a live lease. */
const LEASABLE = `status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
  AND spreadsheet_id NOT IN (SELECT spreadsheet_id FROM sheet_writebacks WHERE status = 'pending' AND lease_until >= $1)`;

export function sheetStores(db: Db): { writebacks: WritebackStore; schedules: ScheduleStore; sheetBindings: SheetBindingStore } {
  return {
    writebacks: {
      async leaseSpreadsheet(owner, now, until, keyId) {
        return tx(db, async (c) => {
          // One spreadsheet's write-backs go out together and in order, so leasing is serialised
          // across instances (it is one short statement pair per poll); row locks alone would let
          // two instances split one spreadsheet's rows between them.
          await c.query("SELECT pg_advisory_xact_lock(hashtext('covercheck.writeback-lease'))");
          const first = await one<{ spreadsheet_id: string }>(
            c,
            `SELECT spreadsheet_id FROM sheet_writebacks WHERE ${LEASABLE} AND ($2::text IS NULL OR key_id = $2)
             ORDER BY next_attempt_at, id COLLATE "C" LIMIT 1`,
            [now, keyId ?? null],
          );
          if (!first) return [];
          const rows = await all(
            c,
            `WITH leased AS (
               UPDATE sheet_writebacks SET lease_owner = $4, lease_until = $3, attempts = attempts + 1
               WHERE spreadsheet_id = $1 AND status = 'pending' AND next_attempt_at <= $2 AND (lease_until IS NULL OR lease_until < $2) RETURNING *)
             SELECT * FROM leased ORDER BY next_attempt_at, id COLLATE "C"`,
            [first.spreadsheet_id, now, until, owner],
          );
          return rows.map(toWriteback);
        });
      },
      async dueKeys(now) {
        return all<WritebackQueueEntry>(
          db,
          `SELECT key_id, min(next_attempt_at) AS oldest FROM sheet_writebacks WHERE ${LEASABLE} GROUP BY key_id ORDER BY oldest, key_id COLLATE "C"`,
          [now],
        );
      },
      async renew(owner, until) {
        const r = await db.query("UPDATE sheet_writebacks SET lease_until = $2 WHERE lease_owner = $1 AND status = 'pending'", [
          owner,
          until,
        ]);
        return r.rowCount ?? 0;
      },
      async finish(id, owner, o, at) {
        const r = await db.query(
          `UPDATE sheet_writebacks SET status = $2, written = $3, missing = $4, last_error = $5, next_attempt_at = coalesce($6, next_attempt_at), lease_owner = NULL, lease_until = NULL, updated_at = $7
           WHERE id = $1 AND lease_owner = $8 AND status = 'pending'`,
          [id, o.status, o.written, JSON.stringify(o.missing), o.error, o.next_attempt_at, at, owner],
        );
        return (r.rowCount ?? 0) > 0;
      },
      async forSubject(subjectId) {
        const r = await one(db, 'SELECT * FROM sheet_writebacks WHERE subject_id = $1 ORDER BY created_at DESC LIMIT 1', [subjectId]);
        return r ? toWriteback(r) : null;
      },
    },
    schedules: {
      async create(s) {
        await db.query(
          `INSERT INTO sheet_schedules (id, key_id, dataset, spreadsheet_id, sheet_name, cadence, point_limit, output_mode, next_run_at, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [s.id, s.key_id, s.dataset, s.spreadsheet_id, s.sheet_name, s.cadence, s.point_limit, s.output_mode, s.next_run_at, s.created_at],
        );
      },
      async get(id) {
        const r = await one(db, 'SELECT * FROM sheet_schedules WHERE id = $1', [id]);
        return r ? toSchedule(r) : null;
      },
      async list(keyId) {
        return (await all(db, 'SELECT * FROM sheet_schedules WHERE key_id = $1 ORDER BY created_at, id', [keyId])).map(toSchedule);
      },
      async delete(id, keyId) {
        return (await changed(db, 'DELETE FROM sheet_schedules WHERE id = $1 AND key_id = $2', [id, keyId])) > 0;
      },
      async leaseDue(now, until) {
        return tx(db, async (c) => {
          const r = await one(
            c,
            `UPDATE sheet_schedules SET running_until = $2
             WHERE id = (SELECT id FROM sheet_schedules WHERE next_run_at <= $1 AND (running_until IS NULL OR running_until < $1) AND paused_at IS NULL
                         ORDER BY next_run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
             RETURNING *`,
            [now, until],
          );
          if (!r) return null;
          // A run still marked running was cut off (its lease expired): say so in the history.
          await c.query(
            `UPDATE sheet_schedule_runs SET status = 'failed', finished_at = $1, error = 'interrupted: the connector stopped during this run' WHERE schedule_id = $2 AND status = 'running'`,
            [now, r.id],
          );
          await c.query("INSERT INTO sheet_schedule_runs (schedule_id, started_at, status) VALUES ($1, $2, 'running')", [r.id, now]);
          return toSchedule(r);
        });
      },
      async renewRun(id, startedAt, until) {
        const r = await db.query(
          `UPDATE sheet_schedules SET running_until = $3
           WHERE id = $1 AND EXISTS (SELECT 1 FROM sheet_schedule_runs WHERE schedule_id = $1 AND started_at = $2 AND status = 'running')`,
          [id, startedAt, until],
        );
        return (r.rowCount ?? 0) > 0;
      },
      async finishRun(id, startedAt, run, next) {
        return tx(db, async (c) => {
          const ended = await c.query(
            "UPDATE sheet_schedule_runs SET finished_at = $3, status = $4, rows = $5, error = $6 WHERE schedule_id = $1 AND started_at = $2 AND status = 'running'",
            [id, startedAt, run.finished_at, run.status, run.rows, run.error],
          );
          if ((ended.rowCount ?? 0) === 0) return null;
          const r = await one<{ failures_in_row: number }>(
            c,
            `UPDATE sheet_schedules SET next_run_at = $1, running_until = NULL,
               failures_in_row = CASE WHEN $3 THEN failures_in_row + 1 ELSE 0 END WHERE id = $2 RETURNING failures_in_row`,
            [next, id, run.status === 'failed'],
          );
          // The run history is bounded: everything older than the SCHEDULE_RUNS_KEPT-th latest run goes.
          await c.query(
            `DELETE FROM sheet_schedule_runs WHERE schedule_id = $1 AND started_at <
               (SELECT started_at FROM sheet_schedule_runs WHERE schedule_id = $1 ORDER BY started_at DESC LIMIT 1 OFFSET $2)`,
            [id, SCHEDULE_RUNS_KEPT - 1],
          );
          return r ? Number(r.failures_in_row) : 0;
        });
      },
      async pause(id, reason, at) {
        await db.query('UPDATE sheet_schedules SET paused_at = $1, paused_reason = $2 WHERE id = $3', [at, reason, id]);
      },
      async resume(id, keyId, next) {
        return (
          (await changed(
            db,
            'UPDATE sheet_schedules SET paused_at = NULL, paused_reason = NULL, failures_in_row = 0, next_run_at = $1 WHERE id = $2 AND key_id = $3',
            [next, id, keyId],
          )) > 0
        );
      },
      async runs(id, limit) {
        return all<ScheduleRunRecord>(
          db,
          'SELECT started_at, finished_at, status, rows, error FROM sheet_schedule_runs WHERE schedule_id = $1 ORDER BY started_at DESC LIMIT $2',
          [id, limit],
        );
      },
    },
    sheetBindings: {
      async issue(b) {
        const r = await one(
          db,
          `INSERT INTO sheet_bindings (id, key_id, spreadsheet_id, token_hash, status, created_at) VALUES ($1, $2, $3, $4, 'pending', $5)
           ON CONFLICT (key_id, spreadsheet_id) DO UPDATE SET token_hash = excluded.token_hash, status = 'pending', verified_at = NULL, checked_at = NULL RETURNING *`,
          [b.id, b.key_id, b.spreadsheet_id, b.token_hash, b.created_at],
        );
        return toBinding(r!);
      },
      async get(id) {
        const r = await one(db, 'SELECT * FROM sheet_bindings WHERE id = $1', [id]);
        return r ? toBinding(r) : null;
      },
      async find(keyId, spreadsheetId) {
        const r = await one(db, 'SELECT * FROM sheet_bindings WHERE key_id = $1 AND spreadsheet_id = $2', [keyId, spreadsheetId]);
        return r ? toBinding(r) : null;
      },
      async list(keyId) {
        return (await all(db, 'SELECT * FROM sheet_bindings WHERE key_id = $1 ORDER BY created_at, id COLLATE "C"', [keyId])).map(
          toBinding,
        );
      },
      async recordCheck(id, tokenHash, found, checkedAt) {
        const n = await changed(
          db,
          `UPDATE sheet_bindings SET status = CASE WHEN $3 THEN 'active' ELSE 'pending' END, verified_at = CASE WHEN $3 THEN $4::timestamptz ELSE verified_at END, checked_at = $4
           WHERE id = $1 AND token_hash = $2 AND (checked_at IS NULL OR checked_at <= $4)`,
          [id, tokenHash, found, checkedAt],
        );
        return n > 0;
      },
      async delete(id, keyId) {
        return (await changed(db, 'DELETE FROM sheet_bindings WHERE id = $1 AND key_id = $2', [id, keyId])) > 0;
      },
    },
  };
}
