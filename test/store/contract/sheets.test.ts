/** Storage contract, Sheets (store/types/sheets.ts): write-backs, refresh schedules, spreadsheet bindings. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, writebackRow, dataset, schedule, byId, count } from './fixtures.js';
import { storeContract } from './harness.js';

/** The state of a schedule created and never run. */
const idle = { running_until: null, failures_in_row: 0, paused_at: null, paused_reason: null };

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key, finishedJob, completedBatch } = t;

  describe('writebacks', () => {
    beforeEach(async () => {
      await key('k1');
    });

    it('leaseSpreadsheet claims every due row of the first-due spreadsheet; not again while leased; finish', async () => {
      await finishedJob('jA', { writeback: writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }) });
      await finishedJob('jB', { writeback: writebackRow('wB', { subject_id: 'jB', spreadsheet_id: 'S2', created_at: at(20) }) });
      await finishedJob('jC', {
        writeback: writebackRow('wC', { subject_id: 'jC', spreadsheet_id: 'S1', created_at: at(30), kind: 'extraction' }),
      });
      await finishedJob('jD', { writeback: writebackRow('wD', { subject_id: 'jD', spreadsheet_id: 'S1', created_at: at(500) }) });
      expect(await store.writebacks.leaseSpreadsheet('o1', at(5), at(65))).toEqual([]);

      const first = byId(await store.writebacks.leaseSpreadsheet('o1', at(40), at(100)));
      expect(first.map((w) => w.id)).toEqual(['wA', 'wC']);
      expect(first[0]).toEqual({
        ...writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }),
        status: 'pending',
        attempts: 1,
        next_attempt_at: at(10),
        written: 0,
        missing: [],
        last_error: null,
        updated_at: expect.any(String),
      });
      expect(first[1]).toMatchObject({ kind: 'extraction', attempts: 1 });
      expect((await store.writebacks.leaseSpreadsheet('o1', at(40), at(100))).map((w) => w.id)).toEqual(['wB']);
      expect(await store.writebacks.leaseSpreadsheet('o1', at(40), at(100))).toEqual([]);

      await store.writebacks.finish(
        'wA',
        'o1',
        { status: 'written', written: 3, missing: ['P9', 'P10'], error: null, next_attempt_at: null },
        at(45),
      );
      expect(await store.writebacks.forSubject('jA')).toMatchObject({
        id: 'wA',
        status: 'written',
        written: 3,
        missing: ['P9', 'P10'],
        last_error: null,
        next_attempt_at: at(10),
        updated_at: at(45),
        attempts: 1,
      });
      await store.writebacks.finish(
        'wC',
        'o1',
        { status: 'pending', written: 0, missing: [], error: 'quota exceeded', next_attempt_at: at(300) },
        at(46),
      );
      expect(await store.writebacks.forSubject('jC')).toMatchObject({
        status: 'pending',
        last_error: 'quota exceeded',
        next_attempt_at: at(300),
        updated_at: at(46),
      });

      // At 200: wB's lease (100) passed; wC waits until 300, wD until 500.
      expect(await store.writebacks.leaseSpreadsheet('o1', at(200), at(260))).toMatchObject([{ id: 'wB', attempts: 2 }]);
      expect(await store.writebacks.leaseSpreadsheet('o1', at(200), at(260))).toEqual([]);
      // At 600: wB (due since 20, lease passed) comes first, then S1 with wC and wD together.
      expect((await store.writebacks.leaseSpreadsheet('o1', at(600), at(700))).map((w) => w.id)).toEqual(['wB']);
      const s1 = byId(await store.writebacks.leaseSpreadsheet('o1', at(600), at(700)));
      expect(s1.map((w) => [w.id, w.attempts])).toEqual([
        ['wC', 2],
        ['wD', 1],
      ]);
      await store.writebacks.finish(
        'wB',
        'o1',
        { status: 'failed', written: 0, missing: [], error: 'spreadsheet not found', next_attempt_at: null },
        at(601),
      );
      expect(await store.writebacks.forSubject('jB')).toMatchObject({ status: 'failed', last_error: 'spreadsheet not found' });
      // Written and failed write-backs are never leased again.
      expect(await store.writebacks.leaseSpreadsheet('o1', at(10_000), at(10_060))).toMatchObject([
        { id: expect.stringMatching(/^w[CD]$/) },
        { id: expect.stringMatching(/^w[CD]$/) },
      ]);
      expect(await store.writebacks.leaseSpreadsheet('o1', at(10_000), at(10_060))).toEqual([]);
    });

    it('renew keeps the lease past its time; only the holder finishes, once', async () => {
      await finishedJob('jA', { writeback: writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }) });
      await finishedJob('jB', { writeback: writebackRow('wB', { subject_id: 'jB', spreadsheet_id: 'S2', created_at: at(20) }) });
      expect((await store.writebacks.leaseSpreadsheet('o1', at(40), at(100))).map((w) => w.id)).toEqual(['wA']);
      expect((await store.writebacks.leaseSpreadsheet('o3', at(40), at(100))).map((w) => w.id)).toEqual(['wB']);
      // o1 renews its own lease only: wB stays o3's, with o3's time.
      expect(await store.writebacks.renew('o1', at(300))).toBe(1);
      expect((await store.writebacks.leaseSpreadsheet('o2', at(200), at(260))).map((w) => w.id)).toEqual(['wB']);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(200), at(260))).toEqual([]);
      // o1's lease ran out at 300: o2 takes wA, and o1 neither renews nor finishes it any more.
      expect(await store.writebacks.leaseSpreadsheet('o2', at(400), at(460))).toMatchObject([{ id: 'wA', attempts: 2 }]);
      expect(await store.writebacks.renew('o1', at(900))).toBe(0);
      expect(
        await store.writebacks.finish(
          'wA',
          'o1',
          { status: 'written', written: 1, missing: [], error: null, next_attempt_at: null },
          at(401),
        ),
      ).toBe(false);
      expect(await store.writebacks.forSubject('jA')).toMatchObject({ status: 'pending', written: 0 });
      expect(
        await store.writebacks.finish(
          'wA',
          'o2',
          { status: 'written', written: 2, missing: [], error: null, next_attempt_at: null },
          at(410),
        ),
      ).toBe(true);
      expect(await store.writebacks.forSubject('jA')).toMatchObject({ status: 'written', written: 2, updated_at: at(410) });
      expect(
        await store.writebacks.finish(
          'wA',
          'o2',
          { status: 'failed', written: 0, missing: [], error: 'late', next_attempt_at: null },
          at(420),
        ),
      ).toBe(false);
      expect(await store.writebacks.forSubject('jA')).toMatchObject({ status: 'written', last_error: null });
      // A retry (pending again) ends the lease too: anyone may take it when it is due.
      expect(
        await store.writebacks.finish(
          'wB',
          'o2',
          { status: 'pending', written: 0, missing: [], error: 'quota', next_attempt_at: at(500) },
          at(430),
        ),
      ).toBe(true);
      expect(await store.writebacks.renew('o2', at(2000))).toBe(0);
      expect(await store.writebacks.leaseSpreadsheet('o4', at(500), at(560))).toMatchObject([{ id: 'wB', attempts: 3 }]);
    });

    it('forSubject returns the latest write-back of a subject, or null', async () => {
      await finishedJob('j1', { writeback: writebackRow('w1', { subject_id: 'X1', created_at: at(10) }) });
      await completedBatch('b1', writebackRow('w2', { subject_type: 'batch', subject_id: 'X1', created_at: at(20), spreadsheet_id: 'S9' }));
      await completedBatch('b2', writebackRow('w3', { subject_type: 'batch', subject_id: 'b2', created_at: at(15) }));
      expect(await store.writebacks.forSubject('X1')).toMatchObject({
        id: 'w2',
        subject_type: 'batch',
        spreadsheet_id: 'S9',
        created_at: at(20),
      });
      expect((await store.writebacks.forSubject('b2'))?.id).toBe('w3');
      expect(await store.writebacks.forSubject('none')).toBeNull();
    });

    it('CONCURRENCY: concurrent leases hand out each write-back once, one spreadsheet per claim', async () => {
      for (let i = 0; i < 6; i++) {
        await finishedJob(`j${i}`, {
          writeback: writebackRow(`w${i}`, { subject_id: `j${i}`, spreadsheet_id: `S${i % 3}`, created_at: at(i) }),
        });
      }
      const claims = await Promise.all(Array.from({ length: 10 }, () => store.writebacks.leaseSpreadsheet('o1', at(100), at(160))));
      const nonEmpty = claims.filter((c) => c.length > 0);
      expect(nonEmpty).toHaveLength(3);
      for (const c of nonEmpty) expect(new Set(c.map((w) => w.spreadsheet_id)).size).toBe(1);
      expect(
        nonEmpty
          .flat()
          .map((w) => w.id)
          .sort(),
      ).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
    });

    it("dueKeys lists the keys with write-backs leasable now; leaseSpreadsheet(keyId) takes that key's first-due spreadsheet, every key's due rows in it", async () => {
      await key('k2');
      await key('k3');
      const wb = async (id: string, keyId: string, sheet: string, due: number) =>
        finishedJob(`j${id}`, {
          keyId,
          writeback: writebackRow(id, { key_id: keyId, subject_id: `j${id}`, spreadsheet_id: sheet, created_at: at(due) }),
        });
      await wb('w1', 'k1', 'S1', 10);
      await wb('w2', 'k1', 'S2', 20);
      await wb('w3', 'k1', 'S1', 50);
      await wb('w4', 'k2', 'S3', 15);
      await wb('w5', 'k2', 'S1', 30);
      await wb('w6', 'k3', 'S4', 1000);
      expect(await store.writebacks.dueKeys(at(5))).toEqual([]);
      expect(await store.writebacks.dueKeys(at(40))).toEqual([
        { key_id: 'k1', oldest: at(10) },
        { key_id: 'k2', oldest: at(15) },
      ]);

      // k2's first-due spreadsheet is S3, though k1's S1 is due earlier.
      expect((await store.writebacks.leaseSpreadsheet('o1', at(40), at(100), 'k2')).map((w) => w.id)).toEqual(['w4']);
      expect(await store.writebacks.dueKeys(at(40))).toEqual([
        { key_id: 'k1', oldest: at(10) },
        { key_id: 'k2', oldest: at(30) },
      ]);
      // k2's next is S1: claimed whole, k1's due row in it too (not w3, due at 50).
      expect(byId(await store.writebacks.leaseSpreadsheet('o1', at(40), at(100), 'k2')).map((w) => [w.id, w.key_id, w.attempts])).toEqual([
        ['w1', 'k1', 1],
        ['w5', 'k2', 1],
      ]);
      expect(await store.writebacks.dueKeys(at(40))).toEqual([{ key_id: 'k1', oldest: at(20) }]);
      // Nothing for a key with nothing due, or none at all.
      expect(await store.writebacks.leaseSpreadsheet('o2', at(40), at(100), 'k2')).toEqual([]);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(40), at(100), 'k3')).toEqual([]);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(40), at(100), 'nobody')).toEqual([]);
      expect((await store.writebacks.leaseSpreadsheet('o2', at(40), at(100), 'k1')).map((w) => w.id)).toEqual(['w2']);
      expect(await store.writebacks.dueKeys(at(40))).toEqual([]);

      // Leases that ran out put their write-backs back in the queue (a holder that died): w2 and w4 never finished.
      await store.writebacks.finish('w1', 'o1', { status: 'written', written: 1, missing: [], error: null, next_attempt_at: null }, at(41));
      await store.writebacks.finish('w5', 'o1', { status: 'written', written: 1, missing: [], error: null, next_attempt_at: null }, at(41));
      expect(await store.writebacks.dueKeys(at(2000))).toEqual([
        { key_id: 'k2', oldest: at(15) },
        { key_id: 'k1', oldest: at(20) },
        { key_id: 'k3', oldest: at(1000) },
      ]);
      expect((await store.writebacks.leaseSpreadsheet('o3', at(2000), at(2060), 'k1')).map((w) => [w.id, w.attempts])).toEqual([['w2', 2]]);
      // Finished write-backs are never listed nor leased again.
      expect(
        await store.writebacks.finish(
          'w2',
          'o3',
          { status: 'failed', written: 0, missing: [], error: 'spreadsheet not found', next_attempt_at: null },
          at(2001),
        ),
      ).toBe(true);
      expect((await store.writebacks.leaseSpreadsheet('o3', at(2002), at(2060), 'k1')).map((w) => w.id)).toEqual(['w3']);
      expect(await store.writebacks.dueKeys(at(2002))).toEqual([
        { key_id: 'k2', oldest: at(15) },
        { key_id: 'k3', oldest: at(1000) },
      ]);
    });

    it('a spreadsheet under a live lease is passed over, its rows that came due since included, until the holder finishes or its lease runs out', async () => {
      await key('k2');
      await finishedJob('jA', { writeback: writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }) });
      expect((await store.writebacks.leaseSpreadsheet('o1', at(20), at(100))).map((w) => w.id)).toEqual(['wA']);
      // Another key's write-back into the same spreadsheet comes due while o1 writes it.
      await finishedJob('jB', {
        keyId: 'k2',
        writeback: writebackRow('wB', { key_id: 'k2', subject_id: 'jB', spreadsheet_id: 'S1', created_at: at(30) }),
      });
      expect(await store.writebacks.dueKeys(at(40))).toEqual([]);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(40), at(100))).toEqual([]);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(40), at(100), 'k2')).toEqual([]);
      // Renewed, it stays held past its first time.
      expect(await store.writebacks.renew('o1', at(200))).toBe(1);
      expect(await store.writebacks.leaseSpreadsheet('o2', at(150), at(250), 'k2')).toEqual([]);
      // A retry ends the lease: the spreadsheet is free; the retried row waits for its own time.
      expect(
        await store.writebacks.finish(
          'wA',
          'o1',
          { status: 'pending', written: 0, missing: [], error: 'quota', next_attempt_at: at(500) },
          at(160),
        ),
      ).toBe(true);
      expect(await store.writebacks.dueKeys(at(160))).toEqual([{ key_id: 'k2', oldest: at(30) }]);
      expect((await store.writebacks.leaseSpreadsheet('o2', at(160), at(260), 'k2')).map((w) => w.id)).toEqual(['wB']);
      // o2 died holding S1: at 600 its lease has run out, and both rows go out together.
      expect(byId(await store.writebacks.leaseSpreadsheet('o3', at(600), at(700))).map((w) => [w.id, w.attempts])).toEqual([
        ['wA', 2],
        ['wB', 2],
      ]);
      expect(
        await store.writebacks.finish(
          'wB',
          'o2',
          { status: 'written', written: 1, missing: [], error: null, next_attempt_at: null },
          at(601),
        ),
      ).toBe(false);
    });

    it('CONCURRENCY: concurrent leases by key hand out each write-back once, each spreadsheet to one owner', async () => {
      await key('k2');
      await key('k3');
      // Four spreadsheets, each with a write-back of every key.
      for (let i = 0; i < 12; i++) {
        const keyId = `k${(i % 3) + 1}`;
        await finishedJob(`j${i}`, {
          keyId,
          writeback: writebackRow(`w${i}`, { key_id: keyId, subject_id: `j${i}`, spreadsheet_id: `S${i % 4}`, created_at: at(i) }),
        });
      }
      const claims = await Promise.all(
        Array.from({ length: 12 }, (_, n) => store.writebacks.leaseSpreadsheet(`o${n}`, at(100), at(160), `k${(n % 3) + 1}`)),
      );
      const nonEmpty = claims.filter((c) => c.length > 0);
      expect(nonEmpty).toHaveLength(4);
      for (const c of nonEmpty) expect(c.map((w) => w.spreadsheet_id)).toEqual(Array(3).fill(c[0]!.spreadsheet_id));
      expect(
        nonEmpty
          .flat()
          .map((w) => w.id)
          .sort(),
      ).toEqual(Array.from({ length: 12 }, (_, i) => `w${i}`).sort());
      expect(await store.writebacks.dueKeys(at(100))).toEqual([]);
    });
  });

  // ---- schedules --------------------------------------------------------------------------

  describe('schedules', () => {
    beforeEach(async () => {
      await key('k1');
      await key('k2');
    });

    it('create, get, list per key (created_at, id), with each output mode kept; delete only by the owning key', async () => {
      const s1 = schedule('s1', { created_at: at(5) });
      const s2 = schedule('s2', {
        created_at: at(1),
        cadence: 'weekly',
        point_limit: 12,
        sheet_name: 'Rates',
        dataset: 'eu-rates',
        output_mode: 'merge',
      });
      const s0 = schedule('s0', { created_at: at(5), cadence: 'hourly', output_mode: 'append' });
      const s3 = schedule('s3', { key_id: 'k2' });
      for (const s of [s1, s2, s0, s3]) await store.schedules.create(s);
      expect(await store.schedules.get('s2')).toEqual({ ...s2, ...idle });
      expect(await store.schedules.get('nope')).toBeNull();
      expect(await store.schedules.list('k1')).toEqual([s2, s0, s1].map((s) => ({ ...s, ...idle })));
      expect((await store.schedules.list('k2')).map((s) => s.id)).toEqual(['s3']);
      expect(await store.schedules.list('k9')).toEqual([]);
      expect(await store.schedules.delete('s1', 'k2')).toBe(false);
      expect(await store.schedules.get('s1')).not.toBeNull();
      expect(await store.schedules.delete('s1', 'k1')).toBe(true);
      expect(await store.schedules.get('s1')).toBeNull();
      expect(await store.schedules.delete('s1', 'k1')).toBe(false);
      expect((await store.schedules.list('k1')).map((s) => s.id)).toEqual(['s2', 's0']);
    });

    it('leaseDue: one due schedule at a time, never twice while running; finishRun; runs newest first', async () => {
      await store.schedules.create(schedule('s1', { next_run_at: at(60) }));
      await store.schedules.create(schedule('s2', { next_run_at: at(30) }));
      await store.schedules.create(schedule('s3', { next_run_at: at(100_000), key_id: 'k2' }));
      expect(await store.schedules.leaseDue(at(10), at(100))).toBeNull();
      expect(await store.schedules.leaseDue(at(70), at(130))).toEqual({
        ...schedule('s2', { next_run_at: at(30) }),
        ...idle,
        running_until: at(130),
      });
      expect(await store.schedules.leaseDue(at(70), at(130))).toMatchObject({ id: 's1', running_until: at(130) });
      expect(await store.schedules.leaseDue(at(71), at(131))).toBeNull();
      expect(await store.schedules.runs('s2', 10)).toEqual([
        { started_at: at(70), finished_at: null, status: 'running', rows: null, error: null },
      ]);

      await store.schedules.finishRun('s2', at(70), { finished_at: at(75), status: 'ok', rows: 12, error: null }, at(3600));
      expect(await store.schedules.get('s2')).toMatchObject({ next_run_at: at(3600), running_until: null });
      expect(await store.schedules.runs('s2', 10)).toEqual([
        { started_at: at(70), finished_at: at(75), status: 'ok', rows: 12, error: null },
      ]);
      expect(await store.schedules.leaseDue(at(100), at(160))).toBeNull(); // s1 still running, s2 not due

      // s1's run never finished and its lease (130) passed: it is claimed again, the old run marked interrupted.
      expect(await store.schedules.leaseDue(at(200), at(260))).toMatchObject({ id: 's1', running_until: at(260) });
      const runs = await store.schedules.runs('s1', 10);
      expect(runs).toHaveLength(2);
      expect(runs[0]).toEqual({ started_at: at(200), finished_at: null, status: 'running', rows: null, error: null });
      expect(runs[1]).toMatchObject({ started_at: at(70), finished_at: at(200), status: 'failed', rows: null });
      expect(runs[1]!.error).toMatch(/^interrupted/);
      await store.schedules.finishRun(
        's1',
        at(200),
        { finished_at: at(210), status: 'failed', rows: null, error: 'spreadsheet not found' },
        at(7200),
      );
      expect(await store.schedules.runs('s1', 1)).toEqual([
        { started_at: at(200), finished_at: at(210), status: 'failed', rows: null, error: 'spreadsheet not found' },
      ]);
      expect(await store.schedules.runs('s1', 10)).toHaveLength(2);
      expect(await store.schedules.runs('s3', 10)).toEqual([]);

      // Due again later: the runs list grows, newest first.
      expect((await store.schedules.leaseDue(at(3600), at(3660)))?.id).toBe('s2');
      await store.schedules.finishRun('s2', at(3600), { finished_at: at(3601), status: 'ok', rows: 3, error: null }, at(7200));
      expect((await store.schedules.runs('s2', 10)).map((r) => [r.started_at, r.rows])).toEqual([
        [at(3600), 3],
        [at(70), 12],
      ]);
      expect(await store.schedules.leaseDue(at(5000), at(5060))).toBeNull();
      expect(await store.schedules.leaseDue(at(7200), at(7260))).toMatchObject({ id: 's1', next_run_at: at(7200) });
    });

    it('renewRun holds the schedule past its lease while the run is still the running one; only that run finishes, once', async () => {
      await store.schedules.create(schedule('s1', { next_run_at: at(60) }));
      await store.schedules.create(schedule('s2', { next_run_at: at(60) }));
      expect(await store.schedules.leaseDue(at(70), at(130))).toMatchObject({ id: 's1' });
      expect(await store.schedules.leaseDue(at(70), at(130))).toMatchObject({ id: 's2' });
      expect(await store.schedules.renewRun('s1', at(70), at(400))).toBe(true);
      expect(await store.schedules.get('s1')).toMatchObject({ running_until: at(400) });
      // s2 was not renewed: at 200 it is claimed again; s1 is still held.
      expect(await store.schedules.leaseDue(at(200), at(260))).toMatchObject({ id: 's2', running_until: at(260) });
      expect(await store.schedules.leaseDue(at(200), at(260))).toBeNull();
      // s2's first run was cut off: it can no longer renew (it would take the schedule back from the new run),
      // nor record an outcome; the new run's hold, the next run time and the history stay as they are.
      expect(await store.schedules.renewRun('s2', at(70), at(900))).toBe(false);
      expect(
        await store.schedules.finishRun('s2', at(70), { finished_at: at(210), status: 'ok', rows: 5, error: null }, at(5000)),
      ).toBeNull();
      expect(await store.schedules.get('s2')).toMatchObject({ running_until: at(260), next_run_at: at(60), failures_in_row: 0 });
      expect((await store.schedules.runs('s2', 10)).map((r) => [r.started_at, r.status])).toEqual([
        [at(200), 'running'],
        [at(70), 'failed'],
      ]);
      expect(await store.schedules.finishRun('s2', at(200), { finished_at: at(220), status: 'ok', rows: 6, error: null }, at(5000))).toBe(
        0,
      );
      // A run finishes once.
      expect(
        await store.schedules.finishRun('s2', at(200), { finished_at: at(230), status: 'failed', rows: null, error: 'late' }, at(6000)),
      ).toBeNull();
      expect(await store.schedules.get('s2')).toMatchObject({ running_until: null, next_run_at: at(5000) });
      // A finished run renews nothing; a run that never was neither.
      await store.schedules.finishRun('s1', at(70), { finished_at: at(300), status: 'ok', rows: 1, error: null }, at(3600));
      expect(await store.schedules.renewRun('s1', at(70), at(900))).toBe(false);
      expect(await store.schedules.get('s1')).toMatchObject({ running_until: null });
      expect(await store.schedules.renewRun('s1', at(71), at(900))).toBe(false);
    });

    it('finishRun keeps the latest SCHEDULE_RUNS_KEPT (30) runs and drops older ones', async () => {
      await store.schedules.create(schedule('s1', { next_run_at: at(0) }));
      await store.schedules.create(schedule('s2', { next_run_at: at(0) }));
      // s2 runs once first: pruning s1 must not touch another schedule's history.
      expect((await store.schedules.leaseDue(at(1), at(2)))?.id).toBe('s1');
      await store.schedules.finishRun('s1', at(1), { finished_at: at(1), status: 'ok', rows: 1, error: null }, at(10));
      expect((await store.schedules.leaseDue(at(1), at(2)))?.id).toBe('s2');
      await store.schedules.finishRun('s2', at(1), { finished_at: at(1), status: 'ok', rows: 1, error: null }, at(1_000_000));
      for (let i = 2; i <= 35; i++) {
        const t0 = i * 10;
        expect((await store.schedules.leaseDue(at(t0), at(t0 + 5)))?.id).toBe('s1');
        await store.schedules.finishRun('s1', at(t0), { finished_at: at(t0 + 1), status: 'ok', rows: i, error: null }, at(t0 + 10));
        if (i === 30) expect(await store.schedules.runs('s1', 100)).toHaveLength(30);
      }
      const runs = await store.schedules.runs('s1', 100);
      expect(runs).toHaveLength(30);
      expect(runs[0]).toMatchObject({ started_at: at(350), rows: 35 });
      expect(runs[29]).toMatchObject({ started_at: at(60), rows: 6 });
      expect(await store.schedules.runs('s2', 100)).toHaveLength(1);
    });

    it('finishRun counts failed runs in a row; pause keeps it from leaseDue, across a reopen; resume only by its key resets it', async () => {
      await store.schedules.create(schedule('s1', { next_run_at: at(0) }));
      expect(await store.schedules.get('s1')).toMatchObject({ failures_in_row: 0, paused_at: null, paused_reason: null });
      const run = async (t0: number, status: 'ok' | 'failed') => {
        expect((await store.schedules.leaseDue(at(t0), at(t0 + 5)))?.id).toBe('s1');
        return store.schedules.finishRun(
          's1',
          at(t0),
          { finished_at: at(t0 + 1), status, rows: null, error: status === 'failed' ? 'boom' : null },
          at(t0 + 10),
        );
      };
      expect(await run(10, 'failed')).toBe(1);
      expect(await run(20, 'failed')).toBe(2);
      expect(await run(30, 'ok')).toBe(0);
      expect(await run(40, 'failed')).toBe(1);
      expect(await run(50, 'failed')).toBe(2);
      expect(await run(60, 'failed')).toBe(3);
      await store.schedules.pause('s1', 'Paused after 3 failed runs in a row. The last: boom', at(61));
      expect(await store.schedules.get('s1')).toMatchObject({
        failures_in_row: 3,
        paused_at: at(61),
        paused_reason: 'Paused after 3 failed runs in a row. The last: boom',
        running_until: null,
      });
      expect(await store.schedules.leaseDue(at(1000), at(1005))).toBeNull();

      // The pause is in the store: a restarted connector does not run it either.
      const again = await t.openAt(t.locations[0]!);
      expect(await again.schedules.leaseDue(at(2000), at(2005))).toBeNull();
      expect(await again.schedules.get('s1')).toMatchObject({ paused_at: at(61) });
      await t.closeStore(again);

      expect(await store.schedules.resume('s1', 'k2', at(3000))).toBe(false);
      expect(await store.schedules.get('s1')).toMatchObject({ paused_at: at(61), failures_in_row: 3 });
      expect(await store.schedules.resume('nope', 'k1', at(3000))).toBe(false);
      expect(await store.schedules.resume('s1', 'k1', at(3000))).toBe(true);
      expect(await store.schedules.get('s1')).toMatchObject({
        failures_in_row: 0,
        paused_at: null,
        paused_reason: null,
        next_run_at: at(3000),
      });
      expect(await store.schedules.leaseDue(at(2999), at(3004))).toBeNull();
      expect(await run(3000, 'failed')).toBe(1);
    });

    it('CONCURRENCY: concurrent leaseDue claims a due schedule once and records one run', async () => {
      await store.schedules.create(schedule('s1', { next_run_at: at(0) }));
      const leases = await Promise.all(Array.from({ length: 10 }, () => store.schedules.leaseDue(at(10), at(70))));
      expect(count(leases, (l) => l !== null)).toBe(1);
      expect(await store.schedules.runs('s1', 10)).toHaveLength(1);
    });
  });

  // ---- sheet bindings -----------------------------------------------------------------------

  describe('sheetBindings', () => {
    beforeEach(async () => {
      await key('k1');
      await key('k2');
    });
    const issue = (id: string, over: Partial<{ key_id: string; spreadsheet_id: string; token_hash: string; created_at: string }> = {}) =>
      store.sheetBindings.issue({ id, key_id: 'k1', spreadsheet_id: 'sheet-1', token_hash: 'a1'.repeat(32), created_at: at(0), ...over });

    it('issue creates a pending binding; get, find and list (created_at, id) per key', async () => {
      expect(await issue('b1')).toEqual({
        id: 'b1',
        key_id: 'k1',
        spreadsheet_id: 'sheet-1',
        token_hash: 'a1'.repeat(32),
        status: 'pending',
        created_at: at(0),
        verified_at: null,
      });
      await issue('b2', { spreadsheet_id: 'sheet-0', created_at: at(0) });
      await issue('b0', { spreadsheet_id: 'sheet-2', created_at: at(5) });
      await issue('b3', { key_id: 'k2' });
      expect(await store.sheetBindings.get('b3')).toMatchObject({ key_id: 'k2', spreadsheet_id: 'sheet-1' });
      expect(await store.sheetBindings.get('nope')).toBeNull();
      expect((await store.sheetBindings.find('k1', 'sheet-1'))?.id).toBe('b1');
      expect((await store.sheetBindings.find('k2', 'sheet-1'))?.id).toBe('b3');
      expect(await store.sheetBindings.find('k2', 'sheet-2')).toBeNull();
      expect((await store.sheetBindings.list('k1')).map((b) => b.id)).toEqual(['b1', 'b2', 'b0']);
      expect(await store.sheetBindings.list('k9')).toEqual([]);
    });

    it('issuing again for the same key and spreadsheet keeps the id and created_at, takes the new hash, and goes back to pending', async () => {
      await issue('b1');
      expect(await store.sheetBindings.recordCheck('b1', 'a1'.repeat(32), true, at(10))).toBe(true);
      expect(await issue('b-new', { token_hash: 'b2'.repeat(32), created_at: at(20) })).toEqual({
        id: 'b1',
        key_id: 'k1',
        spreadsheet_id: 'sheet-1',
        token_hash: 'b2'.repeat(32),
        status: 'pending',
        created_at: at(0),
        verified_at: null,
      });
      expect(await store.sheetBindings.get('b-new')).toBeNull();
      // The old token's checks no longer count; the new one's do, whenever they started.
      expect(await store.sheetBindings.recordCheck('b1', 'a1'.repeat(32), true, at(30))).toBe(false);
      expect((await store.sheetBindings.get('b1'))?.status).toBe('pending');
      expect(await store.sheetBindings.recordCheck('b1', 'b2'.repeat(32), true, at(5))).toBe(true);
      expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(5) });
    });

    it('recordCheck: found -> active at the check time; not found -> pending, keeping when it was last found; a check older than the last recorded is ignored', async () => {
      await issue('b1');
      const h = 'a1'.repeat(32);
      expect(await store.sheetBindings.recordCheck('b1', h, true, at(10))).toBe(true);
      expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(10) });
      expect(await store.sheetBindings.recordCheck('b1', h, false, at(20))).toBe(true);
      expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'pending', verified_at: at(10) });
      // A slow check that started before the last recorded one must not turn it back to active.
      expect(await store.sheetBindings.recordCheck('b1', h, true, at(15))).toBe(false);
      expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'pending', verified_at: at(10) });
      expect(await store.sheetBindings.recordCheck('b1', h, true, at(20))).toBe(true);
      expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(20) });
      expect(await store.sheetBindings.recordCheck('b1', 'ff'.repeat(32), true, at(30))).toBe(false);
      expect(await store.sheetBindings.recordCheck('nope', h, true, at(30))).toBe(false);
    });

    it('delete only by the owning key', async () => {
      await issue('b1');
      expect(await store.sheetBindings.delete('b1', 'k2')).toBe(false);
      expect(await store.sheetBindings.get('b1')).not.toBeNull();
      expect(await store.sheetBindings.delete('b1', 'k1')).toBe(true);
      expect(await store.sheetBindings.find('k1', 'sheet-1')).toBeNull();
      expect(await store.sheetBindings.delete('b1', 'k1')).toBe(false);
    });

    it('CONCURRENCY: concurrent issues for one key and spreadsheet leave one binding holding one of the hashes', async () => {
      const hashes = Array.from({ length: 10 }, (_, i) => String(i).repeat(64));
      const issued = await Promise.all(hashes.map((h, i) => issue(`b${i}`, { token_hash: h })));
      expect(new Set(issued.map((b) => b.id)).size).toBe(1);
      const list = await store.sheetBindings.list('k1');
      expect(list).toHaveLength(1);
      expect(hashes).toContain(list[0]!.token_hash);
    });
  });
});
