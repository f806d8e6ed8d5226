/**
 * Storage contract, retention and erasure (store/types/retention.ts): documents of finished jobs
 * removed with their bytes off the key's count, finished jobs and batches removed with every copy of
 * their result and remembered as expired, one job erased for its key, old Idempotency-Key claims and
 * expiry records removed; and the same documents swept by two stores at once counted off once.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewVerification, Store } from '../../../connector/src/store/types.js';
import { sweepRetention } from '../../../connector/src/jobs/retention.js';
import { at, finishOf, keyRequest, newJob, newWatch, outboxRow, PERIOD, schedule, watchWithRun, writebackRow } from './fixtures.js';
import { storeContract, type ContractContext } from './harness.js';

const DAY = 86_400;

/** The block of docs/personal-data.md that erases a key's whole data, for `keyId`. */
function erasureSql(keyId: string): string {
  const block = /```sql\n([\s\S]*?)```/.exec(fs.readFileSync('docs/personal-data.md', 'utf8'))?.[1];
  if (!block) throw new Error('docs/personal-data.md has no sql block');
  return block.replaceAll('KEY_ID', keyId);
}

/** Runs SQL on the test's database directly, as an operator's sqlite3 or psql would; the rows of the last statement. */
async function raw(t: ContractContext, sql: string): Promise<Record<string, unknown>[]> {
  const where = t.locations[0]!;
  if (t.backend.kind === 'sqlite') {
    const db = new Database(where);
    try {
      if (/^\s*SELECT/i.test(sql)) return db.prepare(sql).all() as Record<string, unknown>[];
      db.exec(sql);
      return [];
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  try {
    const r = await client.query(sql);
    return (Array.isArray(r) ? r.at(-1)! : r).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/** A result history entry of `keyId`. */
function historyEntry(id: string, keyId: string): NewVerification {
  return {
    id,
    key_id: keyId,
    source: 'sync',
    source_id: null,
    policy_number: 'P1',
    country: 'UK',
    insurance_type: 'motor',
    status: 'verified',
    confidence: 1,
    checks: '[]',
    input: '{}',
    result: '{}',
    created_at: at(0),
  };
}

/** Rows of each table that belong to `keyId`, directly or through their parent. */
const KEY_ROWS = {
  api_keys: "SELECT count(*) AS n FROM api_keys WHERE id = 'K'",
  jobs: "SELECT count(*) AS n FROM jobs WHERE key_id = 'K'",
  job_documents: "SELECT count(*) AS n FROM job_documents WHERE job_id IN (SELECT id FROM jobs WHERE key_id = 'K')",
  batches: "SELECT count(*) AS n FROM batches WHERE key_id = 'K'",
  batch_items: "SELECT count(*) AS n FROM batch_items WHERE batch_id IN (SELECT id FROM batches WHERE key_id = 'K')",
  webhook_outbox: "SELECT count(*) AS n FROM webhook_outbox WHERE key_id = 'K'",
  webhook_attempts: "SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_outbox WHERE key_id = 'K')",
  sheet_writebacks: "SELECT count(*) AS n FROM sheet_writebacks WHERE key_id = 'K'",
  expired_work: "SELECT count(*) AS n FROM expired_work WHERE key_id = 'K'",
  verifications: "SELECT count(*) AS n FROM verifications WHERE key_id = 'K'",
  key_document_bytes: "SELECT count(*) AS n FROM key_document_bytes WHERE key_id = 'K'",
  idempotency: "SELECT count(*) AS n FROM idempotency WHERE key_id = 'K'",
  sheet_schedules: "SELECT count(*) AS n FROM sheet_schedules WHERE key_id = 'K'",
  sheet_bindings: "SELECT count(*) AS n FROM sheet_bindings WHERE key_id = 'K'",
  portal_key_requests: "SELECT count(*) AS n FROM portal_key_requests WHERE key_id = 'K'",
  credit_ledger: "SELECT count(*) AS n FROM credit_ledger WHERE key_id = 'K'",
  watches: "SELECT count(*) AS n FROM watches WHERE key_id = 'K'",
  watch_items: "SELECT count(*) AS n FROM watch_items WHERE watch_id IN (SELECT id FROM watches WHERE key_id = 'K')",
  watch_runs: "SELECT count(*) AS n FROM watch_runs WHERE watch_id IN (SELECT id FROM watches WHERE key_id = 'K')",
  watch_changes:
    "SELECT count(*) AS n FROM watch_changes WHERE run_id IN (SELECT r.id FROM watch_runs r JOIN watches w ON w.id = r.watch_id WHERE w.key_id = 'K')",
  watch_mails: "SELECT count(*) AS n FROM watch_mails WHERE key_id = 'K'",
};

async function keyRows(t: ContractContext, keyId: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const [table, sql] of Object.entries(KEY_ROWS)) out[table] = Number((await raw(t, sql.replaceAll("'K'", `'${keyId}'`)))[0]!.n);
  return out;
}

storeContract((t) => {
  let store: Store;
  beforeEach(async () => {
    store = t.store;
    await t.key('k1');
    await t.key('k2');
  });

  /** Creates a job (with `document` bytes, if any) and, unless `finishedAt` is null, leases and finishes it then. */
  async function job(
    id: string,
    o: {
      keyId?: string;
      document?: number;
      finishedAt?: number | null;
      status?: 'complete' | 'failed';
      webhook?: boolean;
      sheet?: boolean;
    } = {},
  ): Promise<void> {
    const document = o.document ? Buffer.alloc(o.document, 7) : undefined;
    await store.jobs.create(newJob(id, { key_id: o.keyId ?? 'k1', kind: document ? 'extraction' : 'verification', document }), null);
    if (o.finishedAt === null) return;
    expect((await store.jobs.lease(`w-${id}`, at(1), at(61), { documents: !!document, keyId: o.keyId ?? 'k1' }))?.id).toBe(id);
    const failed = o.status === 'failed';
    expect(
      await store.jobs.finish(
        finishOf(id, `w-${id}`, {
          status: o.status ?? 'complete',
          result: failed ? null : JSON.stringify({ policy_number: 'AB-123' }),
          error: failed ? JSON.stringify({ error: 'unreadable_document' }) : null,
          at: at(o.finishedAt ?? 100),
          outbox: o.webhook ? outboxRow(`o-${id}`, { key_id: o.keyId ?? 'k1', subject_id: id }) : null,
          writeback: o.sheet ? writebackRow(`wb-${id}`, { key_id: o.keyId ?? 'k1', subject_id: id }) : null,
        }),
      ),
    ).toBe(true);
  }

  describe('purgeDocuments', () => {
    it('removes the documents of jobs finished before the cutoff, complete or failed, in chunks; their bytes leave each key', async () => {
      await job('e1', { document: 1000, finishedAt: 100 });
      await job('e2', { document: 300, finishedAt: 100, status: 'failed' });
      await job('e3', { keyId: 'k2', document: 50, finishedAt: 200 });
      await job('p1', { document: 70, finishedAt: null });
      expect(await store.jobs.documentBytes('k1')).toBe(1370);

      const first = await store.retention.purgeDocuments(at(150), 1);
      expect(first.documents).toBe(1);
      const second = await store.retention.purgeDocuments(at(150), 10);
      expect(second.documents).toBe(1);
      expect(first.bytes + second.bytes).toBe(1300);
      expect(await store.retention.purgeDocuments(at(150), 10)).toEqual({ documents: 0, bytes: 0 });

      expect(await store.jobs.document('e1')).toBeNull();
      expect(await store.jobs.document('e2')).toBeNull();
      // Finished after the cutoff, or still pending: kept, and counted.
      expect(await store.jobs.document('e3')).not.toBeNull();
      expect(await store.jobs.document('p1')).not.toBeNull();
      expect(await store.jobs.documentBytes('k1')).toBe(70);
      expect(await store.jobs.documentBytes('k2')).toBe(50);
      // The job and its result stay.
      expect(await store.jobs.get('e1')).toMatchObject({ status: 'complete', result: '{"policy_number":"AB-123"}', document_bytes: null });
    });

    it('two stores sweeping the same documents at once take each off the count once', async () => {
      const other = await t.openAt(t.locations[0]!);
      for (let i = 0; i < 30; i++) await job(`d${i}`, { document: 100 + i, finishedAt: 100 });
      await job('keep', { document: 5, finishedAt: null });
      const sweep = async (s: Store) => {
        let n = 0;
        for (;;) {
          const r = await s.retention.purgeDocuments(at(150), 4);
          n += r.documents;
          if (r.documents < 4) return n;
        }
      };
      const [a, b] = await Promise.all([sweep(store), sweep(other)]);
      expect(a + b).toBe(30);
      // Exactly the pending document's bytes: a document counted off twice would leave less (held at 0).
      expect(await store.jobs.documentBytes('k1')).toBe(5);
    });
  });

  describe('expireJobs', () => {
    it('removes jobs finished before the cutoff with their document, deliveries, attempts and write-backs, and remembers them', async () => {
      await job('j1', { document: 400, finishedAt: 100, webhook: true, sheet: true });
      await job('j2', { finishedAt: 300, webhook: true });
      await job('p1', { finishedAt: null });
      // An attempt logged on j1's delivery.
      const delivery = await store.outbox.lease(at(200), at(260));
      expect(delivery?.subject_id).toBe('j1');
      await store.outbox.recordAttempt(
        delivery!.id,
        { attempt: 1, at: at(201), status: 500, error: null, duration_ms: 3 },
        {
          status: 'pending',
          next_attempt_at: at(400),
        },
      );

      expect(await store.retention.expireJobs(at(150), at(500), 10)).toBe(1);
      expect(await store.retention.expireJobs(at(150), at(501), 10)).toBe(0);
      expect(await store.jobs.get('j1')).toBeNull();
      expect(await store.jobs.document('j1')).toBeNull();
      expect(await store.jobs.documentBytes('k1')).toBe(0);
      expect(await store.outbox.forSubject('j1')).toEqual([]);
      expect(await store.writebacks.forSubject('j1')).toBeNull();
      expect((await store.outbox.list('k1', { limit: 10, offset: 0 })).items.map((d) => d.subject_id)).toEqual(['j2']);
      expect(await store.retention.expired('j1')).toEqual({
        id: 'j1',
        key_id: 'k1',
        kind: 'job',
        finished_at: at(100),
        expired_at: at(500),
      });
      expect(await store.retention.expired('j2')).toBeNull();
      expect(await store.jobs.get('j2')).not.toBeNull();
      expect(await store.jobs.get('p1')).toMatchObject({ status: 'pending' });

      // An attempt still in flight when its delivery went is dropped, not an error.
      await store.outbox.recordAttempt(
        delivery!.id,
        { attempt: 2, at: at(502), status: 200, error: null, duration_ms: 3 },
        {
          status: 'delivered',
          next_attempt_at: null,
        },
      );
      expect(await store.outbox.get(delivery!.id)).toBeNull();
    });

    it('purgeExpired forgets expiry records made before its cutoff', async () => {
      await job('j1', { finishedAt: 100 });
      await store.retention.expireJobs(at(150), at(500), 10);
      expect(await store.retention.purgeExpired(at(500), 10)).toBe(0);
      expect(await store.retention.purgeExpired(at(501), 10)).toBe(1);
      expect(await store.retention.expired('j1')).toBeNull();
    });
  });

  describe('expireBatches', () => {
    it('removes batches completed before the cutoff with their items, deliveries and write-backs; unfinished ones stay', async () => {
      await t.completedBatch(
        'b1',
        writebackRow('wb1', { subject_type: 'batch', subject_id: 'b1' }),
        outboxRow('ob1', { subject_id: 'b1' }),
      );
      expect(
        await store.batches.create(
          {
            id: 'b2',
            key_id: 'k1',
            webhook_url: null,
            created_at: at(0),
            items: [{ idx: 0, policy_number: 'P1', input: '{}', state: 'pending', result: null, error: null, reserved: 0 }],
          },
          null,
        ),
      ).toEqual({ ok: true });

      expect(await store.retention.expireBatches(at(2), at(500), 10)).toBe(0);
      expect(await store.retention.expireBatches(at(3), at(500), 10)).toBe(1);
      expect(await store.batches.get('b1')).toBeNull();
      expect(await store.batches.items('b1')).toEqual([]);
      expect(await store.outbox.forSubject('b1')).toEqual([]);
      expect(await store.writebacks.forSubject('b1')).toBeNull();
      expect(await store.retention.expired('b1')).toEqual({
        id: 'b1',
        key_id: 'k1',
        kind: 'batch',
        finished_at: at(2),
        expired_at: at(500),
      });
      expect(await store.batches.get('b2')).not.toBeNull();
    });
  });

  describe('eraseJob', () => {
    it("erases a finished job of the key at once; another key's, an unknown and a pending job are left as they are", async () => {
      await job('j1', { document: 250, finishedAt: 100, webhook: true, sheet: true });
      await job('p1', { finishedAt: null });

      expect(await store.retention.eraseJob('j1', 'k2')).toEqual({ outcome: 'not_found' });
      expect(await store.retention.eraseJob('nope', 'k1')).toEqual({ outcome: 'not_found' });
      expect(await store.retention.eraseJob('p1', 'k1')).toEqual({ outcome: 'pending' });
      expect(await store.jobs.get('p1')).toMatchObject({ status: 'pending' });
      expect(await store.jobs.documentBytes('k1')).toBe(250);
      expect(await store.jobs.get('j1')).not.toBeNull();

      expect(await store.retention.eraseJob('j1', 'k1')).toEqual({ outcome: 'erased', document_bytes: 250 });
      expect(await store.jobs.get('j1')).toBeNull();
      expect(await store.jobs.document('j1')).toBeNull();
      expect(await store.jobs.documentBytes('k1')).toBe(0);
      expect(await store.outbox.forSubject('j1')).toEqual([]);
      expect(await store.writebacks.forSubject('j1')).toBeNull();
      // Erased leaves no record: the id is unknown from now on.
      expect(await store.retention.expired('j1')).toBeNull();
      expect(await store.retention.eraseJob('j1', 'k1')).toEqual({ outcome: 'not_found' });
    });

    it('an expired job: its key erases its expiry record, another key cannot', async () => {
      await job('j1', { finishedAt: 100 });
      await store.retention.expireJobs(at(150), at(500), 10);
      expect(await store.retention.eraseJob('j1', 'k2')).toEqual({ outcome: 'not_found' });
      expect(await store.retention.expired('j1')).not.toBeNull();
      expect(await store.retention.eraseJob('j1', 'k1')).toEqual({ outcome: 'erased', document_bytes: 0 });
      expect(await store.retention.expired('j1')).toBeNull();
    });
  });

  /**
   * Runs watch `id` of `keyId` once per start in `days` (each closed 60 s on), every run finding a change of
   * its one policy and delivering it by webhook, e-mail and sheet; the run ids, in order.
   */
  async function watchRuns(id: string, keyId: string, days: number[]): Promise<string[]> {
    await store.watches.create(newWatch(id, 1, { key_id: keyId, email_to: `${keyId}@example.com` }));
    const ids: string[] = [];
    for (const [n, day] of days.entries()) {
      const start = day * DAY;
      const owner = `w-${id}-${n}`;
      expect((await store.watches.lease(owner, at(start), at(start + 120)))?.id).toBe(id);
      const run = (await store.watches.openRun(id, owner, { id: `${id}-run${n}`, trigger: 'schedule', at: at(start) }))!;
      const state = JSON.stringify({ status: n % 2 ? 'verified' : 'unverified' });
      const change = { before: '{}', after: state, reasons: '["status_changed"]', why: 'status changed' };
      const item = { idx: 0, state, probe: `a:${n}`, charge: 0, change };
      const ref = `watch:${run.id}`;
      await store.watches.commitChunk({ watch_id: id, run_id: run.id, owner, key_id: keyId, items: [item], ref, at: at(start + 30) });
      const done = at(start + 60);
      const closed = await store.watches.closeRun({
        watch_id: id,
        run_id: run.id,
        owner,
        key_id: keyId,
        status: 'complete',
        stop_reason: null,
        next_run_at: at(start + DAY),
        outbox: outboxRow(`${run.id}-event`, { key_id: keyId, event_type: 'watch.run.changed', subject_id: run.id, created_at: done }),
        mail: {
          id: `${run.id}-mail`,
          key_id: keyId,
          watch_id: id,
          run_id: run.id,
          to_address: 'a@example.com',
          subject: 's',
          text: 't',
          html: 'h',
          created_at: done,
        },
        writebacks: [
          writebackRow(`${run.id}-changes`, {
            key_id: keyId,
            subject_type: 'watch_run',
            subject_id: run.id,
            kind: 'changes',
            created_at: done,
          }),
        ],
        ref,
        at: done,
      });
      expect(closed).toBe(true);
      ids.push(run.id);
    }
    return ids;
  }

  /** Whether the run and everything that went with it are there (true), gone (false), or split (an error). */
  async function runKept(runId: string): Promise<boolean> {
    const parts = [
      (await store.watches.run(runId)) !== null,
      (await store.watches.changes(runId)).length > 0,
      (await store.watches.mails(runId)).length > 0,
      (await store.outbox.forSubject(runId)).length > 0,
      (await store.writebacks.forSubject(runId)) !== null,
    ];
    if (new Set(parts).size > 1) throw new Error(`run ${runId} is partly removed: ${JSON.stringify(parts)}`);
    return parts[0]!;
  }

  describe('purgeWatchRuns', () => {
    it("removes runs finished before the cutoff with their changes and deliveries, keeping each watch's latest run and its policies' last state", async () => {
      const [w1old, w1mid, w1last] = await watchRuns('w1', 'k1', [0, 20, 40]);
      const [w2only] = await watchRuns('w2', 'k2', [0]);
      // An attempt logged on the old run's webhook event goes with it.
      const delivery = (await store.outbox.forSubject(w1old!))[0]!;
      expect((await store.outbox.lease(at(61), at(120)))?.id).toBe(delivery.id);
      await store.outbox.recordAttempt(
        delivery.id,
        { attempt: 1, at: at(62), status: 500, error: null, duration_ms: 3 },
        { status: 'pending', next_attempt_at: at(900) },
      );
      const stateBefore = await store.watches.probeItems(null, 10);

      // Cutoff at day 15: w1's first run is past it; w2's one run too, but it is w2's latest.
      expect(await store.retention.purgeWatchRuns(at(15 * DAY), 1)).toBe(1);
      expect(await store.retention.purgeWatchRuns(at(15 * DAY), 10)).toBe(0);
      expect(await runKept(w1old!)).toBe(false);
      expect(await runKept(w1mid!)).toBe(true);
      expect(await runKept(w1last!)).toBe(true);
      expect(await runKept(w2only!)).toBe(true);
      expect((await store.watches.lastRun('w1'))?.id).toBe(w1last);
      // Where each policy stood at its last check is what the next run compares with: untouched.
      expect(await store.watches.probeItems(null, 10)).toEqual(stateBefore);

      // Past every run: each watch keeps its latest, whole.
      expect(await store.retention.purgeWatchRuns(at(100 * DAY), 10)).toBe(1);
      expect(await runKept(w1mid!)).toBe(false);
      expect(await runKept(w1last!)).toBe(true);
      expect(await runKept(w2only!)).toBe(true);
      expect(await store.watches.probeItems(null, 10)).toEqual(stateBefore);
    });

    it('leaves an open run, and the run its watch is still working on is the latest', async () => {
      const [closed] = await watchRuns('w1', 'k1', [0]);
      expect((await store.watches.lease('w-open', at(2 * DAY), at(2 * DAY + 120)))?.id).toBe('w1');
      const open = await store.watches.openRun('w1', 'w-open', { id: 'w1-open', trigger: 'schedule', at: at(2 * DAY) });
      expect(await store.retention.purgeWatchRuns(at(100 * DAY), 10)).toBe(1);
      expect(await runKept(closed!)).toBe(false);
      expect(await store.watches.run(open!.id)).toMatchObject({ status: 'running' });
      expect(await store.watches.pendingItems('w1', open!.id, 10)).toHaveLength(1);
    });

    it('the retention sweep removes them after the result retention period', async () => {
      const [first, second] = await watchRuns('w1', 'k1', [0, 5]);
      const policy = { documentMs: DAY * 1000, resultMs: 30 * DAY * 1000 };
      const early = await sweepRetention(store.retention, policy, new Date(at(29 * DAY)));
      expect(early).toMatchObject({ watch_runs: 0 });
      expect(await runKept(first!)).toBe(true);
      const late = await sweepRetention(store.retention, policy, new Date(at(31 * DAY)));
      expect(late).toMatchObject({ watch_runs: 1 });
      expect(await runKept(first!)).toBe(false);
      expect(await runKept(second!)).toBe(true);
    });
  });

  describe('purgeIdempotency', () => {
    it('removes claims made before the cutoff, answered or not; a later request with the same key is new', async () => {
      expect(await store.idempotency.begin('k1', 'old', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
      await store.idempotency.complete('k1', 'old', { status: 200, body: '{"status":"verified"}' }, at(1));
      expect(await store.idempotency.begin('k1', 'new', 'h2', at(100), at(40))).toEqual({ state: 'new' });

      expect(await store.retention.purgeIdempotency(at(50), 10)).toBe(1);
      expect(await store.retention.purgeIdempotency(at(50), 10)).toBe(0);
      expect(await store.idempotency.begin('k1', 'old', 'h1', at(200), at(140))).toEqual({ state: 'new' });
      expect(await store.idempotency.begin('k1', 'new', 'h2', at(101), at(40))).toEqual({ state: 'in_progress' });
    });
  });

  describe("the SQL of docs/personal-data.md that erases a key's whole data", () => {
    it('leaves nothing of the key in any table, and every row of another key', async () => {
      for (const k of ['k3', 'k4']) {
        await t.key(k, { email: `${k}@example.com` });
        await job(`${k}-old`, { keyId: k, finishedAt: 50 });
        await job(`${k}-job`, { keyId: k, document: 100, finishedAt: 100, webhook: true, sheet: true });
        expect(await store.jobs.create(newJob(`${k}-reserved`, { key_id: k }), { amount: 1, period: PERIOD, ref: `job:${k}` })).toEqual({
          ok: true,
        });
        const item = { idx: 0, policy_number: 'P1', input: '{}', state: 'pending' as const, result: null, error: null, reserved: 0 };
        await store.batches.create({ id: `${k}-batch`, key_id: k, webhook_url: null, created_at: at(0), items: [item] }, null);
        await store.idempotency.begin(k, 'idem', 'hash', at(0), at(-60));
        await store.history.record(historyEntry(`${k}-verification`, k));
        await store.sheetBindings.issue({ id: `${k}-binding`, key_id: k, spreadsheet_id: 'sheet-1', token_hash: 'h', created_at: at(0) });
        await store.schedules.create(schedule(`${k}-schedule`, { key_id: k }));
        await store.portal.createRequest(keyRequest(`${k}-request`, { email: `${k}@example.com`, token_hash: `token-${k}` }));
        await store.portal.attachKey(`${k}-request`, k);
        await watchWithRun(store, `${k}-watch`, k);
      }
      for (let i = 0; i < 2; i++) {
        const d = await store.outbox.lease(at(200), at(260));
        await store.outbox.recordAttempt(
          d!.id,
          { attempt: 1, at: at(201), status: 500, error: null, duration_ms: 1 },
          {
            status: 'pending',
            next_attempt_at: at(900),
          },
        );
      }
      expect(await store.retention.expireJobs(at(60), at(500), 10)).toBe(2);

      const before = await keyRows(t, 'k3');
      // Every table the block names holds something of the key, so each of its lines is put to work.
      expect(Object.entries(before).filter(([, n]) => n === 0)).toEqual([]);
      const otherBefore = await keyRows(t, 'k4');

      await raw(t, erasureSql('k3'));
      expect(Object.values(await keyRows(t, 'k3')).every((n) => n === 0)).toBe(true);
      expect(await keyRows(t, 'k4')).toEqual(otherBefore);
      expect(Number((await raw(t, "SELECT count(*) AS n FROM portal_key_requests WHERE email = 'k3@example.com'"))[0]!.n)).toBe(0);
    });
  });
});
