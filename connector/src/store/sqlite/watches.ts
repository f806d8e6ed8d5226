/**
 * Watches in SQLite (store/types/watches.ts). Leases, chunk commits and run closes are immediate
 * transactions guarded by the watch's lease owner and open run, so a watch is run by one holder at a time
 * and each policy's result, credit settlement and change is written once.
 */
import type { CreditOps } from './credit-ops.js';
import type { Db } from './db.js';
import { idempotentCompleter } from './idempotency.js';
import { deliveryEnqueuer } from './outbox.js';
import type { Row } from './rows.js';
import { writebackEnqueuer } from './sheets.js';
import {
  WATCH_RUNS_KEPT,
  type WatchChangeRecord,
  type WatchItemRecord,
  type WatchMailRecord,
  type WatchProbeItem,
  type WatchRecord,
  type WatchRunRecord,
  type WatchStore,
} from '../types/watches.js';

const toWatch = (r: Row): WatchRecord => ({ ...(r as unknown as WatchRecord), notify_unchanged: r.notify_unchanged === 1 });
const toItem = (r: Row): WatchItemRecord => ({ ...(r as unknown as WatchItemRecord), recheck: r.recheck === 1 });
const toRun = (r: Row): WatchRunRecord => {
  const { trigger_kind, ...rest } = r as Row & { trigger_kind: WatchRunRecord['trigger'] };
  return { ...(rest as unknown as Omit<WatchRunRecord, 'trigger'>), trigger: trigger_kind };
};
const CHANGE_COLS = 'run_id, idx, policy_number, before_state AS before, after_state AS after, reasons, why';
const MAIL_COLS =
  'id, key_id, watch_id, run_id, to_address, subject, text, html, status, attempts, next_attempt_at, last_error, created_at, sent_at';

/**
 * Removes runs and what went with them: changes, e-mails, webhook deliveries with their attempts, write-backs.
 * Called inside a transaction (closing a run, deleting a watch, the retention sweep).
 */
export function runDropper(db: Db): (ids: string[]) => void {
  const drops = [
    'DELETE FROM watch_changes WHERE run_id = ?',
    'DELETE FROM watch_mails WHERE run_id = ?',
    'DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_outbox WHERE subject_id = ?)',
    'DELETE FROM webhook_outbox WHERE subject_id = ?',
    'DELETE FROM sheet_writebacks WHERE subject_id = ?',
    'DELETE FROM watch_runs WHERE id = ?',
  ].map((sql) => db.prepare(sql));
  return (ids) => {
    for (const id of ids) for (const s of drops) s.run(id);
  };
}

export function watchStore(db: Db, credits: CreditOps): WatchStore {
  const q = {
    insert: db.prepare(`INSERT INTO watches (id, key_id, cadence, expiry_window_days, webhook_url, email_to, sheet_target, notify_unchanged,
        policy_count, next_run_at, created_at)
      VALUES (@id, @key_id, @cadence, @expiry_window_days, @webhook_url, @email_to, @sheet_target, @notify_unchanged, @policy_count, @next_run_at, @created_at)`),
    itemInsert: db.prepare('INSERT INTO watch_items (watch_id, idx, policy_number, input) VALUES (?, ?, ?, ?)'),
    get: db.prepare('SELECT * FROM watches WHERE id = ?'),
    list: db.prepare('SELECT * FROM watches WHERE key_id = ? ORDER BY created_at, id'),
    pause: db.prepare('UPDATE watches SET paused_at = coalesce(paused_at, ?) WHERE id = ? AND key_id = ?'),
    resume: db.prepare('UPDATE watches SET paused_at = NULL WHERE id = ? AND key_id = ?'),
    owned: db.prepare('SELECT 1 FROM watches WHERE id = ? AND key_id = ?'),
    lease: db.prepare(`UPDATE watches SET lease_owner = @owner, lease_until = @until
      WHERE id = (SELECT id FROM watches WHERE paused_at IS NULL AND (lease_until IS NULL OR lease_until < @now)
          AND (run_id IS NOT NULL OR next_run_at <= @now OR recheck_at <= @now)
        ORDER BY min(next_run_at, coalesce(recheck_at, next_run_at)), id LIMIT 1)
      RETURNING *`),
    renew: db.prepare('UPDATE watches SET lease_until = ? WHERE id = ? AND lease_owner = ?'),
    release: db.prepare('UPDATE watches SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?'),
    held: db.prepare('SELECT key_id, run_id FROM watches WHERE id = ? AND lease_owner = ?'),
    takeAll: db.prepare('UPDATE watch_items SET run_id = @run, recheck = 0 WHERE watch_id = @watch'),
    takeMarked: db.prepare('UPDATE watch_items SET run_id = @run, recheck = 0 WHERE watch_id = @watch AND recheck = 1'),
    runInsert: db.prepare(`INSERT INTO watch_runs (id, watch_id, trigger_kind, status, started_at, total)
      VALUES (@id, @watch_id, @trigger, 'running', @at, @total)`),
    setRun: db.prepare('UPDATE watches SET run_id = ? WHERE id = ?'),
    pending: db.prepare('SELECT * FROM watch_items WHERE watch_id = ? AND run_id = ? ORDER BY idx LIMIT ?'),
    markReserved: db.prepare('UPDATE watch_items SET reserved = 1 WHERE watch_id = ? AND idx = ? AND run_id = ? AND reserved = 0'),
    itemCommit:
      db.prepare(`UPDATE watch_items SET last_state = coalesce(@state, last_state), probe = coalesce(@probe, probe), run_id = NULL, reserved = 0
      WHERE watch_id = @watch AND idx = @idx AND run_id = @run`),
    itemReserved: db.prepare('SELECT reserved, policy_number FROM watch_items WHERE watch_id = ? AND idx = ? AND run_id = ?'),
    changeInsert: db.prepare(`INSERT INTO watch_changes (run_id, idx, policy_number, before_state, after_state, reasons, why)
      VALUES (@run_id, @idx, @policy_number, @before, @after, @reasons, @why)`),
    runProgress: db.prepare(
      'UPDATE watch_runs SET checked = checked + @checked, changed = changed + @changed, credits = credits + @credits WHERE id = @id',
    ),
    changes: db.prepare(`SELECT ${CHANGE_COLS} FROM watch_changes WHERE run_id = ? ORDER BY idx LIMIT ?`),
    leftReserved: db.prepare('SELECT coalesce(sum(reserved), 0) AS n FROM watch_items WHERE watch_id = ? AND run_id = ?'),
    leave: db.prepare('UPDATE watch_items SET run_id = NULL, reserved = 0 WHERE watch_id = ? AND run_id = ?'),
    runClose: db.prepare(
      "UPDATE watch_runs SET status = @status, stop_reason = @reason, finished_at = @at WHERE id = @id AND status = 'running'",
    ),
    watchClose:
      db.prepare(`UPDATE watches SET run_id = NULL, lease_owner = NULL, lease_until = NULL, next_run_at = coalesce(@next, next_run_at),
        recheck_at = CASE WHEN EXISTS (SELECT 1 FROM watch_items WHERE watch_id = @id AND recheck = 1) THEN coalesce(recheck_at, @at) ELSE NULL END
      WHERE id = @id`),
    mailInsert:
      db.prepare(`INSERT INTO watch_mails (id, key_id, watch_id, run_id, to_address, subject, text, html, next_attempt_at, created_at)
      VALUES (@id, @key_id, @watch_id, @run_id, @to_address, @subject, @text, @html, @created_at, @created_at)`),
    // Runs beyond the kept ones, oldest first, with everything that went with them.
    oldRuns: db.prepare('SELECT id FROM watch_runs WHERE watch_id = ? ORDER BY started_at DESC, id DESC LIMIT -1 OFFSET ?'),
    run: db.prepare('SELECT * FROM watch_runs WHERE id = ?'),
    lastRun: db.prepare('SELECT * FROM watch_runs WHERE watch_id = ? ORDER BY started_at DESC, id DESC LIMIT 1'),
    runsOf: db.prepare('SELECT id FROM watch_runs WHERE watch_id = ?'),
    rechecks: db.prepare('SELECT count(*) AS n FROM watch_items WHERE watch_id = ? AND recheck = 1'),
    probeItems: db.prepare(`SELECT i.watch_id, i.idx, k.mode, i.input, i.last_state, i.probe
      FROM watch_items i JOIN watches w ON w.id = i.watch_id JOIN api_keys k ON k.id = w.key_id
      WHERE i.last_state IS NOT NULL AND i.run_id IS NULL AND (i.watch_id > @watch OR (i.watch_id = @watch AND i.idx > @idx))
      ORDER BY i.watch_id, i.idx LIMIT @limit`),
    mark: db.prepare('UPDATE watch_items SET recheck = 1 WHERE watch_id = ? AND idx = ?'),
    due: db.prepare('UPDATE watches SET recheck_at = coalesce(recheck_at, ?) WHERE id = ?'),
    version: db.prepare("SELECT value FROM meta WHERE name = 'watches_reference_version'"),
    setVersion: db.prepare("UPDATE meta SET value = ? WHERE name = 'watches_reference_version'"),
    mailLease: db.prepare(`UPDATE watch_mails SET lease_until = @until, attempts = attempts + 1
      WHERE id = (SELECT id FROM watch_mails WHERE status = 'pending' AND next_attempt_at <= @now AND (lease_until IS NULL OR lease_until < @now)
        ORDER BY next_attempt_at, id LIMIT 1)
      RETURNING ${MAIL_COLS}`),
    mailFinish:
      db.prepare(`UPDATE watch_mails SET status = @status, last_error = @error, next_attempt_at = coalesce(@next, next_attempt_at),
        lease_until = NULL, sent_at = CASE WHEN @status = 'sent' THEN @at ELSE sent_at END WHERE id = @id AND status = 'pending'`),
    mails: db.prepare(`SELECT ${MAIL_COLS} FROM watch_mails WHERE run_id = ? ORDER BY created_at, id`),
  };

  const enqueue = deliveryEnqueuer(db);
  const enqueueWriteback = writebackEnqueuer(db);
  const completeIdempotent = idempotentCompleter(db);

  const dropRuns = runDropper(db);
  const dropItems = db.prepare('DELETE FROM watch_items WHERE watch_id = ?');
  const dropWatch = db.prepare('DELETE FROM watches WHERE id = ?');

  // One read transaction: another process's run close lands before or after it, never between its reads.
  const snapshot = db.transaction((id: string, changesShown: number) => {
    const w = q.get.get(id) as Row | undefined;
    if (!w) return null;
    const run = q.lastRun.get(id) as Row | undefined;
    return {
      watch: toWatch(w),
      lastRun: run ? toRun(run) : null,
      changes: run ? (q.changes.all(run.id, changesShown) as WatchChangeRecord[]) : [],
      rechecks: (q.rechecks.get(id) as { n: number }).n,
    };
  });
  const create = db.transaction((w: Parameters<WatchStore['create']>[0], record: Parameters<WatchStore['create']>[1]) => {
    const { items, ...watch } = w;
    q.insert.run({ ...watch, notify_unchanged: watch.notify_unchanged ? 1 : 0, policy_count: items.length });
    for (const i of items) q.itemInsert.run(w.id, i.idx, i.policy_number, i.input);
    completeIdempotent(w.key_id, record, w.created_at);
  });

  const remove = db.transaction((id: string, keyId: string): boolean => {
    if (!q.owned.get(id, keyId)) return false;
    dropRuns((q.runsOf.all(id) as { id: string }[]).map((r) => r.id));
    dropItems.run(id);
    dropWatch.run(id);
    return true;
  });

  const lease = db.transaction((p: { owner: string; now: string; until: string }) => q.lease.get(p) as Row | undefined);

  const openRun = db.transaction((watchId: string, owner: string, run: { id: string; trigger: WatchRunRecord['trigger']; at: string }) => {
    const held = q.held.get(watchId, owner) as { run_id: string | null } | undefined;
    if (!held || held.run_id !== null) return null;
    const total = (run.trigger === 'schedule' ? q.takeAll : q.takeMarked).run({ run: run.id, watch: watchId }).changes;
    q.runInsert.run({ id: run.id, watch_id: watchId, trigger: run.trigger, at: run.at, total });
    q.setRun.run(run.id, watchId);
    return toRun(q.run.get(run.id) as Row);
  });

  const reserve = db.transaction(
    (watchId: string, runId: string, owner: string, idxs: number[], r: Parameters<WatchStore['reserve']>[4], at: string) => {
      const held = q.held.get(watchId, owner) as { key_id: string; run_id: string | null } | undefined;
      if (!held || held.run_id !== runId) return null;
      if (credits.debit(held.key_id, r.amount, r.period, 'reserve', r.ref, at) === null)
        return { ok: false as const, balance: credits.balance(held.key_id) };
      for (const idx of idxs) q.markReserved.run(watchId, idx, runId);
      return { ok: true as const };
    },
  );

  const commit = db.transaction((c: Parameters<WatchStore['commitChunk']>[0]): boolean => {
    const held = q.held.get(c.watch_id, c.owner) as { run_id: string | null } | undefined;
    if (!held || held.run_id !== c.run_id) return false;
    let checked = 0;
    let changed = 0;
    let kept = 0;
    let refund = 0;
    for (const item of c.items) {
      const before = q.itemReserved.get(c.watch_id, item.idx, c.run_id) as { reserved: number; policy_number: string } | undefined;
      if (!before) continue;
      q.itemCommit.run({ state: item.state, probe: item.probe, watch: c.watch_id, idx: item.idx, run: c.run_id });
      const charge = Math.min(before.reserved, item.charge);
      kept += charge;
      refund += before.reserved - charge;
      checked++;
      if (item.change) {
        q.changeInsert.run({ ...item.change, run_id: c.run_id, idx: item.idx, policy_number: before.policy_number });
        changed++;
      }
    }
    credits.refund(c.key_id, refund, c.ref, c.at);
    q.runProgress.run({ id: c.run_id, checked, changed, credits: kept });
    return true;
  });

  const close = db.transaction((c: Parameters<WatchStore['closeRun']>[0]): boolean => {
    const held = q.held.get(c.watch_id, c.owner) as { run_id: string | null } | undefined;
    if (!held || held.run_id !== c.run_id) return false;
    credits.refund(c.key_id, (q.leftReserved.get(c.watch_id, c.run_id) as { n: number }).n, c.ref, c.at);
    q.leave.run(c.watch_id, c.run_id);
    q.runClose.run({ id: c.run_id, status: c.status, reason: c.stop_reason, at: c.at });
    q.watchClose.run({ id: c.watch_id, next: c.next_run_at, at: c.at });
    enqueue(c.outbox);
    if (c.mail) q.mailInsert.run(c.mail);
    for (const w of c.writebacks) enqueueWriteback(w);
    dropRuns((q.oldRuns.all(c.watch_id, WATCH_RUNS_KEPT) as { id: string }[]).map((r) => r.id));
    return true;
  });

  const mark = db.transaction((items: { watch_id: string; idx: number }[], at: string) => {
    for (const i of items) q.mark.run(i.watch_id, i.idx);
    for (const id of new Set(items.map((i) => i.watch_id))) q.due.run(at, id);
  });

  const mailLease = db.transaction((p: { now: string; until: string }) => q.mailLease.get(p) as WatchMailRecord | undefined);

  return {
    async create(w, record) {
      create.immediate(w, record);
    },
    async get(id) {
      const r = q.get.get(id) as Row | undefined;
      return r ? toWatch(r) : null;
    },
    async snapshot(id, changesShown) {
      return snapshot(id, changesShown);
    },
    async list(keyId) {
      return (q.list.all(keyId) as Row[]).map(toWatch);
    },
    async pause(id, keyId, at) {
      return q.pause.run(at, id, keyId).changes > 0;
    },
    async resume(id, keyId) {
      return q.resume.run(id, keyId).changes > 0;
    },
    async delete(id, keyId) {
      return remove.immediate(id, keyId);
    },
    async lease(owner, now, until) {
      const r = lease.immediate({ owner, now, until });
      return r ? toWatch(r) : null;
    },
    async renew(id, owner, until) {
      return q.renew.run(until, id, owner).changes > 0;
    },
    async release(id, owner) {
      q.release.run(id, owner);
    },
    async openRun(watchId, owner, run) {
      return openRun.immediate(watchId, owner, run);
    },
    async pendingItems(watchId, runId, limit) {
      return (q.pending.all(watchId, runId, limit) as Row[]).map(toItem);
    },
    async reserve(watchId, runId, owner, idxs, r, at) {
      return reserve.immediate(watchId, runId, owner, idxs, r, at);
    },
    async commitChunk(c) {
      return commit.immediate(c);
    },
    async changes(runId, limit) {
      return q.changes.all(runId, limit ?? -1) as Awaited<ReturnType<WatchStore['changes']>>;
    },
    async closeRun(c) {
      return close.immediate(c);
    },
    async run(runId) {
      const r = q.run.get(runId) as Row | undefined;
      return r ? toRun(r) : null;
    },
    async lastRun(watchId) {
      const r = q.lastRun.get(watchId) as Row | undefined;
      return r ? toRun(r) : null;
    },
    async rechecksPending(watchId) {
      return (q.rechecks.get(watchId) as { n: number }).n;
    },
    async probeItems(after, limit) {
      return q.probeItems.all({ watch: after?.watch_id ?? '', idx: after?.idx ?? -1, limit }) as WatchProbeItem[];
    },
    async markRecheck(items, at) {
      if (items.length) mark.immediate(items, at);
    },
    async referenceVersion() {
      const v = (q.version.get() as { value: number } | undefined)?.value ?? -1;
      return v < 0 ? null : v;
    },
    async setReferenceVersion(version) {
      q.setVersion.run(version);
    },
    async leaseMail(now, until) {
      return mailLease.immediate({ now, until }) ?? null;
    },
    async finishMail(id, outcome, at) {
      q.mailFinish.run({ id, status: outcome.status, error: outcome.error, next: outcome.next_attempt_at, at });
    },
    async mails(runId) {
      return q.mails.all(runId) as WatchMailRecord[];
    },
  };
}
