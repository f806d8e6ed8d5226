/**
 * Storage contract, result history (store/types/history.ts): entries read back as written, newest
 * first by (created_at, id), filtered, paged by a keyset position that holds while entries arrive, one
 * key's never another's; written in the transaction of a charge, a job's finish or a batch item's only
 * when that transaction settles; removed by retention's age and with an erased job.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { HistoryQuery, NewVerification, Store } from '../../../connector/src/store/types.js';
import { at, finishOf, newJob, PERIOD } from './fixtures.js';
import { storeContract } from './harness.js';

function entry(id: string, over: Partial<NewVerification> = {}): NewVerification {
  return {
    id,
    key_id: 'k1',
    source: 'sync',
    source_id: null,
    policy_number: 'UKM10000001',
    country: 'UK',
    insurance_type: 'motor',
    status: 'verified',
    confidence: 0.93,
    checks: JSON.stringify([{ source: 'format', outcome: 'pass', detail: 'Matches, "quoted"' }]),
    input: JSON.stringify({ policy_number: 'ukm 1000 0001', country: 'Royaume-Uni', insurance_type: 'Kfz' }),
    result: JSON.stringify({ status: 'verified', policy_number: 'UKM10000001', ü: 'ß' }),
    created_at: at(10),
    ...over,
  };
}

storeContract((t) => {
  let store: Store;
  const ids = async (q: Partial<HistoryQuery> = {}) => (await store.history.list({ key_id: 'k1', limit: 100, ...q })).map((e) => e.id);
  beforeEach(async () => {
    store = t.store;
    await t.key('k1');
    await t.key('k2');
  });

  describe('record and list', () => {
    it('reads an entry back exactly as written', async () => {
      const e = entry('e1', { source: 'watch', source_id: 'w1', confidence: 0.35 });
      await store.history.record(e);
      expect(await store.history.list({ key_id: 'k1', limit: 10 })).toEqual([e]);
    });

    it('lists newest first, by id within one instant, only the asking key', async () => {
      await store.history.record(entry('a', { created_at: at(1) }));
      await store.history.record(entry('c', { created_at: at(2) }));
      await store.history.record(entry('b', { created_at: at(2) }));
      await store.history.record(entry('d', { created_at: at(3), key_id: 'k2' }));
      expect(await ids()).toEqual(['c', 'b', 'a']);
      expect(await ids({ key_id: 'k2' })).toEqual(['d']);
      expect(await ids({ limit: 2 })).toEqual(['c', 'b']);
    });

    it('filters by time range (from inclusive, to exclusive), status, policy number and watch', async () => {
      await store.history.record(entry('t1', { created_at: at(1), status: 'unverified' }));
      await store.history.record(entry('t2', { created_at: at(2), policy_number: 'OTHER' }));
      await store.history.record(entry('t3', { created_at: at(3), source: 'watch', source_id: 'w1' }));
      await store.history.record(entry('t4', { created_at: at(4), source: 'watch', source_id: 'w2', status: 'unverified' }));
      // Another source with the watch's id is not the watch's.
      await store.history.record(entry('t5', { created_at: at(5), source: 'async', source_id: 'w1' }));
      expect(await ids({ from: at(2), to: at(4) })).toEqual(['t3', 't2']);
      expect(await ids({ status: 'unverified' })).toEqual(['t4', 't1']);
      expect(await ids({ policy_number: 'OTHER' })).toEqual(['t2']);
      expect(await ids({ watch_id: 'w1' })).toEqual(['t3']);
      expect(await ids({ watch_id: 'w2', status: 'unverified', from: at(4) })).toEqual(['t4']);
    });

    it('pages after a position: strictly older, whatever arrives meanwhile', async () => {
      for (let i = 0; i < 6; i++) await store.history.record(entry(`p${i}`, { created_at: at(i < 3 ? 10 : 20) }));
      const first = await store.history.list({ key_id: 'k1', limit: 4 });
      expect(first.map((e) => e.id)).toEqual(['p5', 'p4', 'p3', 'p2']);
      // A newer entry, and one at the page's last instant with a greater id: both sort before the position.
      await store.history.record(entry('p9', { created_at: at(30) }));
      await store.history.record(entry('p2z', { created_at: at(10) }));
      const last = first.at(-1)!;
      expect(await ids({ after: { created_at: last.created_at, id: last.id } })).toEqual(['p1', 'p0']);
      expect(await ids({ key_id: 'k2', after: { created_at: last.created_at, id: last.id } })).toEqual([]);
    });
  });

  describe('written with what settles the result', () => {
    it('a charge writes the entry only when it is made', async () => {
      expect(await store.credits.charge('k1', 1, PERIOD, 'verify:1', at(5), undefined, entry('paid', { created_at: at(5) }))).toEqual({
        ok: true,
        balance: 9,
      });
      expect(await store.credits.charge('k1', 20, PERIOD, 'verify:2', at(6), undefined, entry('refused'))).toMatchObject({ ok: false });
      expect(await ids()).toEqual(['paid']);
      // With an Idempotency-Key answer riding along too.
      expect(await store.idempotency.begin('k1', 'idem', 'hash', at(7), at(-60))).toEqual({ state: 'new' });
      const record = { idemKey: 'idem', response: { status: 200, body: '{}' } };
      expect(await store.credits.charge('k1', 1, PERIOD, 'verify:3', at(8), record, entry('paid-idem', { created_at: at(8) }))).toEqual({
        ok: true,
        balance: 8,
      });
      expect(await ids()).toEqual(['paid-idem', 'paid']);
    });

    it("a job's finish writes the entry once, and not when the lease was lost", async () => {
      for (const id of ['j1', 'j2']) await store.jobs.create(newJob(id), null);
      expect((await store.jobs.lease('w1', at(1), at(61)))?.id).toBe('j1');
      expect((await store.jobs.lease('w2', at(1), at(61)))?.id).toBe('j2');
      const row = (id: string) => entry(`h-${id}`, { source: 'async', source_id: id });
      expect(await store.jobs.finish(finishOf('j1', 'w1', { verification: row('j1') }))).toBe(true);
      expect(await store.jobs.finish(finishOf('j1', 'w1', { verification: entry('again', { source: 'async', source_id: 'j1' }) }))).toBe(
        false,
      );
      expect(await store.jobs.finish(finishOf('j2', 'someone-else', { verification: row('j2') }))).toBe(false);
      expect(await ids()).toEqual(['h-j1']);
    });

    it("a batch item's finish writes the entry once, and not when the batch is another worker's", async () => {
      const item = (idx: number) => ({
        idx,
        policy_number: 'P',
        input: '{}',
        state: 'pending' as const,
        result: null,
        error: null,
        reserved: 0,
      });
      await store.batches.create({ id: 'b1', key_id: 'k1', webhook_url: null, created_at: at(0), items: [item(0), item(1)] }, null);
      expect((await store.batches.lease('w1', at(1), at(61)))?.id).toBe('b1');
      const finish = (idx: number, owner: string, id: string) =>
        store.batches.finishItem({
          batch_id: 'b1',
          idx,
          owner,
          result: '{}',
          error: null,
          settlement: { charge: 0, refund: 0, ref: `batch:b1:${idx}` },
          at: at(2),
          verification: entry(id, { source: 'batch', source_id: 'b1' }),
        });
      expect(await finish(0, 'w1', 'i0')).toBe(true);
      expect(await finish(0, 'w1', 'i0-again')).toBe(false);
      expect(await finish(1, 'w2', 'i1-stranger')).toBe(false);
      expect(await ids()).toEqual(['i0']);
    });
  });

  describe('removal', () => {
    it('retention removes entries recorded before its cutoff, in chunks, of every key', async () => {
      await store.history.record(entry('old1', { created_at: at(1) }));
      await store.history.record(entry('old2', { created_at: at(2), key_id: 'k2' }));
      await store.history.record(entry('new', { created_at: at(3) }));
      expect(await store.retention.purgeVerifications(at(3), 1)).toBe(1);
      expect(await store.retention.purgeVerifications(at(3), 10)).toBe(1);
      expect(await store.retention.purgeVerifications(at(3), 10)).toBe(0);
      expect(await ids()).toEqual(['new']);
      expect(await ids({ key_id: 'k2' })).toEqual([]);
    });

    it("erasing a job erases its entry, not the key's others nor another key's", async () => {
      await store.jobs.create(newJob('j1'), null);
      expect((await store.jobs.lease('w1', at(1), at(61)))?.id).toBe('j1');
      expect(await store.jobs.finish(finishOf('j1', 'w1', { verification: entry('of-j1', { source: 'async', source_id: 'j1' }) }))).toBe(
        true,
      );
      await store.history.record(entry('sync'));
      await store.history.record(entry('batch-j1', { source: 'batch', source_id: 'j1' }));
      await store.history.record(entry('k2-j1', { key_id: 'k2', source: 'async', source_id: 'j1' }));
      expect(await store.retention.eraseJob('j1', 'k2')).toEqual({ outcome: 'not_found' });
      expect(await ids()).toContain('of-j1');
      expect(await store.retention.eraseJob('j1', 'k1')).toMatchObject({ outcome: 'erased' });
      expect((await ids()).sort()).toEqual(['batch-j1', 'sync']);
      expect(await ids({ key_id: 'k2' })).toEqual(['k2-j1']);
    });
  });
});
