/** What a live key would miss on an install, logged at start (verify/live-readiness.ts), on a real SQLite store. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedReferenceData } from '../../connector/src/demo/seed.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import type { Store } from '../../connector/src/store/types.js';
import { liveReadiness } from '../../connector/src/verify/live-readiness.js';
import { importOperatorRegistry } from '../helpers/operator-registry.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

let store: Store;
beforeEach(async () => {
  store = openTempStore('readiness').store;
  await seedReferenceData(store, shippedDataDir(), new Date());
});
afterEach(closeTempStores);

describe('liveReadiness', () => {
  it('a fresh install: every country and type lacks a real registry source; no sanctions list; the UK register partial', async () => {
    const r = await liveReadiness(store, { upstreams: {}, fcaApi: false });
    // The demo registry covers most pairs: for a live key it covers none.
    expect(r.registryMissing).toHaveLength(9);
    expect(r).toMatchObject({ sanctionsMissing: true, ukRegisterPartial: true });
  });

  it('an upstream covers its country; an imported extract its pairs; a real list ends the sanctions gap', async () => {
    await importOperatorRegistry(store);
    await store.sanctions.replaceList('eu-fsf', [
      { name: 'Example Sanctioned Insurance Company Limited', country: null, list: 'eu-fsf', reference: 'EU.1', demo: false },
    ]);
    const r = await liveReadiness(store, { upstreams: { FR: 'https://registry.example/fr' }, fcaApi: true });
    // The extract covers UK motor, travel, health and DE motor and health; the FR upstream all of FR.
    expect(r.registryMissing).toEqual(['DE travel']);
    expect(r).toMatchObject({ sanctionsMissing: false, ukRegisterPartial: false });
  });
});
