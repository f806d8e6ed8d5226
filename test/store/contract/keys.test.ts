/** Storage contract, API keys (store/types/keys.ts): create, find, list, revoke, touch, webhook secret. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, newKey } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key } = t;

  describe('keys', () => {
    it('create returns the stored record: balance = allowance, active, nullable fields null', async () => {
      const created = await store.keys.create(newKey('k1', { scopes: ['verify', 'extract', 'datasets'], allowance: 250 }));
      expect(created).toEqual({
        id: 'k1',
        lookup: 'lk_k1',
        hash: 'ab'.repeat(32),
        name: 'key k1',
        email: null,
        mode: 'live',
        plan: 'free',
        scopes: ['verify', 'extract', 'datasets'],
        status: 'active',
        allowance: 250,
        balance: 250,
        period: '2026-11',
        created_at: '2026-11-02T10:00:00.000Z',
        last_used_at: null,
        revoked_at: null,
        webhook_secret: null,
      });
      expect(await store.keys.get('k1')).toEqual(created);
      expect(await store.keys.findByLookup('lk_k1')).toEqual(created);
    });

    it('optional fields, empty scopes and other modes and plans round-trip', async () => {
      const k2 = await key('k2', {
        email: 'ops@example.com',
        mode: 'test',
        plan: 'enterprise',
        scopes: [],
        allowance: 0,
        webhook_secret: 'whsec_c2VjcmV0',
        created_at: '2026-11-02T10:00:05.123Z',
      });
      expect(k2).toMatchObject({
        email: 'ops@example.com',
        mode: 'test',
        plan: 'enterprise',
        scopes: [],
        allowance: 0,
        balance: 0,
        webhook_secret: 'whsec_c2VjcmV0',
        created_at: '2026-11-02T10:00:05.123Z',
      });
      expect(await store.keys.get('k2')).toEqual(k2);
      const k3 = await key('k3', { plan: 'standard', scopes: ['datasets', 'verify'] });
      expect((await store.keys.findByLookup('lk_k3'))?.scopes).toEqual(k3.scopes);
      expect(k3.scopes).toEqual(['datasets', 'verify']);
    });

    it('unknown ids and lookups are null', async () => {
      await key('k1');
      expect(await store.keys.get('nope')).toBeNull();
      expect(await store.keys.findByLookup('nope')).toBeNull();
      expect(await store.keys.findByLookup('k1')).toBeNull();
    });

    it('a duplicate id or lookup is refused and writes nothing', async () => {
      await key('k1');
      await expect(store.keys.create(newKey('k2', { lookup: 'lk_k1' }))).rejects.toThrow();
      await expect(store.keys.create(newKey('k1', { lookup: 'lk_other' }))).rejects.toThrow();
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['k1']);
      expect(await store.keys.findByLookup('lk_other')).toBeNull();
    });

    it('list is ordered by created_at, then id', async () => {
      await key('kb', { created_at: at(10) });
      await key('ka', { created_at: at(10) });
      await key('kc', { created_at: at(0) });
      await key('kd', { created_at: at(5) });
      expect((await store.keys.list()).map((k) => k.id)).toEqual(['kc', 'kd', 'ka', 'kb']);
    });

    it('revoke changes the status once; revoking again or an unknown key is false', async () => {
      await key('k1');
      await key('k2');
      expect(await store.keys.revoke('k1', at(30))).toBe(true);
      expect(await store.keys.revoke('k1', at(40))).toBe(false);
      expect(await store.keys.revoke('nope', at(40))).toBe(false);
      expect(await store.keys.get('k1')).toMatchObject({ status: 'revoked', revoked_at: at(30) });
      expect(await store.keys.get('k2')).toMatchObject({ status: 'active', revoked_at: null });
    });

    it('touch sets last_used_at; setWebhookSecret replaces the secret; other keys untouched', async () => {
      await key('k1');
      await key('k2', { webhook_secret: 'whsec_old' });
      await store.keys.touch('k1', at(12));
      expect((await store.keys.get('k1'))?.last_used_at).toBe('2026-11-02T10:00:12.000Z');
      await store.keys.touch('k1', at(13));
      expect((await store.keys.get('k1'))?.last_used_at).toBe(at(13));
      expect((await store.keys.get('k2'))?.last_used_at).toBeNull();
      await store.keys.setWebhookSecret('k1', 'whsec_new1');
      await store.keys.setWebhookSecret('k2', 'whsec_new2');
      expect((await store.keys.get('k1'))?.webhook_secret).toBe('whsec_new1');
      expect((await store.keys.findByLookup('lk_k2'))?.webhook_secret).toBe('whsec_new2');
    });
  });
});
