/** Storage contract, Idempotency-Key claims (store/types/idempotency.ts): new, in progress, mismatch, replay, stale takeover, release. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, count } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key } = t;

  describe('idempotency', () => {
    beforeEach(async () => {
      await key('k1');
      await key('k2');
    });

    it('new, in_progress, mismatch, complete, replay; claims are per key', async () => {
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(1), at(-60))).toEqual({ state: 'in_progress' });
      expect(await store.idempotency.begin('k1', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'mismatch' });
      expect(await store.idempotency.begin('k2', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'new' });
      await store.idempotency.complete('k1', 'i1', { status: 201, body: '{"id":"x"}' }, at(2));
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(3), at(-60))).toEqual({ state: 'replay', status: 201, body: '{"id":"x"}' });
      expect(await store.idempotency.begin('k1', 'i1', 'h2', at(3), at(-60))).toEqual({ state: 'mismatch' });
      // k2's claim on the same idempotency key is untouched.
      expect(await store.idempotency.begin('k2', 'i1', 'h2', at(4), at(-60))).toEqual({ state: 'in_progress' });
      // A completed response is replayed even long after (only unfinished claims go stale).
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(10_000), at(9_000))).toEqual({
        state: 'replay',
        status: 201,
        body: '{"id":"x"}',
      });
    });

    it('a stale claim (created_at < staleBefore) is taken over, and then held again', async () => {
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
      // created_at == staleBefore is not stale.
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(30), at(0))).toEqual({ state: 'in_progress' });
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(100), at(50))).toEqual({ state: 'new' });
      // The takeover restarted the clock: same cutoff, no longer stale.
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(101), at(50))).toEqual({ state: 'in_progress' });
      // A stale claim with another body is still a mismatch.
      expect(await store.idempotency.begin('k1', 'i1', 'h9', at(500), at(400))).toEqual({ state: 'mismatch' });
    });

    it('release drops an uncompleted claim only', async () => {
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
      await store.idempotency.release('k1', 'i1');
      // Gone: even another body starts afresh.
      expect(await store.idempotency.begin('k1', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'new' });

      expect(await store.idempotency.begin('k1', 'i2', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
      await store.idempotency.complete('k1', 'i2', { status: 200, body: 'ok' }, at(1));
      await store.idempotency.release('k1', 'i2');
      expect(await store.idempotency.begin('k1', 'i2', 'h1', at(2), at(-60))).toEqual({ state: 'replay', status: 200, body: 'ok' });
      await store.idempotency.release('k1', 'unknown');
    });

    it('CONCURRENCY: concurrent begins of one new claim: exactly one is new', async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.idempotency.begin('k1', 'race', 'h1', at(0), at(-60))));
      expect(count(outcomes, (o) => o.state === 'new')).toBe(1);
      expect(count(outcomes, (o) => o.state === 'in_progress')).toBe(19);
    });
  });
});
