/**
 * Watches in PostgreSQL (store/types/watches.ts). A watch is leased with FOR UPDATE SKIP LOCKED; chunk
 * commits and run closes lock the watch row (FOR UPDATE) and check its lease owner and open run first,
 * so an instance whose lease ran out writes nothing, and each policy's result, settlement and change is
 * written once.
 */
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
import { currentBalance, debit, refund } from './credit-ops.js';
import { all, changed, one, tx, type Db, type Row, type Tx } from './db.js';
import { completeIdempotent } from './idempotency.js';
import { enqueueDelivery } from './outbox.js';
import { enqueueWriteback } from './sheets.js';

const toWatch = (r: Row): WatchRecord => r as unknown as WatchRecord;
const toItem = (r: Row): WatchItemRecord => r as unknown as WatchItemRecord;
const toRun = (r: Row): WatchRunRecord => {
  const { trigger_kind, ...rest } = r as Row & { trigger_kind: WatchRunRecord['trigger'] };
  return { ...(rest as unknown as Omit<WatchRunRecord, 'trigger'>), trigger: trigger_kind };
};
const CHANGE_COLS = 'run_id, idx, policy_number, before_state AS before, after_state AS after, reasons, why';
const MAIL_COLS =
  'id, key_id, watch_id, run_id, to_address, subject, text, html, status, attempts, next_attempt_at, last_error, created_at, sent_at';

/** The watch's key and open run when `owner` holds it, locked until the transaction ends; null otherwise. */
async function held(c: Tx, watchId: string, owner: string): Promise<{ key_id: string; run_id: string | null } | null> {
  return one<{ key_id: string; run_id: string | null }>(
    c,
    'SELECT key_id, run_id FROM watches WHERE id = $1 AND lease_owner = $2 FOR UPDATE',
    [watchId, owner],
  );
}

/**
 * Removes runs and what went with them: changes, e-mails, webhook deliveries with their attempts, write-backs.
 * Used by closing a run, deleting a watch and the retention sweep.
 */
export async function dropRuns(c: Tx, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  // Runs locked first, then their deliveries: every remover takes them in this order, so two never wait on
  // each other round a circle, and an attempt being recorded (outbox.ts) waits, then finds its delivery gone.
  await c.query('SELECT id FROM watch_runs WHERE id = ANY($1) ORDER BY id FOR UPDATE', [ids]);
  await c.query('SELECT id FROM webhook_outbox WHERE subject_id = ANY($1) ORDER BY id FOR UPDATE', [ids]);
  await c.query('DELETE FROM watch_changes WHERE run_id = ANY($1)', [ids]);
  await c.query('DELETE FROM watch_mails WHERE run_id = ANY($1)', [ids]);
  await c.query('DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_outbox WHERE subject_id = ANY($1))', [ids]);
  await c.query('DELETE FROM webhook_outbox WHERE subject_id = ANY($1)', [ids]);
  await c.query('DELETE FROM sheet_writebacks WHERE subject_id = ANY($1)', [ids]);
  await c.query('DELETE FROM watch_runs WHERE id = ANY($1)', [ids]);
}

export function watchStore(db: Db): WatchStore {
  return {
    async create(w, record) {
      const { items, ...watch } = w;
      await tx(db, async (c) => {
        await c.query(
          `INSERT INTO watches (id, key_id, cadence, expiry_window_days, webhook_url, email_to, sheet_target, notify_unchanged, policy_count, next_run_at, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [
            watch.id,
            watch.key_id,
            watch.cadence,
            watch.expiry_window_days,
            watch.webhook_url,
            watch.email_to,
            watch.sheet_target,
            watch.notify_unchanged,
            items.length,
            watch.next_run_at,
            watch.created_at,
          ],
        );
        // One statement for the policies: ten thousand round trips would hold the transaction for seconds.
        await c.query(
          `INSERT INTO watch_items (watch_id, idx, policy_number, input)
           SELECT $1, i.idx, i.policy_number, i.input FROM unnest($2::int[], $3::text[], $4::text[]) AS i(idx, policy_number, input)`,
          [w.id, items.map((i) => i.idx), items.map((i) => i.policy_number), items.map((i) => i.input)],
        );
        await completeIdempotent(c, w.key_id, record, w.created_at);
      });
    },
    async get(id) {
      const r = await one(db, 'SELECT * FROM watches WHERE id = $1', [id]);
      return r ? toWatch(r) : null;
    },
    async snapshot(id, changesShown) {
      // Under READ COMMITTED each statement sees its own moment, so a run closing between two of them showed
      // closed beside the next run it had before; one REPEATABLE READ snapshot holds all four reads.
      return tx(db, async (c) => {
        await c.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const w = await one(c, 'SELECT * FROM watches WHERE id = $1', [id]);
        if (!w) return null;
        const run = await one(c, 'SELECT * FROM watch_runs WHERE watch_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1', [id]);
        const changes = run
          ? await all<WatchChangeRecord>(c, `SELECT ${CHANGE_COLS} FROM watch_changes WHERE run_id = $1 ORDER BY idx LIMIT $2`, [
              run.id,
              changesShown,
            ])
          : [];
        const rechecks = (await one<{ n: number }>(c, 'SELECT count(*)::int AS n FROM watch_items WHERE watch_id = $1 AND recheck', [id]))!
          .n;
        return { watch: toWatch(w), lastRun: run ? toRun(run) : null, changes, rechecks };
      });
    },
    async list(keyId) {
      return (await all(db, 'SELECT * FROM watches WHERE key_id = $1 ORDER BY created_at, id', [keyId])).map(toWatch);
    },
    async pause(id, keyId, at) {
      return (
        (await changed(db, 'UPDATE watches SET paused_at = coalesce(paused_at, $1) WHERE id = $2 AND key_id = $3', [at, id, keyId])) > 0
      );
    },
    async resume(id, keyId) {
      return (await changed(db, 'UPDATE watches SET paused_at = NULL WHERE id = $1 AND key_id = $2', [id, keyId])) > 0;
    },
    async delete(id, keyId) {
      return tx(db, async (c) => {
        if (!(await one(c, 'SELECT 1 FROM watches WHERE id = $1 AND key_id = $2 FOR UPDATE', [id, keyId]))) return false;
        await dropRuns(
          c,
          (await all<{ id: string }>(c, 'SELECT id FROM watch_runs WHERE watch_id = $1', [id])).map((r) => r.id),
        );
        await c.query('DELETE FROM watch_items WHERE watch_id = $1', [id]);
        await c.query('DELETE FROM watches WHERE id = $1', [id]);
        return true;
      });
    },
    async lease(owner, now, until) {
      const r = await one(
        db,
        `UPDATE watches SET lease_owner = $1, lease_until = $3
         WHERE id = (SELECT id FROM watches WHERE paused_at IS NULL AND (lease_until IS NULL OR lease_until < $2)
             AND (run_id IS NOT NULL OR next_run_at <= $2 OR recheck_at <= $2)
           ORDER BY least(next_run_at, recheck_at), id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
        [owner, now, until],
      );
      return r ? toWatch(r) : null;
    },
    async renew(id, owner, until) {
      return (await changed(db, 'UPDATE watches SET lease_until = $1 WHERE id = $2 AND lease_owner = $3', [until, id, owner])) > 0;
    },
    async release(id, owner) {
      await db.query('UPDATE watches SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2', [id, owner]);
    },
    async openRun(watchId, owner, run) {
      return tx(db, async (c) => {
        const h = await held(c, watchId, owner);
        if (!h || h.run_id !== null) return null;
        const total = await changed(
          c,
          `UPDATE watch_items SET run_id = $1, recheck = false WHERE watch_id = $2${run.trigger === 'schedule' ? '' : ' AND recheck'}`,
          [run.id, watchId],
        );
        const r = await one(
          c,
          `INSERT INTO watch_runs (id, watch_id, trigger_kind, status, started_at, total) VALUES ($1, $2, $3, 'running', $4, $5) RETURNING *`,
          [run.id, watchId, run.trigger, run.at, total],
        );
        await c.query('UPDATE watches SET run_id = $1 WHERE id = $2', [run.id, watchId]);
        return toRun(r!);
      });
    },
    async pendingItems(watchId, runId, limit) {
      return (
        await all(db, 'SELECT * FROM watch_items WHERE watch_id = $1 AND run_id = $2 ORDER BY idx LIMIT $3', [watchId, runId, limit])
      ).map(toItem);
    },
    async reserve(watchId, runId, owner, idxs, r, at) {
      return tx(db, async (c) => {
        const h = await held(c, watchId, owner);
        if (!h || h.run_id !== runId) return null;
        if ((await debit(c, h.key_id, r.amount, r.period, 'reserve', r.ref, at)) === null)
          return { ok: false as const, balance: await currentBalance(c, h.key_id) };
        await c.query('UPDATE watch_items SET reserved = 1 WHERE watch_id = $1 AND run_id = $2 AND idx = ANY($3) AND reserved = 0', [
          watchId,
          runId,
          idxs,
        ]);
        return { ok: true as const };
      });
    },
    async commitChunk(ch) {
      return tx(db, async (c) => {
        const h = await held(c, ch.watch_id, ch.owner);
        if (!h || h.run_id !== ch.run_id) return false;
        const open = new Map(
          (
            await all<{ idx: number; reserved: number; policy_number: string }>(
              c,
              'SELECT idx, reserved, policy_number FROM watch_items WHERE watch_id = $1 AND run_id = $2 AND idx = ANY($3)',
              [ch.watch_id, ch.run_id, ch.items.map((i) => i.idx)],
            )
          ).map((r) => [r.idx, r]),
        );
        const done = ch.items.filter((i) => open.has(i.idx));
        let kept = 0;
        let refunded = 0;
        for (const i of done) {
          const reserved = open.get(i.idx)!.reserved;
          const charge = Math.min(reserved, i.charge);
          kept += charge;
          refunded += reserved - charge;
        }
        await c.query(
          `UPDATE watch_items SET last_state = coalesce(u.state, watch_items.last_state), probe = coalesce(u.probe, watch_items.probe), run_id = NULL, reserved = 0
           FROM unnest($3::int[], $4::text[], $5::text[]) AS u(idx, state, probe)
           WHERE watch_items.watch_id = $1 AND watch_items.run_id = $2 AND watch_items.idx = u.idx`,
          [ch.watch_id, ch.run_id, done.map((i) => i.idx), done.map((i) => i.state), done.map((i) => i.probe)],
        );
        const changes = done.filter((i) => i.change);
        if (changes.length)
          await c.query(
            `INSERT INTO watch_changes (run_id, idx, policy_number, before_state, after_state, reasons, why)
             SELECT $1::text, u.* FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) AS u`,
            [
              ch.run_id,
              changes.map((i) => i.idx),
              changes.map((i) => open.get(i.idx)!.policy_number),
              changes.map((i) => i.change!.before),
              changes.map((i) => i.change!.after),
              changes.map((i) => i.change!.reasons),
              changes.map((i) => i.change!.why),
            ],
          );
        await refund(c, ch.key_id, refunded, ch.ref, ch.at);
        await c.query('UPDATE watch_runs SET checked = checked + $2, changed = changed + $3, credits = credits + $4 WHERE id = $1', [
          ch.run_id,
          done.length,
          changes.length,
          kept,
        ]);
        return true;
      });
    },
    async changes(runId, limit) {
      return all<WatchChangeRecord>(db, `SELECT ${CHANGE_COLS} FROM watch_changes WHERE run_id = $1 ORDER BY idx LIMIT $2`, [
        runId,
        limit ?? null,
      ]);
    },
    async closeRun(cl) {
      return tx(db, async (c) => {
        const h = await held(c, cl.watch_id, cl.owner);
        if (!h || h.run_id !== cl.run_id) return false;
        const left = (await one<{ n: number }>(
          c,
          'SELECT coalesce(sum(reserved), 0)::int AS n FROM watch_items WHERE watch_id = $1 AND run_id = $2',
          [cl.watch_id, cl.run_id],
        ))!.n;
        await refund(c, cl.key_id, left, cl.ref, cl.at);
        await c.query('UPDATE watch_items SET run_id = NULL, reserved = 0 WHERE watch_id = $1 AND run_id = $2', [cl.watch_id, cl.run_id]);
        await c.query("UPDATE watch_runs SET status = $2, stop_reason = $3, finished_at = $4 WHERE id = $1 AND status = 'running'", [
          cl.run_id,
          cl.status,
          cl.stop_reason,
          cl.at,
        ]);
        await c.query(
          `UPDATE watches SET run_id = NULL, lease_owner = NULL, lease_until = NULL, next_run_at = coalesce($2, next_run_at),
             recheck_at = CASE WHEN EXISTS (SELECT 1 FROM watch_items WHERE watch_id = $1 AND recheck) THEN coalesce(recheck_at, $3) ELSE NULL END
           WHERE id = $1`,
          [cl.watch_id, cl.next_run_at, cl.at],
        );
        await enqueueDelivery(c, cl.outbox);
        if (cl.mail)
          await c.query(
            `INSERT INTO watch_mails (id, key_id, watch_id, run_id, to_address, subject, text, html, next_attempt_at, created_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)`,
            [
              cl.mail.id,
              cl.mail.key_id,
              cl.mail.watch_id,
              cl.mail.run_id,
              cl.mail.to_address,
              cl.mail.subject,
              cl.mail.text,
              cl.mail.html,
              cl.mail.created_at,
            ],
          );
        for (const w of cl.writebacks) await enqueueWriteback(c, w);
        const old = await all<{ id: string }>(
          c,
          'SELECT id FROM watch_runs WHERE watch_id = $1 ORDER BY started_at DESC, id DESC OFFSET $2',
          [cl.watch_id, WATCH_RUNS_KEPT],
        );
        await dropRuns(
          c,
          old.map((r) => r.id),
        );
        return true;
      });
    },
    async run(runId) {
      const r = await one(db, 'SELECT * FROM watch_runs WHERE id = $1', [runId]);
      return r ? toRun(r) : null;
    },
    async lastRun(watchId) {
      const r = await one(db, 'SELECT * FROM watch_runs WHERE watch_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1', [watchId]);
      return r ? toRun(r) : null;
    },
    async rechecksPending(watchId) {
      return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM watch_items WHERE watch_id = $1 AND recheck', [watchId]))!.n;
    },
    async probeItems(after, limit) {
      return all<WatchProbeItem>(
        db,
        `SELECT i.watch_id, i.idx, k.mode, i.input, i.last_state, i.probe
         FROM watch_items i JOIN watches w ON w.id = i.watch_id JOIN api_keys k ON k.id = w.key_id
         WHERE i.last_state IS NOT NULL AND i.run_id IS NULL AND (i.watch_id, i.idx) > ($1, $2)
         ORDER BY i.watch_id, i.idx LIMIT $3`,
        [after?.watch_id ?? '', after?.idx ?? -1, limit],
      );
    },
    async markRecheck(items, at) {
      if (items.length === 0) return;
      await tx(db, async (c) => {
        await c.query(
          `UPDATE watch_items SET recheck = true FROM unnest($1::text[], $2::int[]) AS m(watch_id, idx)
           WHERE watch_items.watch_id = m.watch_id AND watch_items.idx = m.idx`,
          [items.map((i) => i.watch_id), items.map((i) => i.idx)],
        );
        await c.query('UPDATE watches SET recheck_at = coalesce(recheck_at, $1) WHERE id = ANY($2)', [
          at,
          [...new Set(items.map((i) => i.watch_id))],
        ]);
      });
    },
    async referenceVersion() {
      const v = (await one<{ value: number }>(db, "SELECT value FROM meta WHERE name = 'watches_reference_version'"))?.value ?? -1;
      return v < 0 ? null : v;
    },
    async setReferenceVersion(version) {
      await db.query("UPDATE meta SET value = $1 WHERE name = 'watches_reference_version'", [version]);
    },
    async leaseMail(now, until) {
      return one<WatchMailRecord>(
        db,
        `UPDATE watch_mails SET lease_until = $2, attempts = attempts + 1
         WHERE id = (SELECT id FROM watch_mails WHERE status = 'pending' AND next_attempt_at <= $1 AND (lease_until IS NULL OR lease_until < $1)
                     ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
         RETURNING ${MAIL_COLS}`,
        [now, until],
      );
    },
    async finishMail(id, outcome, at) {
      await db.query(
        `UPDATE watch_mails SET status = $2, last_error = $3, next_attempt_at = coalesce($4, next_attempt_at), lease_until = NULL,
           sent_at = CASE WHEN $2 = 'sent' THEN $5::timestamptz ELSE sent_at END WHERE id = $1 AND status = 'pending'`,
        [id, outcome.status, outcome.error, outcome.next_attempt_at, at],
      );
    },
    async mails(runId) {
      return all<WatchMailRecord>(db, `SELECT ${MAIL_COLS} FROM watch_mails WHERE run_id = $1 ORDER BY created_at, id`, [runId]);
    },
  };
}
