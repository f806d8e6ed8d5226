/** Storage contract, lifecycle: which backend answers, migrations applied once, several instances on one database, close. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, newKey, insurer } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract(
  (t) => {
    let store: Store;
    beforeEach(() => {
      store = t.store;
    });
    const { backend, locations, openAt, closeStore, freshLocation, key } = t;

    describe('lifecycle and migrations', () => {
      it('is the expected backend and answers ping', async () => {
        expect(store.kind).toBe(backend.kind);
        expect(await store.ping()).toBe(true);
      });

      it('reopening the same database applies no migration twice and keeps the data', async () => {
        const where = locations[0]!;
        await key('k1', { allowance: 7 });
        await store.insurers.upsertMany([insurer('100')]);
        await store.sanctions.replaceList('eu', [{ name: 'Alpha', country: null, list: 'eu', reference: null, demo: true }]);
        const version = await store.insurers.version();
        await closeStore(store);

        const again = await openAt(where);
        expect(await again.ping()).toBe(true);
        expect((await again.keys.get('k1'))?.balance).toBe(7);
        expect(await again.insurers.count()).toBe(1);
        expect(await again.sanctions.all()).toHaveLength(1);
        // Re-running the first migration would reset (or fail on) the insurers version counter.
        expect(await again.insurers.version()).toBe(version);

        // A second instance on the same database while the first is open (several processes).
        const third = await openAt(where);
        expect((await third.keys.list()).map((k) => k.id)).toEqual(['k1']);
        expect(await third.insurers.version()).toBe(version);
        await third.keys.create(newKey('k2'));
        expect((await again.keys.get('k2'))?.id).toBe('k2');
      });

      it('two instances opening a fresh database at the same time both migrate it safely', async () => {
        const where = await freshLocation();
        const [a, b] = await Promise.all([openAt(where), openAt(where)]);
        expect(await a.ping()).toBe(true);
        expect(await b.ping()).toBe(true);
        await a.keys.create(newKey('k1'));
        expect((await b.keys.get('k1'))?.id).toBe('k1');
        expect(await b.insurers.version()).toBe(await a.insurers.version());
      });

      it('close() ends the store: it no longer answers', async () => {
        await closeStore(store);
        const alive = await store.ping().catch(() => false);
        expect(alive).toBe(false);
      });
    });
    // Migrating is what this section is about: each test's store starts on an empty database.
  },
  { migratedStart: false },
);
