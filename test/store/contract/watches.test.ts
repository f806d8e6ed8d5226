/**
 * Storage contract, watches (store/types/watches.ts): one holder per watch; a run takes every policy
 * (cadence) or the marked ones (re-check); reservations refused beyond the balance with nothing written;
 * a chunk committed once, only by the holder, its credits settled; a run closed once, giving back what it
 * left reserved and enqueuing its deliveries; runs beyond the kept ones dropped with what went with them;
 * a watch deleted with everything; re-check marks and scans; e-mail digests leased and finished.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { CloseWatchRun, Store, WatchItemOutcome } from '../../../connector/src/store/types.js';
import { WATCH_RUNS_KEPT } from '../../../connector/src/store/types/watches.js';
import { at, newWatch, outboxRow, PERIOD, watchWithRun, writebackRow } from './fixtures.js';
import { storeContract } from './harness.js';
import { getWatch } from '../../../connector/src/watches/manage.js';

const item = (idx: number, over: Partial<WatchItemOutcome> = {}): WatchItemOutcome => ({
  idx,
  state: `{"n":${idx}}`,
  probe: 'a:1 s:0',
  charge: 1,
  change: null,
  ...over,
});
const reservation = (amount: number) => ({ amount, period: PERIOD, ref: 'watch:r1' });

storeContract((t) => {
  let store: Store;
  beforeEach(async () => {
    store = t.store;
    await t.key('k1');
    await t.key('k2');
  });

  function close(over: Partial<CloseWatchRun> = {}): CloseWatchRun {
    return {
      watch_id: 'w1',
      run_id: 'r1',
      owner: 'o1',
      key_id: 'k1',
      status: 'complete',
      stop_reason: null,
      next_run_at: at(86_400),
      outbox: null,
      mail: null,
      writebacks: [],
      ref: 'watch:r1',
      at: at(10),
      ...over,
    };
  }

  async function leasedRun(items = 3): Promise<void> {
    await store.watches.create(newWatch('w1', items));
    expect((await store.watches.lease('o1', at(1), at(61)))?.id).toBe('w1');
    expect(await store.watches.openRun('w1', 'o1', { id: 'r1', trigger: 'schedule', at: at(1) })).toMatchObject({
      total: items,
      status: 'running',
    });
  }

  describe('ownership and leases', () => {
    it("lists a key's watches; another key can neither pause, resume nor delete one", async () => {
      await store.watches.create(newWatch('w1'));
      await store.watches.create(newWatch('w2', 1, { key_id: 'k2', created_at: at(5) }));
      expect((await store.watches.list('k1')).map((w) => [w.id, w.policy_count, w.notify_unchanged])).toEqual([['w1', 3, false]]);
      expect(await store.watches.pause('w1', 'k2', at(2))).toBe(false);
      expect(await store.watches.resume('w1', 'k2')).toBe(false);
      expect(await store.watches.delete('w1', 'k2')).toBe(false);
      expect(await store.watches.get('w1')).toMatchObject({ paused_at: null, next_run_at: at(0), run_id: null });
    });

    it('leases a due watch to one holder at a time; a paused one not at all; a lease run out is taken again', async () => {
      await store.watches.create(newWatch('w1'));
      await store.watches.create(newWatch('w2', 1, { next_run_at: at(100) }));
      expect((await store.watches.lease('o1', at(1), at(61)))?.id).toBe('w1');
      expect(await store.watches.lease('o2', at(2), at(62))).toBeNull();
      expect((await store.watches.lease('o2', at(62), at(122)))?.id).toBe('w1');
      expect(await store.watches.renew('w1', 'o1', at(200))).toBe(false);
      await store.watches.release('w1', 'o2');
      expect(await store.watches.pause('w1', 'k1', at(63))).toBe(true);
      expect(await store.watches.lease('o3', at(64), at(124))).toBeNull();
      expect(await store.watches.resume('w1', 'k1')).toBe(true);
      expect((await store.watches.lease('o3', at(101), at(161)))?.id).toBe('w1');
      expect((await store.watches.lease('o4', at(101), at(161)))?.id).toBe('w2');
    });
  });

  describe('reading a watch', () => {
    it('a run closing while the watch is read shows in all of the view or in none of it', async () => {
      await leasedRun();
      // The store the view reads through closes the run right after the view's first read answers, as the
      // runner may between two of its queries.
      let closed = false;
      const watches = new Proxy(store.watches, {
        get(target, name, receiver) {
          const v = Reflect.get(target, name, receiver) as unknown;
          if (typeof v !== 'function' || name === 'closeRun') return v;
          return async (...args: unknown[]) => {
            const out = await (v as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            if (!closed) {
              closed = true;
              expect(await target.closeRun(close())).toBe(true);
            }
            return out;
          };
        },
      });
      const view = await getWatch('k1', 'w1', { ...store, watches });
      expect(closed).toBe(true);
      // Either the run still open with the next run not yet moved on, or closed with it moved on: never a
      // closed run beside the next run it had before.
      const seen = [view.last_run?.status, view.next_run_at];
      expect([
        ['running', at(0)],
        ['complete', at(86_400)],
      ]).toContainEqual(seen);
    });
  });

  describe('runs', () => {
    it('a cadence run takes every policy, a re-check run only the marked ones; one run open at a time', async () => {
      await leasedRun();
      expect(await store.watches.openRun('w1', 'o1', { id: 'r2', trigger: 'schedule', at: at(2) })).toBeNull();
      expect((await store.watches.pendingItems('w1', 'r1', 2)).map((i) => i.idx)).toEqual([0, 1]);
      expect(
        await store.watches.commitChunk({
          watch_id: 'w1',
          run_id: 'r1',
          owner: 'o1',
          key_id: 'k1',
          items: [0, 1, 2].map((i) => item(i, { charge: 0 })),
          ref: 'watch:r1',
          at: at(3),
        }),
      ).toBe(true);
      await store.watches.markRecheck([{ watch_id: 'w1', idx: 1 }], at(4));
      expect(await store.watches.rechecksPending('w1')).toBe(1);
      expect(await store.watches.closeRun(close())).toBe(true);
      // A mark made while a run was open keeps the watch due for a re-check after it.
      const w = (await store.watches.get('w1'))!;
      expect(w).toMatchObject({ run_id: null, lease_owner: null, next_run_at: at(86_400), recheck_at: at(4) });
      expect((await store.watches.lease('o2', at(20), at(80)))?.id).toBe('w1');
      const recheck = await store.watches.openRun('w1', 'o2', { id: 'r2', trigger: 'register_change', at: at(20) });
      expect(recheck).toMatchObject({ trigger: 'register_change', total: 1 });
      expect((await store.watches.pendingItems('w1', 'r2', 10)).map((i) => i.idx)).toEqual([1]);
      expect(await store.watches.rechecksPending('w1')).toBe(0);
    });

    it('reserves only what the balance covers, nothing otherwise; a chunk settles once, only by the holder', async () => {
      await leasedRun();
      expect(await store.watches.reserve('w1', 'r1', 'o1', [0, 1, 2], reservation(11), at(2))).toEqual({ ok: false, balance: 10 });
      expect((await store.watches.pendingItems('w1', 'r1', 10)).map((i) => i.reserved)).toEqual([0, 0, 0]);
      expect(await store.watches.reserve('w1', 'r1', 'intruder', [0], reservation(1), at(2))).toBeNull();
      expect(await store.watches.reserve('w1', 'r1', 'o1', [0, 1, 2], reservation(3), at(2))).toEqual({ ok: true });
      expect((await store.keys.get('k1'))!.balance).toBe(7);

      const chunk = { watch_id: 'w1', run_id: 'r1', owner: 'o1', key_id: 'k1', ref: 'watch:r1', at: at(3) };
      const change = { before: '{}', after: '{}', reasons: '["cancelled"]', why: 'cancelled' };
      expect(await store.watches.commitChunk({ ...chunk, owner: 'intruder', items: [item(0)] })).toBe(false);
      expect(await store.watches.commitChunk({ ...chunk, items: [item(0), item(1, { charge: 0, change })] })).toBe(true);
      // Again: committed policies are skipped, nothing settled twice.
      expect(await store.watches.commitChunk({ ...chunk, items: [item(0), item(1, { charge: 0, change })] })).toBe(true);
      expect((await store.keys.get('k1'))!.balance).toBe(8);
      expect(await store.watches.run('r1')).toMatchObject({ checked: 2, changed: 1, credits: 1 });
      expect(await store.watches.changes('r1')).toEqual([{ run_id: 'r1', idx: 1, policy_number: 'P1', ...change }]);

      // Closed with policy 2 unchecked: its credit comes back, and it leaves the run.
      const outbox = outboxRow('m1', { key_id: 'k1', subject_id: 'r1', event_type: 'watch.run.changed' });
      const mail = {
        id: 'mail1',
        key_id: 'k1',
        watch_id: 'w1',
        run_id: 'r1',
        to_address: 'a@example.com',
        subject: 's',
        text: 't',
        html: 'h',
        created_at: at(10),
      };
      const wb = writebackRow('wb1', { key_id: 'k1', subject_type: 'watch_run', subject_id: 'r1', kind: 'changes' });
      expect(await store.watches.closeRun(close({ owner: 'intruder' }))).toBe(false);
      expect(await store.watches.closeRun(close({ status: 'stopped', stop_reason: 'credits', outbox, mail, writebacks: [wb] }))).toBe(true);
      expect(await store.watches.closeRun(close())).toBe(false);
      expect((await store.keys.get('k1'))!.balance).toBe(9);
      expect(await store.watches.run('r1')).toMatchObject({ status: 'stopped', stop_reason: 'credits', finished_at: at(10) });
      expect((await store.watches.pendingItems('w1', 'r1', 10)).length).toBe(0);
      expect((await store.outbox.forSubject('r1')).map((o) => o.id)).toEqual(['m1']);
      expect((await store.writebacks.forSubject('r1'))?.kind).toBe('changes');
      expect((await store.watches.mails('r1')).map((m) => [m.id, m.status])).toEqual([['mail1', 'pending']]);
    });

    it(`keeps the latest ${WATCH_RUNS_KEPT} runs, dropping older ones with their changes and deliveries`, async () => {
      await store.watches.create(newWatch('w1', 1));
      for (let n = 0; n <= WATCH_RUNS_KEPT; n++) {
        const s = n * 100;
        expect((await store.watches.lease('o1', at(s + 1), at(s + 61)))?.id).toBe('w1');
        await store.watches.openRun('w1', 'o1', { id: `r${n}`, trigger: 'schedule', at: at(s + 1) });
        const outbox = outboxRow(`m${n}`, { key_id: 'k1', subject_id: `r${n}` });
        expect(await store.watches.closeRun(close({ run_id: `r${n}`, next_run_at: at(s + 100), outbox, at: at(s + 2) }))).toBe(true);
      }
      expect(await store.watches.run('r0')).toBeNull();
      expect(await store.outbox.get('m0')).toBeNull();
      expect(await store.watches.run('r1')).not.toBeNull();
      expect((await store.watches.lastRun('w1'))?.id).toBe(`r${WATCH_RUNS_KEPT}`);
    });
  });

  describe('deletion, re-check scans and e-mail', () => {
    it('deletes a watch with its policies, runs, changes, e-mails and deliveries; another watch stays', async () => {
      await watchWithRun(store, 'w1', 'k1');
      await watchWithRun(store, 'w2', 'k2');
      expect(await store.watches.delete('w1', 'k1')).toBe(true);
      expect(await store.watches.get('w1')).toBeNull();
      expect(await store.watches.run('w1-run')).toBeNull();
      expect(await store.watches.mails('w1-run')).toEqual([]);
      expect(await store.watches.changes('w2-run')).toHaveLength(1);
      expect(await store.watches.delete('w1', 'k1')).toBe(false);
    });

    it('scans checked policies no open run still holds; remembers the reference version it saw', async () => {
      await watchWithRun(store, 'w1', 'k1');
      await store.watches.create(newWatch('w2', 2, { next_run_at: at(86_400) }));
      expect(await store.watches.probeItems(null, 10)).toEqual([
        { watch_id: 'w1', idx: 0, mode: 'live', input: '{"policy_number":"P0"}', last_state: '{}', probe: 'a:1 s:0' },
      ]);
      expect(await store.watches.probeItems({ watch_id: 'w1', idx: 0 }, 10)).toEqual([]);
      expect(await store.watches.referenceVersion()).toBeNull();
      await store.watches.setReferenceVersion(7);
      expect(await store.watches.referenceVersion()).toBe(7);
      await store.watches.markRecheck([{ watch_id: 'w1', idx: 0 }], at(50));
      expect(await store.watches.get('w1')).toMatchObject({ recheck_at: at(50) });
      expect((await store.watches.lease('o9', at(50), at(110)))?.id).toBe('w1');
    });

    it('leases a due e-mail once; a failed attempt is retried when due, a sent one never again', async () => {
      await watchWithRun(store, 'w1', 'k1');
      const mail = (await store.watches.leaseMail(at(10), at(70)))!;
      expect(mail).toMatchObject({ id: 'w1-mail', attempts: 1, status: 'pending' });
      expect(await store.watches.leaseMail(at(11), at(71))).toBeNull();
      await store.watches.finishMail(mail.id, { status: 'pending', error: 'refused', next_attempt_at: at(100) }, at(12));
      expect(await store.watches.leaseMail(at(50), at(110))).toBeNull();
      expect((await store.watches.leaseMail(at(100), at(160)))?.attempts).toBe(2);
      await store.watches.finishMail(mail.id, { status: 'sent', error: null, next_attempt_at: null }, at(101));
      expect((await store.watches.mails('w1-run'))[0]).toMatchObject({ status: 'sent', sent_at: at(101) });
      expect(await store.watches.leaseMail(at(1000), at(1060))).toBeNull();
    });
  });
});
