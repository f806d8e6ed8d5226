/** Storage contract, key portal (store/types/portal.ts): key requests, one-time activation, the unused-key sweep. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { KeyRequestRecord, Store } from '../../../connector/src/store/types.js';
import { at, keyRequest, count } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key } = t;

  describe('portal', () => {
    it('createRequest / findRequest round-trip; unknown is null', async () => {
      const r1 = keyRequest('r1', { mode: 'test' });
      await store.portal.createRequest(r1);
      expect(await store.portal.findRequest('hash-r1')).toEqual({ ...r1, used_at: null, key_id: null });
      expect(await store.portal.findRequest('nope')).toBeNull();
    });

    it('consumeRequest: ok once, then used; expired; unknown; attachKey', async () => {
      await key('k1');
      await store.portal.createRequest(keyRequest('r1'));
      await store.portal.createRequest(keyRequest('r2', { expires_at: at(100) }));
      expect(await store.portal.consumeRequest('hash-r1', at(10))).toEqual({
        ok: true,
        request: { ...keyRequest('r1'), used_at: at(10), key_id: null },
      });
      expect(await store.portal.consumeRequest('hash-r1', at(11))).toEqual({ ok: false, reason: 'used' });
      expect(await store.portal.consumeRequest('hash-r1', at(99_999))).toEqual({ ok: false, reason: 'used' });
      expect(await store.portal.consumeRequest('hash-r2', at(200))).toEqual({ ok: false, reason: 'expired' });
      expect((await store.portal.findRequest('hash-r2'))?.used_at).toBeNull();
      expect(await store.portal.consumeRequest('nope', at(10))).toEqual({ ok: false, reason: 'unknown' });
      await store.portal.attachKey('r1', 'k1');
      expect(await store.portal.findRequest('hash-r1')).toEqual({ ...keyRequest('r1'), used_at: at(10), key_id: 'k1' });
      expect((await store.portal.findRequest('hash-r2'))?.key_id).toBeNull();
    });

    it('CONCURRENCY: concurrent activations of one link: exactly one succeeds', async () => {
      await store.portal.createRequest(keyRequest('r1'));
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => store.portal.consumeRequest('hash-r1', at(10 + i))));
      expect(count(outcomes, (o) => o.ok)).toBe(1);
      expect(outcomes.filter((o) => !o.ok)).toEqual(Array.from({ length: 9 }, () => ({ ok: false, reason: 'used' })));
      const winner = outcomes.find((o) => o.ok) as { ok: true; request: KeyRequestRecord };
      expect((await store.portal.findRequest('hash-r1'))?.used_at).toBe(winner.request.used_at);
    });

    it('deactivateUnused: only active, never-used free keys created before the cutoff, not named in exceptNames', async () => {
      await key('a-free-unused', { created_at: at(0) });
      await key('b-free-used', { created_at: at(0) });
      await store.keys.touch('b-free-used', at(5));
      await key('c-standard', { plan: 'standard', created_at: at(0) });
      await key('d-revoked', { created_at: at(0) });
      await store.keys.revoke('d-revoked', at(1));
      await key('e-new', { created_at: at(100) });
      await key('f-excepted', { created_at: at(0), name: 'demo key' });
      await key('g-test-mode', { created_at: at(0), mode: 'test' });
      await key('h-at-cutoff', { created_at: at(50) });
      const ids = await store.portal.deactivateUnused(at(50), at(60), ['demo key', 'other name']);
      expect([...ids].sort()).toEqual(['a-free-unused', 'g-test-mode']);
      expect(await store.keys.get('a-free-unused')).toMatchObject({ status: 'deactivated', revoked_at: null });
      expect((await store.keys.get('g-test-mode'))?.status).toBe('deactivated');
      expect((await store.keys.get('b-free-used'))?.status).toBe('active');
      expect((await store.keys.get('c-standard'))?.status).toBe('active');
      expect((await store.keys.get('d-revoked'))?.status).toBe('revoked');
      expect((await store.keys.get('e-new'))?.status).toBe('active');
      expect((await store.keys.get('f-excepted'))?.status).toBe('active');
      expect((await store.keys.get('h-at-cutoff'))?.status).toBe('active');
      expect(await store.portal.deactivateUnused(at(50), at(61), ['demo key'])).toEqual([]);
      expect(await store.portal.deactivateUnused(at(50), at(62), [])).toEqual(['f-excepted']);
      // A deactivated key is not revoked: revoke still works once.
      expect(await store.keys.revoke('a-free-unused', at(70))).toBe(true);
    });
  });
});
