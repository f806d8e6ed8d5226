/** Storage contract, durable work (store/types/work.ts): jobs and batches created with reservations, leased, finished once, released. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { NewBatch, Store } from '../../../connector/src/store/types.js';
import { at, PERIOD, newJob, outboxRow, writebackRow, finishOf, count } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key } = t;

  describe('jobs', () => {
    beforeEach(async () => {
      await key('k1', { allowance: 10 });
    });

    it('create without a reservation stores a pending job', async () => {
      expect(await store.jobs.create(newJob('j1', { created_at: at(3) }), null)).toEqual({ ok: true });
      expect(await store.jobs.get('j1')).toEqual({
        id: 'j1',
        key_id: 'k1',
        kind: 'verification',
        status: 'pending',
        payload: '{"policy_number":"j1"}',
        result: null,
        error: null,
        webhook_url: null,
        reserved: 0,
        charged: 0,
        attempts: 0,
        lease_owner: null,
        lease_until: null,
        created_at: at(3),
        updated_at: at(3),
        completed_at: null,
        finished_by: null,
        document_bytes: null,
        document_outcome: null,
        sheet_target: null,
      });
      expect(await store.jobs.document('j1')).toBeNull();
      expect(await store.jobs.get('nope')).toBeNull();
      expect(await store.jobs.document('nope')).toBeNull();
      expect(await store.credits.ledger('k1')).toEqual([]);
    });

    it('create with a reservation and a document: credits reserved in the same step, bytes kept exactly', async () => {
      const doc = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 0xfe, 0xff, 0, 10, 13]), Buffer.alloc(70_000, 0xab)]);
      const target = JSON.stringify({ spreadsheet_id: 'sheet-1', sheet: 'Policies' });
      const job = newJob('j2', {
        kind: 'extraction',
        webhook_url: 'https://hooks.example.com/x',
        sheet_target: target,
        document: doc,
        created_at: at(1),
      });
      expect(await store.jobs.create(job, { amount: 3, period: PERIOD, ref: 'job:j2' })).toEqual({ ok: true });
      expect(await store.jobs.get('j2')).toMatchObject({
        kind: 'extraction',
        reserved: 3,
        charged: 0,
        webhook_url: 'https://hooks.example.com/x',
        sheet_target: target,
        document_bytes: doc.length,
      });
      const stored = await store.jobs.document('j2');
      expect(Buffer.isBuffer(stored)).toBe(true);
      expect(stored!.equals(doc)).toBe(true);
      expect((await store.keys.get('k1'))?.balance).toBe(7);
      const ledger = await store.credits.ledger('k1');
      expect(
        ledger.map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at })),
      ).toEqual([{ delta: -3, reason: 'reserve', ref: 'job:j2', balance_after: 7, created_at: at(1) }]);
      // A reservation of 0 reserves nothing and writes no ledger row.
      expect(await store.jobs.create(newJob('j3'), { amount: 0, period: PERIOD, ref: 'job:j3' })).toEqual({ ok: true });
      expect((await store.jobs.get('j3'))?.reserved).toBe(0);
      expect(await store.credits.ledger('k1')).toHaveLength(1);
    });

    it('create is refused with the balance when the reservation cannot be covered; nothing is inserted', async () => {
      await store.jobs.create(newJob('j1'), { amount: 4, period: PERIOD, ref: 'job:j1' });
      const doc = Buffer.from('pdf bytes');
      expect(
        await store.jobs.create(newJob('j2', { kind: 'extraction', document: doc }), { amount: 7, period: PERIOD, ref: 'job:j2' }),
      ).toEqual({ ok: false, balance: 6 });
      expect(await store.jobs.get('j2')).toBeNull();
      expect(await store.jobs.document('j2')).toBeNull();
      expect(await store.jobs.pendingCount('extraction')).toBe(0);
      expect((await store.keys.get('k1'))?.balance).toBe(6);
      expect(await store.credits.ledger('k1')).toHaveLength(1);
      // The id is still free.
      expect(await store.jobs.create(newJob('j2'), { amount: 6, period: PERIOD, ref: 'job:j2' })).toEqual({ ok: true });
      expect((await store.keys.get('k1'))?.balance).toBe(0);
    });

    it('pendingCount counts pending jobs by kind', async () => {
      await store.jobs.create(newJob('v1'), null);
      await store.jobs.create(newJob('v2'), null);
      await store.jobs.create(newJob('e1', { kind: 'extraction' }), null);
      expect(await store.jobs.pendingCount('verification')).toBe(2);
      expect(await store.jobs.pendingCount('extraction')).toBe(1);
      const leased = await store.jobs.lease('w1', at(1), at(61));
      expect(leased?.id).toBe('e1'); // same created_at: by id
      // Leased is still pending.
      expect(await store.jobs.pendingCount('extraction')).toBe(1);
      await store.jobs.finish(finishOf('e1', 'w1'));
      expect(await store.jobs.pendingCount('extraction')).toBe(0);
      expect(await store.jobs.pendingCount('verification')).toBe(2);
    });

    it('documentBytes counts the bytes of documents a key holds, pending or finished; a refused create counts nothing', async () => {
      await key('k2');
      expect(await store.jobs.documentBytes('k1')).toBe(0);
      await store.jobs.create(newJob('e1', { kind: 'extraction', document: Buffer.alloc(70_000, 1) }), null);
      await store.jobs.create(newJob('v1', { document: Buffer.alloc(1_234, 2) }), null);
      await store.jobs.create(newJob('v2'), null); // no document
      await store.jobs.create(newJob('e2', { kind: 'extraction', document: Buffer.alloc(500, 3), key_id: 'k2' }), null);
      expect(await store.jobs.documentBytes('k1')).toBe(71_234);
      expect(await store.jobs.documentBytes('k2')).toBe(500);
      expect(await store.jobs.documentBytes('k3')).toBe(0);
      // Finishing a job keeps its document, and its bytes counted.
      expect((await store.jobs.lease('w1', at(1), at(61)))?.id).toBe('e1');
      await store.jobs.finish(finishOf('e1', 'w1'));
      expect(await store.jobs.documentBytes('k1')).toBe(71_234);
      // A create refused for credits stores no document and counts no byte.
      expect(
        await store.jobs.create(newJob('e3', { kind: 'extraction', document: Buffer.alloc(9_999) }), {
          amount: 11,
          period: PERIOD,
          ref: 'job:e3',
        }),
      ).toEqual({ ok: false, balance: 10 });
      expect(await store.jobs.documentBytes('k1')).toBe(71_234);
    });

    it('lanes: lease only jobs with a document or only those without, optionally of one key; documentQueue counts per key', async () => {
      await key('k2', { mode: 'test' });
      const doc = Buffer.from('pdf bytes');
      await store.jobs.create(newJob('e1', { kind: 'extraction', document: doc, created_at: at(1) }), null);
      await store.jobs.create(newJob('v1', { document: doc, created_at: at(2) }), null);
      await store.jobs.create(newJob('p1', { created_at: at(3) }), null);
      await store.jobs.create(newJob('e2', { kind: 'extraction', document: doc, key_id: 'k2', created_at: at(4) }), null);
      await store.jobs.create(newJob('e3', { kind: 'extraction', document: doc, key_id: 'k2', created_at: at(5) }), null);
      expect((await store.jobs.documentQueue(at(10))).sort((a, b) => a.key_id.localeCompare(b.key_id))).toEqual([
        { key_id: 'k1', mode: 'live', leasable: 2, active: 0, pending: 2, oldest: at(1) },
        { key_id: 'k2', mode: 'test', leasable: 2, active: 0, pending: 2, oldest: at(4) },
      ]);
      // Without a document: only p1, though older jobs carry one.
      expect((await store.jobs.lease('w1', at(10), at(70), { documents: false }))?.id).toBe('p1');
      expect(await store.jobs.lease('w1', at(10), at(70), { documents: false })).toBeNull();
      // One key's documents: k2's oldest, though k1's are older.
      expect((await store.jobs.lease('w2', at(10), at(70), { documents: true, keyId: 'k2' }))?.id).toBe('e2');
      expect((await store.jobs.lease('w3', at(10), at(70), { documents: true }))?.id).toBe('e1');
      const q = (await store.jobs.documentQueue(at(11))).sort((a, b) => a.key_id.localeCompare(b.key_id));
      expect(q).toEqual([
        { key_id: 'k1', mode: 'live', leasable: 1, active: 1, pending: 2, oldest: at(2) },
        { key_id: 'k2', mode: 'test', leasable: 1, active: 1, pending: 2, oldest: at(5) },
      ]);
      // A released job waiting for its retry time is pending but neither leasable nor active.
      await store.jobs.release('e2', 'w2', at(100));
      expect((await store.jobs.documentQueue(at(12))).find((e) => e.key_id === 'k2')).toEqual({
        key_id: 'k2',
        mode: 'test',
        leasable: 1,
        active: 0,
        pending: 2,
        oldest: at(5),
      });
      await store.jobs.finish(finishOf('e1', 'w3'));
      expect((await store.jobs.documentQueue(at(12))).find((e) => e.key_id === 'k1')).toEqual({
        key_id: 'k1',
        mode: 'live',
        leasable: 1,
        active: 0,
        pending: 1,
        oldest: at(2),
      });
    });

    it('lease: oldest first (created_at, then id); not leased again until lease_until passes; attempts count', async () => {
      await store.jobs.create(newJob('jb', { created_at: at(10) }), null);
      await store.jobs.create(newJob('ja', { created_at: at(10) }), null);
      await store.jobs.create(newJob('jc', { created_at: at(5) }), null);
      const first = await store.jobs.lease('w1', at(20), at(80));
      expect(first).toMatchObject({ id: 'jc', status: 'pending', lease_owner: 'w1', lease_until: at(80), attempts: 1 });
      expect(await store.jobs.get('jc')).toMatchObject({ lease_owner: 'w1', lease_until: at(80), attempts: 1 });
      expect((await store.jobs.lease('w2', at(21), at(81)))?.id).toBe('ja');
      expect((await store.jobs.lease('w3', at(22), at(82)))?.id).toBe('jb');
      expect(await store.jobs.lease('w4', at(79), at(139))).toBeNull();
      // jc's lease has passed: another worker takes it over.
      expect(await store.jobs.lease('w4', at(80.5), at(200))).toMatchObject({
        id: 'jc',
        lease_owner: 'w4',
        lease_until: at(200),
        attempts: 2,
      });
      // renew: only by the current owner.
      expect(await store.jobs.renew('jc', 'w1', at(300))).toBe(false);
      expect(await store.jobs.renew('jc', 'w4', at(300))).toBe(true);
      expect((await store.jobs.get('jc'))?.lease_until).toBe(at(300));
      expect(await store.jobs.renew('nope', 'w4', at(300))).toBe(false);
      // At 250 the renewed jc is still held; ja (expired at 81) is the oldest free one.
      expect(await store.jobs.lease('w5', at(250), at(400))).toMatchObject({ id: 'ja', lease_owner: 'w5', attempts: 2 });
      expect(await store.jobs.lease('w5', at(250), at(400))).toMatchObject({ id: 'jb', lease_owner: 'w5', attempts: 2 });
      expect(await store.jobs.lease('w5', at(250), at(400))).toBeNull();
    });

    it('finish: only by the current owner, once; result, settlement, outbox and write-back in one step', async () => {
      await store.jobs.create(newJob('j1', { webhook_url: 'https://hooks.example.com/x' }), { amount: 3, period: PERIOD, ref: 'job:j1' });
      expect(await store.jobs.finish(finishOf('j1', 'w1'))).toBe(false); // never leased
      await store.jobs.lease('w1', at(1), at(61));
      const outbox = outboxRow('o1', { subject_id: 'j1', created_at: at(50) });
      const writeback = writebackRow('wb1', { subject_id: 'j1', created_at: at(50) });
      const finish = finishOf('j1', 'w1', {
        result: '{"status":"valid"}',
        settlement: { charge: 1, refund: 2, ref: 'job:j1' },
        outbox,
        writeback,
        document_outcome: '{"pages":2}',
        at: at(50),
      });
      expect(await store.jobs.finish({ ...finish, owner: 'w2' })).toBe(false);
      expect(await store.jobs.get('j1')).toMatchObject({ status: 'pending', lease_owner: 'w1', result: null, charged: 0 });
      expect(await store.outbox.get('o1')).toBeNull();
      expect((await store.keys.get('k1'))?.balance).toBe(7);

      expect(await store.jobs.finish(finish)).toBe(true);
      expect(await store.jobs.get('j1')).toMatchObject({
        status: 'complete',
        result: '{"status":"valid"}',
        error: null,
        reserved: 3,
        charged: 1,
        lease_owner: null,
        lease_until: null,
        finished_by: 'w1',
        updated_at: at(50),
        completed_at: at(50),
        document_outcome: '{"pages":2}',
        attempts: 1,
      });
      expect((await store.keys.get('k1'))?.balance).toBe(9);
      const ledger = await store.credits.ledger('k1');
      expect(
        ledger.map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at })),
      ).toEqual([
        { delta: -3, reason: 'reserve', ref: 'job:j1', balance_after: 7, created_at: at(0) },
        { delta: 2, reason: 'refund', ref: 'job:j1', balance_after: 9, created_at: at(50) },
      ]);
      expect(await store.outbox.get('o1')).toEqual({
        ...outbox,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at(50),
        last_status: null,
        last_error: null,
        delivered_at: null,
      });
      expect(await store.writebacks.forSubject('j1')).toEqual({
        ...writeback,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at(50),
        written: 0,
        missing: [],
        last_error: null,
        updated_at: at(50),
      });

      // Once: a second finish (even by the same owner) changes nothing.
      expect(
        await store.jobs.finish({
          ...finish,
          result: '{"status":"other"}',
          outbox: outboxRow('o2', { subject_id: 'j1' }),
          writeback: writebackRow('wb2', { subject_id: 'j1' }),
        }),
      ).toBe(false);
      expect((await store.jobs.get('j1'))?.result).toBe('{"status":"valid"}');
      expect(await store.credits.ledger('k1')).toHaveLength(2);
      expect(await store.outbox.forSubject('j1')).toHaveLength(1);
      expect(await store.outbox.get('o2')).toBeNull();
      expect((await store.writebacks.forSubject('j1'))?.id).toBe('wb1');
      expect(await store.jobs.renew('j1', 'w1', at(500))).toBe(false);
      expect(await store.jobs.lease('w9', at(10_000), at(10_060))).toBeNull();
    });

    it('finish as failed with an error; a zero refund writes no ledger row; no outbox, no write-back', async () => {
      await store.jobs.create(newJob('j1'), { amount: 2, period: PERIOD, ref: 'job:j1' });
      await store.jobs.lease('w1', at(1), at(61));
      expect(
        await store.jobs.finish(
          finishOf('j1', 'w1', {
            status: 'failed',
            result: null,
            error: '{"code":"extraction_failed"}',
            settlement: { charge: 2, refund: 0, ref: 'job:j1' },
            at: at(9),
          }),
        ),
      ).toBe(true);
      expect(await store.jobs.get('j1')).toMatchObject({
        status: 'failed',
        result: null,
        error: '{"code":"extraction_failed"}',
        charged: 2,
        completed_at: at(9),
        document_outcome: null,
      });
      expect((await store.credits.ledger('k1')).map((e) => e.reason)).toEqual(['reserve']);
      expect((await store.keys.get('k1'))?.balance).toBe(8);
      expect(await store.outbox.forSubject('j1')).toEqual([]);
      expect(await store.writebacks.forSubject('j1')).toBeNull();
    });

    it('release: lease cleared, lease_until = retryAt; not leased again before retryAt; only the owner releases', async () => {
      await store.jobs.create(newJob('j1'), null);
      expect((await store.jobs.lease('w1', at(10), at(70)))?.attempts).toBe(1);
      await store.jobs.release('j1', 'w2', at(500));
      expect(await store.jobs.get('j1')).toMatchObject({ lease_owner: 'w1', lease_until: at(70) });
      await store.jobs.release('j1', 'w1', at(100));
      expect(await store.jobs.get('j1')).toMatchObject({ status: 'pending', lease_owner: null, lease_until: at(100), attempts: 1 });
      expect(await store.jobs.lease('w2', at(50), at(110))).toBeNull();
      expect(await store.jobs.renew('j1', 'w1', at(200))).toBe(false);
      expect(await store.jobs.lease('w2', at(101), at(161))).toMatchObject({ id: 'j1', lease_owner: 'w2', attempts: 2 });
      expect(await store.jobs.finish(finishOf('j1', 'w1'))).toBe(false);
      expect(await store.jobs.finish(finishOf('j1', 'w2'))).toBe(true);
      // Releasing a finished job changes nothing.
      await store.jobs.release('j1', 'w2', at(900));
      expect(await store.jobs.get('j1')).toMatchObject({ status: 'complete', lease_owner: null, lease_until: null, finished_by: 'w2' });
    });

    it('CONCURRENCY: concurrent finishes of one job by its owner: exactly one wins, one refund', async () => {
      await store.jobs.create(newJob('j1'), { amount: 5, period: PERIOD, ref: 'job:j1' });
      await store.jobs.lease('w1', at(1), at(61));
      const f = finishOf('j1', 'w1', { settlement: { charge: 1, refund: 4, ref: 'job:j1' } });
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => store.jobs.finish({ ...f, outbox: outboxRow(`o${i}`, { subject_id: 'j1' }) })),
      );
      expect(count(results, (r) => r)).toBe(1);
      expect((await store.keys.get('k1'))?.balance).toBe(9);
      expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(1);
      expect(await store.outbox.forSubject('j1')).toHaveLength(1);
    });

    it('CONCURRENCY: 200 jobs, 8 concurrent workers: every job finished exactly once, never held by two owners', async () => {
      await store.credits.adjust('k1', { allowance: 1000, set: 1000 }, at(0));
      const N = 200;
      const created = await Promise.all(
        Array.from({ length: N }, (_, i) =>
          store.jobs.create(newJob(`job-${String(i).padStart(3, '0')}`, { created_at: at(i % 17) }), {
            amount: 1,
            period: PERIOD,
            ref: `job:${i}`,
          }),
        ),
      );
      expect(created.every((c) => c.ok)).toBe(true);
      expect((await store.keys.get('k1'))?.balance).toBe(1000 - N);
      expect(await store.jobs.pendingCount('verification')).toBe(N);

      const holder = new Map<string, string>();
      const finished = new Map<string, number>();
      const problems: string[] = [];
      const NOW = at(1000);
      const UNTIL = at(100_000);
      async function worker(w: number): Promise<void> {
        const owner = `worker-${w}`;
        const intruder = `worker-${(w + 1) % 8}`;
        for (;;) {
          const job = await store.jobs.lease(owner, NOW, UNTIL);
          if (!job) return;
          if (job.lease_owner !== owner) problems.push(`${job.id} leased to ${owner} but owned by ${job.lease_owner}`);
          const other = holder.get(job.id);
          if (other) problems.push(`${job.id} leased by ${owner} while held by ${other}`);
          holder.set(job.id, owner);
          const n = Number(job.id.slice(4));
          if (job.attempts === 1 && n % 5 === 0) {
            // Give every fifth job back once: another worker may take it right away.
            holder.delete(job.id);
            await store.jobs.release(job.id, owner, at(999));
            continue;
          }
          if (await store.jobs.finish(finishOf(job.id, intruder, { at: NOW })))
            problems.push(`${job.id} finished by non-owner ${intruder}`);
          const refund = n % 2 === 0 ? 1 : 0;
          const ok = await store.jobs.finish(
            finishOf(job.id, owner, {
              settlement: { charge: 1 - refund, refund, ref: `job:${n}` },
              outbox: outboxRow(`out-${job.id}`, { subject_id: job.id, created_at: NOW }),
              at: NOW,
            }),
          );
          holder.delete(job.id);
          if (!ok) problems.push(`${job.id} finish by owner ${owner} refused`);
          else finished.set(job.id, (finished.get(job.id) ?? 0) + 1);
        }
      }
      await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));

      expect(problems).toEqual([]);
      expect(finished.size).toBe(N);
      expect([...finished.values()].every((n) => n === 1)).toBe(true);
      expect(await store.jobs.pendingCount('verification')).toBe(0);
      const jobs = await Promise.all(Array.from({ length: N }, (_, i) => store.jobs.get(`job-${String(i).padStart(3, '0')}`)));
      expect(jobs.every((j) => j?.status === 'complete' && j.lease_owner === null)).toBe(true);
      expect(jobs.map((j) => j!.attempts)).toEqual(Array.from({ length: N }, (_, i) => (i % 5 === 0 ? 2 : 1)));
      expect(jobs.map((j) => j!.charged)).toEqual(Array.from({ length: N }, (_, i) => (i % 2 === 0 ? 0 : 1)));
      expect((await store.keys.get('k1'))?.balance).toBe(1000 - N + N / 2);
      expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(N / 2);
      expect((await store.outbox.list('k1', { limit: 1, offset: 0 })).total).toBe(N);
    });
  });

  // ---- batches ----------------------------------------------------------------------------

  describe('batches', () => {
    const items: NewBatch['items'] = [
      { idx: 0, policy_number: 'P0', input: '{"policy_number":"P0"}', state: 'pending', result: null, error: null, reserved: 1 },
      { idx: 1, policy_number: null, input: '{"bad":true}', state: 'done', result: null, error: '{"code":"invalid_input"}', reserved: 0 },
      { idx: 2, policy_number: 'P2', input: '{"policy_number":"P2"}', state: 'pending', result: null, error: null, reserved: 1 },
    ];
    const newBatch = (id: string, over: Partial<NewBatch> = {}): NewBatch => ({
      id,
      key_id: 'k1',
      webhook_url: 'https://hooks.example.com/b',
      created_at: at(0),
      items: [items[2]!, items[0]!, items[1]!],
      ...over,
    });

    beforeEach(async () => {
      await key('k1', { allowance: 10 });
    });

    it('create with items: refused ones count as completed; items in idx order; credits reserved', async () => {
      expect(await store.batches.create(newBatch('b1', { created_at: at(4) }), { amount: 2, period: PERIOD, ref: 'batch:b1' })).toEqual({
        ok: true,
      });
      expect(await store.batches.get('b1')).toEqual({
        id: 'b1',
        key_id: 'k1',
        status: 'pending',
        total_count: 3,
        completed_count: 1,
        webhook_url: 'https://hooks.example.com/b',
        sheet_target: null,
        attempts: 0,
        lease_owner: null,
        lease_until: null,
        created_at: at(4),
        updated_at: at(4),
        completed_at: null,
      });
      expect(await store.batches.items('b1')).toEqual(items.map((i) => ({ ...i, batch_id: 'b1', charged: 0 })));
      expect((await store.keys.get('k1'))?.balance).toBe(8);
      expect(
        (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after }) => ({ delta, reason, ref, balance_after })),
      ).toEqual([{ delta: -2, reason: 'reserve', ref: 'batch:b1', balance_after: 8 }]);
      expect(await store.batches.get('nope')).toBeNull();
      expect(await store.batches.items('nope')).toEqual([]);
      const target = JSON.stringify({ spreadsheet_id: 's', sheet: 'x' });
      expect(await store.batches.create(newBatch('b2', { sheet_target: target, webhook_url: null }), null)).toEqual({ ok: true });
      expect(await store.batches.get('b2')).toMatchObject({ sheet_target: target, webhook_url: null, total_count: 3, completed_count: 1 });
    });

    it('create is refused with the balance when the reservation cannot be covered; nothing is inserted', async () => {
      expect(await store.batches.create(newBatch('b1'), { amount: 11, period: PERIOD, ref: 'batch:b1' })).toEqual({
        ok: false,
        balance: 10,
      });
      expect(await store.batches.get('b1')).toBeNull();
      expect(await store.batches.items('b1')).toEqual([]);
      expect(await store.credits.ledger('k1')).toEqual([]);
      expect(await store.batches.lease('w1', at(1), at(61))).toBeNull();
    });

    it('lease oldest first; not again while leased; renew only by the owner; release until retryAt', async () => {
      await store.batches.create(newBatch('bb', { created_at: at(5) }), null);
      await store.batches.create(newBatch('ba', { created_at: at(5) }), null);
      await store.batches.create(newBatch('bc', { created_at: at(1) }), null);
      expect(await store.batches.lease('w1', at(10), at(70))).toMatchObject({
        id: 'bc',
        lease_owner: 'w1',
        lease_until: at(70),
        attempts: 1,
        status: 'pending',
      });
      expect((await store.batches.lease('w2', at(10), at(70)))?.id).toBe('ba');
      expect((await store.batches.lease('w3', at(10), at(70)))?.id).toBe('bb');
      expect(await store.batches.lease('w4', at(60), at(120))).toBeNull();
      expect(await store.batches.renew('bc', 'w2', at(200))).toBe(false);
      expect(await store.batches.renew('bc', 'w1', at(200))).toBe(true);
      expect((await store.batches.get('bc'))?.lease_until).toBe(at(200));
      await store.batches.release('ba', 'w1', at(500)); // not the owner: no effect
      expect(await store.batches.get('ba')).toMatchObject({ lease_owner: 'w2', lease_until: at(70) });
      await store.batches.release('ba', 'w2', at(300));
      expect(await store.batches.get('ba')).toMatchObject({ lease_owner: null, lease_until: at(300) });
      // At 100: bc renewed (200), ba released until 300, bb expired (70).
      expect(await store.batches.lease('w4', at(100), at(160))).toMatchObject({ id: 'bb', lease_owner: 'w4', attempts: 2 });
      expect(await store.batches.lease('w4', at(100), at(160))).toBeNull();
      expect(await store.batches.lease('w5', at(301), at(400))).toMatchObject({ id: 'bc', lease_owner: 'w5', attempts: 2 });
      expect(await store.batches.lease('w5', at(301), at(400))).toMatchObject({ id: 'ba', lease_owner: 'w5', attempts: 2 });
      expect(await store.batches.renew('bc', 'w1', at(900))).toBe(false);
    });

    it('finishItem: only the owner, once per item; completed_count, processing, settlement', async () => {
      await store.batches.create(newBatch('b1'), { amount: 2, period: PERIOD, ref: 'batch:b1' });
      const base = { batch_id: 'b1', result: '{"status":"valid"}', error: null, at: at(20) };
      expect(
        await store.batches.finishItem({ ...base, idx: 0, owner: 'w1', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } }),
      ).toBe(false); // not leased
      await store.batches.lease('w1', at(10), at(70));
      expect(
        await store.batches.finishItem({ ...base, idx: 0, owner: 'w2', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } }),
      ).toBe(false);
      expect((await store.batches.get('b1'))?.completed_count).toBe(1);

      expect(
        await store.batches.finishItem({ ...base, idx: 0, owner: 'w1', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } }),
      ).toBe(true);
      expect(await store.batches.get('b1')).toMatchObject({
        completed_count: 2,
        status: 'processing',
        lease_owner: 'w1',
        updated_at: at(20),
      });
      expect(
        await store.batches.finishItem({
          ...base,
          idx: 0,
          owner: 'w1',
          result: '{"again":1}',
          settlement: { charge: 0, refund: 1, ref: 'batch:b1:0' },
        }),
      ).toBe(false);
      expect(
        await store.batches.finishItem({ ...base, idx: 1, owner: 'w1', settlement: { charge: 0, refund: 0, ref: 'batch:b1:1' } }),
      ).toBe(false); // done at submission
      expect(
        await store.batches.finishItem({ ...base, idx: 99, owner: 'w1', settlement: { charge: 0, refund: 0, ref: 'batch:b1:99' } }),
      ).toBe(false);
      expect((await store.batches.get('b1'))?.completed_count).toBe(2);

      expect(
        await store.batches.finishItem({
          batch_id: 'b1',
          idx: 2,
          owner: 'w1',
          result: null,
          error: '{"code":"upstream"}',
          settlement: { charge: 0, refund: 1, ref: 'batch:b1:2' },
          at: at(21),
        }),
      ).toBe(true);
      expect(await store.batches.get('b1')).toMatchObject({ completed_count: 3, total_count: 3, status: 'processing' });
      expect(await store.batches.items('b1')).toEqual([
        { ...items[0]!, batch_id: 'b1', state: 'done', result: '{"status":"valid"}', error: null, charged: 1 },
        { ...items[1]!, batch_id: 'b1', charged: 0 },
        { ...items[2]!, batch_id: 'b1', state: 'done', result: null, error: '{"code":"upstream"}', charged: 0 },
      ]);
      expect((await store.keys.get('k1'))?.balance).toBe(9);
      expect(
        (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({
          delta,
          reason,
          ref,
          balance_after,
          created_at,
        })),
      ).toEqual([
        { delta: -2, reason: 'reserve', ref: 'batch:b1', balance_after: 8, created_at: at(0) },
        { delta: 1, reason: 'refund', ref: 'batch:b1:2', balance_after: 9, created_at: at(21) },
      ]);
    });

    it('complete: only with no pending item, by the owner, once; outbox and write-back queued with it', async () => {
      await store.batches.create(newBatch('b1'), null);
      await store.batches.lease('w1', at(10), at(70));
      const outbox = outboxRow('ob1', { subject_id: 'b1', event_type: 'batch.completed', created_at: at(60) });
      const writeback = writebackRow('wb1', { subject_type: 'batch', subject_id: 'b1', created_at: at(60) });
      expect(await store.batches.complete('b1', 'w1', outbox, at(60), writeback)).toBe(false); // items pending
      expect(await store.outbox.get('ob1')).toBeNull();
      expect(await store.writebacks.forSubject('b1')).toBeNull();
      for (const idx of [0, 2]) {
        expect(
          await store.batches.finishItem({
            batch_id: 'b1',
            idx,
            owner: 'w1',
            result: '{}',
            error: null,
            settlement: { charge: 0, refund: 0, ref: `i${idx}` },
            at: at(30),
          }),
        ).toBe(true);
      }
      expect(await store.batches.complete('b1', 'w2', outbox, at(60), writeback)).toBe(false);
      expect(await store.batches.complete('b1', 'w1', outbox, at(60), writeback)).toBe(true);
      expect(await store.batches.get('b1')).toMatchObject({
        status: 'complete',
        completed_count: 3,
        lease_owner: null,
        lease_until: null,
        completed_at: at(60),
        updated_at: at(60),
      });
      expect(await store.outbox.get('ob1')).toMatchObject({ ...outbox, status: 'pending', attempts: 0, next_attempt_at: at(60) });
      expect(await store.writebacks.forSubject('b1')).toMatchObject({
        ...writeback,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at(60),
      });
      expect(
        await store.batches.complete('b1', 'w1', outboxRow('ob2', { subject_id: 'b1' }), at(61), writebackRow('wb2', { subject_id: 'b1' })),
      ).toBe(false);
      expect(await store.outbox.forSubject('b1')).toHaveLength(1);
      expect((await store.writebacks.forSubject('b1'))?.id).toBe('wb1');
      expect(await store.batches.lease('w3', at(10_000), at(10_060))).toBeNull();
      expect(await store.batches.renew('b1', 'w1', at(500))).toBe(false);
    });

    it('a batch whose every item was refused at submission completes without finishing an item; null outbox', async () => {
      const refused = items.filter((i) => i.state === 'done');
      await store.batches.create(newBatch('b1', { items: refused }), null);
      expect(await store.batches.get('b1')).toMatchObject({ status: 'pending', total_count: 1, completed_count: 1 });
      expect((await store.batches.lease('w1', at(1), at(61)))?.id).toBe('b1');
      expect(await store.batches.complete('b1', 'w1', null, at(2))).toBe(true);
      expect(await store.batches.get('b1')).toMatchObject({ status: 'complete', completed_at: at(2) });
      expect(await store.outbox.forSubject('b1')).toEqual([]);
      expect(await store.writebacks.forSubject('b1')).toBeNull();
    });

    it('CONCURRENCY: concurrent finishes of one item: exactly one counts; concurrent leases hand out each batch once', async () => {
      await store.batches.create(newBatch('b1'), { amount: 2, period: PERIOD, ref: 'batch:b1' });
      await store.batches.create(newBatch('b2'), null);
      await store.batches.create(newBatch('b3'), null);
      const leases = await Promise.all(Array.from({ length: 12 }, (_, i) => store.batches.lease(`w${i}`, at(1), at(61))));
      const got = leases.filter((l) => l !== null);
      expect(got.map((l) => l!.id).sort()).toEqual(['b1', 'b2', 'b3']);
      const owner = got.find((l) => l!.id === 'b1')!.lease_owner!;
      const results = await Promise.all(
        Array.from({ length: 10 }, () =>
          store.batches.finishItem({
            batch_id: 'b1',
            idx: 0,
            owner,
            result: '{}',
            error: null,
            settlement: { charge: 0, refund: 1, ref: 'b1:0' },
            at: at(5),
          }),
        ),
      );
      expect(count(results, (r) => r)).toBe(1);
      expect((await store.batches.get('b1'))?.completed_count).toBe(2);
      expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(1);
      expect((await store.keys.get('k1'))?.balance).toBe(9);
    });
  });
});
