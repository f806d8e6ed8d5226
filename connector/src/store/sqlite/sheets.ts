/** Sheet write-backs, dataset refresh schedules and spreadsheet bindings in SQLite. */
import {
  SCHEDULE_RUNS_KEPT,
  type NewWriteback,
  ScheduleRecord,
  ScheduleRunRecord,
  ScheduleStore,
  SheetBindingStore,
  WritebackStore,
  type WritebackQueueEntry,
} from '../types/sheets.js';
import type { Db } from './db.js';
import { toBinding, toWriteback, type Row } from './rows.js';

/** Queues a write-back; run inside the transaction that finishes the job or batch whose results it carries. */
export function writebackEnqueuer(db: Db): (w: NewWriteback | null | undefined) => void {
  const insert =
    db.prepare(`INSERT INTO sheet_writebacks (id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, next_attempt_at, created_at, updated_at)
      VALUES (@id, @key_id, @subject_type, @subject_id, @kind, @spreadsheet_id, @target, @rows, @created_at, @created_at, @created_at)`);
  return (w) => {
    if (w) insert.run(w);
  };
}

export function sheetStores(db: Db): { writebacks: WritebackStore; schedules: ScheduleStore; sheetBindings: SheetBindingStore } {
  // Write-backs that could be leased now: due, lease free or run out, and no write-back of their spreadsheet under a live lease.
  const LEASABLE = `status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now)
      AND spreadsheet_id NOT IN (SELECT spreadsheet_id FROM sheet_writebacks WHERE status = 'pending' AND lease_until >= @now)`;
  const q = {
    firstDue: db.prepare(`SELECT spreadsheet_id FROM sheet_writebacks WHERE ${LEASABLE} AND (@key_id IS NULL OR key_id = @key_id)
      ORDER BY next_attempt_at, id LIMIT 1`),
    dueKeys: db.prepare(
      `SELECT key_id, min(next_attempt_at) AS oldest FROM sheet_writebacks WHERE ${LEASABLE} GROUP BY key_id ORDER BY oldest, key_id`,
    ),
    leaseSheet: db.prepare(`UPDATE sheet_writebacks SET lease_owner = @owner, lease_until = @until, attempts = attempts + 1
      WHERE spreadsheet_id = @sid AND status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now) RETURNING *`),
    finish: db.prepare(`UPDATE sheet_writebacks SET status = @status, written = @written, missing = @missing, last_error = @error,
      next_attempt_at = coalesce(@next, next_attempt_at), lease_owner = NULL, lease_until = NULL, updated_at = @at
      WHERE id = @id AND lease_owner = @owner AND status = 'pending'`),
    renew: db.prepare("UPDATE sheet_writebacks SET lease_until = @until WHERE lease_owner = @owner AND status = 'pending'"),
    forSubject: db.prepare('SELECT * FROM sheet_writebacks WHERE subject_id = ? ORDER BY created_at DESC LIMIT 1'),
    schedInsert:
      db.prepare(`INSERT INTO sheet_schedules (id, key_id, dataset, spreadsheet_id, sheet_name, cadence, point_limit, output_mode, next_run_at, created_at)
      VALUES (@id, @key_id, @dataset, @spreadsheet_id, @sheet_name, @cadence, @point_limit, @output_mode, @next_run_at, @created_at)`),
    schedGet: db.prepare('SELECT * FROM sheet_schedules WHERE id = ?'),
    schedList: db.prepare('SELECT * FROM sheet_schedules WHERE key_id = ? ORDER BY created_at, id'),
    schedDelete: db.prepare('DELETE FROM sheet_schedules WHERE id = ? AND key_id = ?'),
    schedLease: db.prepare(`UPDATE sheet_schedules SET running_until = @until
      WHERE id = (SELECT id FROM sheet_schedules WHERE next_run_at <= @now AND (running_until IS NULL OR running_until < @now) AND paused_at IS NULL ORDER BY next_run_at, id LIMIT 1)
      RETURNING *`),
    runInsert: db.prepare("INSERT INTO sheet_schedule_runs (schedule_id, started_at, status) VALUES (?, ?, 'running')"),
    runRenew: db.prepare(`UPDATE sheet_schedules SET running_until = @until
      WHERE id = @id AND EXISTS (SELECT 1 FROM sheet_schedule_runs WHERE schedule_id = @id AND started_at = @started_at AND status = 'running')`),
    runsInterrupted:
      db.prepare(`UPDATE sheet_schedule_runs SET status = 'failed', finished_at = ?, error = 'interrupted: the connector stopped during this run'
      WHERE schedule_id = ? AND status = 'running'`),
    runFinish: db.prepare(`UPDATE sheet_schedule_runs SET finished_at = @finished_at, status = @status, rows = @rows, error = @error
      WHERE schedule_id = @id AND started_at = @started_at AND status = 'running'`),
    schedNext: db.prepare(`UPDATE sheet_schedules SET next_run_at = @next, running_until = NULL,
      failures_in_row = CASE WHEN @failed THEN failures_in_row + 1 ELSE 0 END WHERE id = @id RETURNING failures_in_row`),
    schedPause: db.prepare('UPDATE sheet_schedules SET paused_at = ?, paused_reason = ? WHERE id = ?'),
    schedResume: db.prepare(
      'UPDATE sheet_schedules SET paused_at = NULL, paused_reason = NULL, failures_in_row = 0, next_run_at = ? WHERE id = ? AND key_id = ?',
    ),
    // The run history is bounded: everything older than the SCHEDULE_RUNS_KEPT-th latest run goes.
    runsPrune: db.prepare(`DELETE FROM sheet_schedule_runs WHERE schedule_id = @id AND started_at <
      (SELECT started_at FROM sheet_schedule_runs WHERE schedule_id = @id ORDER BY started_at DESC LIMIT 1 OFFSET @keep)`),
    runs: db.prepare(
      'SELECT started_at, finished_at, status, rows, error FROM sheet_schedule_runs WHERE schedule_id = ? ORDER BY started_at DESC LIMIT ?',
    ),
    bindingIssue:
      db.prepare(`INSERT INTO sheet_bindings (id, key_id, spreadsheet_id, token_hash, status, created_at) VALUES (@id, @key_id, @spreadsheet_id, @token_hash, 'pending', @created_at)
      ON CONFLICT (key_id, spreadsheet_id) DO UPDATE SET token_hash = excluded.token_hash, status = 'pending', verified_at = NULL, checked_at = NULL RETURNING *`),
    bindingGet: db.prepare('SELECT * FROM sheet_bindings WHERE id = ?'),
    bindingFind: db.prepare('SELECT * FROM sheet_bindings WHERE key_id = ? AND spreadsheet_id = ?'),
    bindingList: db.prepare('SELECT * FROM sheet_bindings WHERE key_id = ? ORDER BY created_at, id'),
    bindingCheck: db.prepare(`UPDATE sheet_bindings SET status = CASE WHEN @found THEN 'active' ELSE 'pending' END,
      verified_at = CASE WHEN @found THEN @at ELSE verified_at END, checked_at = @at
      WHERE id = @id AND token_hash = @hash AND (checked_at IS NULL OR checked_at <= @at)`),
    bindingDelete: db.prepare('DELETE FROM sheet_bindings WHERE id = ? AND key_id = ?'),
  };

  const leaseSheet = db.transaction((owner: string, now: string, until: string, keyId: string | null) => {
    const first = q.firstDue.get({ now, key_id: keyId }) as { spreadsheet_id: string } | undefined;
    if (!first) return [];
    return (q.leaseSheet.all({ sid: first.spreadsheet_id, owner, now, until }) as Row[]).map(toWriteback);
  });
  const leaseSchedule = db.transaction((now: string, until: string) => {
    const r = q.schedLease.get({ now, until }) as ScheduleRecord | undefined;
    if (r) {
      // A run still marked running was cut off (its lease expired): say so in the history.
      q.runsInterrupted.run(now, r.id);
      q.runInsert.run(r.id, now);
    }
    return r ?? null;
  });
  const finishRun = db.transaction((id: string, startedAt: string, run: Omit<ScheduleRunRecord, 'started_at'>, next: string) => {
    if (q.runFinish.run({ id, started_at: startedAt, ...run }).changes === 0) return null;
    const r = q.schedNext.get({ next, id, failed: run.status === 'failed' ? 1 : 0 }) as { failures_in_row: number } | undefined;
    q.runsPrune.run({ id, keep: SCHEDULE_RUNS_KEPT - 1 });
    return r?.failures_in_row ?? 0;
  });

  return {
    writebacks: {
      async leaseSpreadsheet(owner, now, until, keyId) {
        return leaseSheet.immediate(owner, now, until, keyId ?? null);
      },
      async dueKeys(now) {
        return q.dueKeys.all({ now }) as WritebackQueueEntry[];
      },
      async renew(owner, until) {
        return q.renew.run({ owner, until }).changes;
      },
      async finish(id, owner, o, at) {
        return (
          q.finish.run({
            id,
            owner,
            status: o.status,
            written: o.written,
            missing: JSON.stringify(o.missing),
            error: o.error,
            next: o.next_attempt_at,
            at,
          }).changes > 0
        );
      },
      async forSubject(subjectId) {
        const r = q.forSubject.get(subjectId) as Row | undefined;
        return r ? toWriteback(r) : null;
      },
    },
    schedules: {
      async create(s) {
        q.schedInsert.run(s);
      },
      async get(id) {
        return (q.schedGet.get(id) as ScheduleRecord | undefined) ?? null;
      },
      async list(keyId) {
        return q.schedList.all(keyId) as ScheduleRecord[];
      },
      async delete(id, keyId) {
        return q.schedDelete.run(id, keyId).changes > 0;
      },
      async leaseDue(now, until) {
        return leaseSchedule.immediate(now, until);
      },
      async renewRun(id, startedAt, until) {
        return q.runRenew.run({ id, started_at: startedAt, until }).changes > 0;
      },
      async finishRun(id, startedAt, run, next) {
        return finishRun.immediate(id, startedAt, run, next);
      },
      async pause(id, reason, at) {
        q.schedPause.run(at, reason, id);
      },
      async resume(id, keyId, next) {
        return q.schedResume.run(next, id, keyId).changes > 0;
      },
      async runs(id, limit) {
        return q.runs.all(id, limit) as ScheduleRunRecord[];
      },
    },
    sheetBindings: {
      async issue(b) {
        return toBinding(q.bindingIssue.get(b) as Row);
      },
      async get(id) {
        const r = q.bindingGet.get(id) as Row | undefined;
        return r ? toBinding(r) : null;
      },
      async find(keyId, spreadsheetId) {
        const r = q.bindingFind.get(keyId, spreadsheetId) as Row | undefined;
        return r ? toBinding(r) : null;
      },
      async list(keyId) {
        return (q.bindingList.all(keyId) as Row[]).map(toBinding);
      },
      async recordCheck(id, tokenHash, found, checkedAt) {
        return q.bindingCheck.run({ id, hash: tokenHash, found: found ? 1 : 0, at: checkedAt }).changes > 0;
      },
      async delete(id, keyId) {
        return q.bindingDelete.run(id, keyId).changes > 0;
      },
    },
  };
}
