/** Storage contract, webhook outbox (store/types/outbox.ts): leases of due deliveries, attempts, listing. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AttemptRecord, Store } from '../../../connector/src/store/types.js';
import { at, outboxRow } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key, finishedJob } = t;

  describe('outbox', () => {
    beforeEach(async () => {
      await key('k1');
      await key('k2');
    });

    it('lease: only due, pending, unleased rows, by next_attempt_at; recordAttempt moves the state', async () => {
      await finishedJob('j1', { outbox: outboxRow('o1', { created_at: at(10) }) });
      await finishedJob('j2', { outbox: outboxRow('o2', { created_at: at(20) }) });
      await finishedJob('j3', { outbox: outboxRow('o3', { created_at: at(30) }) });
      expect(await store.outbox.lease(at(5), at(65))).toBeNull();
      expect((await store.outbox.lease(at(25), at(85)))?.id).toBe('o1');
      expect((await store.outbox.lease(at(25), at(85)))?.id).toBe('o2');
      expect(await store.outbox.lease(at(25), at(85))).toBeNull(); // o3 not due yet
      expect(await store.outbox.lease(at(40), at(100))).toMatchObject({ id: 'o3', status: 'pending', attempts: 0 });
      expect(await store.outbox.lease(at(84), at(150))).toBeNull();
      // o1 and o2's leases passed at 85.
      expect((await store.outbox.lease(at(90), at(150)))?.id).toBe('o1');

      const a1: AttemptRecord = { attempt: 1, at: at(91), status: 500, error: 'HTTP 500', duration_ms: 120 };
      await store.outbox.recordAttempt('o1', a1, { status: 'pending', next_attempt_at: at(200) });
      expect(await store.outbox.get('o1')).toMatchObject({
        status: 'pending',
        attempts: 1,
        next_attempt_at: at(200),
        last_status: 500,
        last_error: 'HTTP 500',
        delivered_at: null,
      });
      // The lease is cleared, but it is not due before 200.
      expect((await store.outbox.lease(at(95), at(300)))?.id).toBe('o2');
      // o3's lease (100) has passed; o1 is free but not due.
      expect((await store.outbox.lease(at(150), at(300)))?.id).toBe('o3');
      expect(await store.outbox.lease(at(150), at(300))).toBeNull();
      // The same attempt recorded twice (a retried write) keeps one log entry.
      await store.outbox.recordAttempt('o1', a1, { status: 'pending', next_attempt_at: at(200) });
      expect((await store.outbox.get('o1'))?.attempts).toBe(1);

      expect((await store.outbox.lease(at(201), at(260)))?.id).toBe('o1');
      const a2: AttemptRecord = { attempt: 2, at: at(202), status: 204, error: null, duration_ms: 35 };
      await store.outbox.recordAttempt('o1', a2, { status: 'delivered', next_attempt_at: null });
      expect(await store.outbox.get('o1')).toMatchObject({
        status: 'delivered',
        attempts: 2,
        next_attempt_at: at(200),
        last_status: 204,
        last_error: null,
        delivered_at: at(202),
      });

      await store.outbox.recordAttempt(
        'o3',
        { attempt: 1, at: at(203), status: null, error: 'ECONNREFUSED', duration_ms: 3 },
        { status: 'failed', next_attempt_at: null },
      );
      expect(await store.outbox.get('o3')).toMatchObject({
        status: 'failed',
        attempts: 1,
        last_status: null,
        last_error: 'ECONNREFUSED',
        delivered_at: null,
      });
      // Delivered and failed rows are never leased again; o2 (lease until 300) is once free.
      expect(await store.outbox.lease(at(10_000), at(10_060))).toMatchObject({ id: 'o2' });
      expect(await store.outbox.lease(at(10_000), at(10_060))).toBeNull();

      const page = await store.outbox.list('k1', { limit: 10, offset: 0 });
      const o1 = page.items.find((i) => i.id === 'o1')!;
      expect(o1.attempt_log).toEqual([a1, a2]);
      expect(page.items.find((i) => i.id === 'o3')!.attempt_log).toEqual([
        { attempt: 1, at: at(203), status: null, error: 'ECONNREFUSED', duration_ms: 3 },
      ]);
      expect(page.items.find((i) => i.id === 'o2')!.attempt_log).toEqual([]);
    });

    it('list: one key, newest first, paged, with total and attempt logs; get; forSubject', async () => {
      await finishedJob('j1', { outbox: outboxRow('o1', { created_at: at(10), subject_id: 'S1' }) });
      await finishedJob('j2', { outbox: outboxRow('o2', { created_at: at(30), subject_id: 'S2' }) });
      await finishedJob('j3', { outbox: outboxRow('o3', { created_at: at(20), subject_id: 'S1', event_type: 'verification.failed' }) });
      await finishedJob('j4', { outbox: outboxRow('o4', { created_at: at(40), key_id: 'k2', subject_id: 'S4' }) });
      const first = await store.outbox.list('k1', { limit: 2, offset: 0 });
      expect(first.total).toBe(3);
      expect(first.items.map((i) => i.id)).toEqual(['o2', 'o3']);
      expect(first.items[0]).toEqual({
        ...outboxRow('o2', { created_at: at(30), subject_id: 'S2' }),
        status: 'pending',
        attempts: 0,
        next_attempt_at: at(30),
        last_status: null,
        last_error: null,
        delivered_at: null,
        attempt_log: [],
      });
      const second = await store.outbox.list('k1', { limit: 2, offset: 2 });
      expect(second).toMatchObject({ total: 3 });
      expect(second.items.map((i) => i.id)).toEqual(['o1']);
      expect(await store.outbox.list('k1', { limit: 2, offset: 4 })).toEqual({ items: [], total: 3 });
      expect((await store.outbox.list('k2', { limit: 10, offset: 0 })).items.map((i) => i.id)).toEqual(['o4']);
      expect(await store.outbox.list('k3', { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });

      expect((await store.outbox.forSubject('S1')).map((o) => o.id)).toEqual(['o1', 'o3']);
      expect((await store.outbox.forSubject('S1'))[1]).toMatchObject({ event_type: 'verification.failed', created_at: at(20) });
      expect(await store.outbox.forSubject('none')).toEqual([]);
      expect(await store.outbox.get('o4')).toMatchObject({ id: 'o4', key_id: 'k2', subject_id: 'S4' });
      expect(await store.outbox.get('nope')).toBeNull();
    });

    it('CONCURRENCY: concurrent leases hand out each due delivery once', async () => {
      for (let i = 0; i < 5; i++) await finishedJob(`j${i}`, { outbox: outboxRow(`o${i}`, { created_at: at(i) }) });
      const leases = await Promise.all(Array.from({ length: 20 }, () => store.outbox.lease(at(100), at(160))));
      expect(
        leases
          .filter((l) => l !== null)
          .map((l) => l!.id)
          .sort(),
      ).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
    });
  });
});
