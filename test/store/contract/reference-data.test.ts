/** Storage contract, reference data (store/types/reference-data.ts): insurers and their priorities, registry policies and coverage, sanctions lists. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, insurer, policy } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });

  describe('insurers', () => {
    it('upsertMany stores rows; aliases, booleans and nulls round-trip; listByCountry ordered by reference', async () => {
      const hdi = insurer('5096', {
        name: 'HDI Global SE',
        aliases: ['HDI', 'HDI Global SE "Köln"', 'Zürich-Ä'],
        lei: '529900HIAVGO0W1ROX75',
        source_detail: 'eiopa/register.csv@abc123',
        updated_at: '2026-11-02T10:00:00.000Z',
      });
      const demo = insurer('300', {
        scheme: 'demo',
        name: 'Demo Versicherung',
        regulated: 'NO',
        authorised: false,
        demo: true,
        priority: 10,
        source: 'demo',
        updated_at: at(5),
      });
      const other = insurer('1008', { name: 'Allianz', aliases: ['Allianz Versicherungs-AG'] });
      // An intermediary whose source states no status: kind and a null status_text round-trip.
      const uk = insurer('311492', {
        country: 'UK',
        scheme: 'fca_frn',
        name: 'Hastings Insurance Services Limited',
        kind: 'intermediary',
        status_text: null,
        authorised: false,
      });
      expect(await store.insurers.upsertMany([hdi, demo, other, uk])).toBe(4);
      expect(await store.insurers.listByCountry('DE')).toEqual([other, demo, hdi]);
      expect(await store.insurers.listByCountry('UK')).toEqual([uk]);
      expect(await store.insurers.listByCountry('FR')).toEqual([]);
      expect(await store.insurers.get('DE', '5096')).toEqual(hdi);
      expect(await store.insurers.get('DE', '300')).toEqual(demo);
      expect(await store.insurers.get('UK', '5096')).toBeNull();
      expect(await store.insurers.count()).toBe(4);
    });

    it('a lower priority never replaces a row; an equal or higher one does', async () => {
      const base = insurer('5096', { name: 'HDI Global SE', aliases: ['HDI'], priority: 20, source: 'de-vu-list' });
      expect(await store.insurers.upsertMany([base])).toBe(1);
      const lower = insurer('5096', {
        name: 'HDI (demo)',
        aliases: [],
        demo: true,
        authorised: false,
        priority: 10,
        source: 'demo',
        updated_at: at(1),
      });
      expect(await store.insurers.upsertMany([lower])).toBe(0);
      expect(await store.insurers.get('DE', '5096')).toEqual(base);
      const equal = insurer('5096', {
        name: 'HDI Global SE (list 2)',
        aliases: ['HDI2'],
        priority: 20,
        source: 'de-vu-list',
        updated_at: at(2),
      });
      expect(await store.insurers.upsertMany([equal])).toBe(1);
      expect(await store.insurers.get('DE', '5096')).toEqual(equal);
      const higher = insurer('5096', {
        name: 'HDI Global SE (regulator)',
        lei: 'LEI1',
        priority: 30,
        source: 'eiopa-register',
        updated_at: at(3),
      });
      expect(await store.insurers.upsertMany([higher])).toBe(1);
      expect(await store.insurers.get('DE', '5096')).toEqual(higher);
      // A mixed batch: the skipped row is not counted, the new one is.
      expect(await store.insurers.upsertMany([{ ...lower, updated_at: at(4) }, insurer('777')])).toBe(1);
      expect(await store.insurers.get('DE', '5096')).toEqual(higher);
      expect(await store.insurers.count()).toBe(2);
    });

    it('version() changes on insurer upserts and on sanctions.replaceList, not on reads', async () => {
      const v0 = await store.insurers.version();
      expect(await store.insurers.version()).toBe(v0);
      await store.insurers.upsertMany([insurer('1')]);
      const v1 = await store.insurers.version();
      expect(v1).toBeGreaterThan(v0);
      await store.insurers.listByCountry('DE');
      await store.insurers.get('DE', '1');
      expect(await store.insurers.version()).toBe(v1);
      await store.insurers.upsertMany([insurer('1', { name: 'renamed' })]);
      const v2 = await store.insurers.version();
      expect(v2).toBeGreaterThan(v1);
      await store.sanctions.replaceList('eu', [{ name: 'X', country: null, list: 'eu', reference: null, demo: false }]);
      const v3 = await store.insurers.version();
      expect(v3).toBeGreaterThan(v2);
      await store.sanctions.replaceList('eu', []);
      expect(await store.insurers.version()).toBeGreaterThan(v3);
    });
  });

  describe('registry', () => {
    it('upsertMany stores policies; find returns every insurance type of a number in that country', async () => {
      const motor = policy('P1');
      const travel = policy('P1', {
        insurance_type: 'travel',
        insurer_reference: null,
        start_date: null,
        end_date: null,
        vehicle_registration: null,
        status: 'lapsed',
        demo: true,
        source: 'demo',
      });
      const de = policy('P1', { country: 'DE', insurer_reference: '5096', status: 'suspended' });
      const p2 = policy('P2', { status: 'cancelled' });
      expect(await store.registry.upsertMany([motor, travel, de, p2])).toBe(4);
      const found = (await store.registry.find('UK', 'P1')).sort((a, b) => a.insurance_type.localeCompare(b.insurance_type));
      expect(found).toEqual([motor, travel]);
      expect(await store.registry.find('DE', 'P1')).toEqual([de]);
      expect(await store.registry.find('UK', 'P2')).toEqual([p2]);
      expect(await store.registry.find('FR', 'P1')).toEqual([]);
      expect(await store.registry.find('UK', 'P3')).toEqual([]);
      expect(await store.registry.count()).toBe(4);
    });

    it('upserts on (country, policy_number, insurance_type, demo)', async () => {
      await store.registry.upsertMany([policy('P1'), policy('P1', { insurance_type: 'health' })]);
      const updated = policy('P1', {
        status: 'cancelled',
        end_date: '2026-06-30',
        insurer_reference: '999',
        vehicle_registration: null,
        source: 'mid-2',
      });
      expect(await store.registry.upsertMany([updated])).toBe(1);
      const found = (await store.registry.find('UK', 'P1')).sort((a, b) => a.insurance_type.localeCompare(b.insurance_type));
      expect(found).toEqual([policy('P1', { insurance_type: 'health' }), updated]);
      expect(await store.registry.count()).toBe(2);
    });

    it('a demo row and a real row of the same number are both kept: neither load overwrites the other', async () => {
      const real = policy('P1', { source: 'mid-extract', demo: false });
      const demo = policy('P1', { source: 'demo', demo: true, insurer_reference: 'DEMO-UK-0001' });
      await store.registry.upsertMany([real]);
      // The demo seed runs at every start: it must not replace the operator's row.
      expect(await store.registry.upsertMany([demo])).toBe(1);
      const found = (await store.registry.find('UK', 'P1')).sort((a, b) => Number(a.demo) - Number(b.demo));
      expect(found).toEqual([real, demo]);
      expect(await store.registry.count()).toBe(2);
    });

    it('coverage: set and read; demo only stays set while every source for it is demo; demo_covered once any demo source covers it', async () => {
      await store.registry.setCoverage([
        { country: 'UK', insurance_type: 'motor', source: 'demo', demo: true, updated_at: at(0) },
        { country: 'DE', insurance_type: 'travel', source: 'de-list', demo: false, updated_at: at(0) },
      ]);
      expect(await store.registry.coverage('UK', 'motor')).toEqual({
        country: 'UK',
        insurance_type: 'motor',
        source: 'demo',
        demo: true,
        demo_covered: true,
        updated_at: at(0),
      });
      expect(await store.registry.coverage('DE', 'travel')).toEqual({
        country: 'DE',
        insurance_type: 'travel',
        source: 'de-list',
        demo: false,
        demo_covered: false,
        updated_at: at(0),
      });
      expect(await store.registry.coverage('FR', 'health')).toBeNull();
      expect(await store.registry.coverage('UK', 'travel')).toBeNull();
      // demo again: still demo.
      await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'demo-2', demo: true, updated_at: at(1) }]);
      expect(await store.registry.coverage('UK', 'motor')).toEqual({
        country: 'UK',
        insurance_type: 'motor',
        source: 'demo-2',
        demo: true,
        demo_covered: true,
        updated_at: at(1),
      });
      // Real data arrives: no longer demo, but the demo source still covers it (the sandbox's view).
      await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'mid-extract', demo: false, updated_at: at(2) }]);
      expect(await store.registry.coverage('UK', 'motor')).toEqual({
        country: 'UK',
        insurance_type: 'motor',
        source: 'mid-extract',
        demo: false,
        demo_covered: true,
        updated_at: at(2),
      });
      // A later demo load does not turn real coverage back into demo (source and time do change).
      await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'demo', demo: true, updated_at: at(3) }]);
      expect(await store.registry.coverage('UK', 'motor')).toEqual({
        country: 'UK',
        insurance_type: 'motor',
        source: 'demo',
        demo: false,
        demo_covered: true,
        updated_at: at(3),
      });
      // Real coverage that a demo load reaches later becomes demo-covered too.
      await store.registry.setCoverage([{ country: 'DE', insurance_type: 'travel', source: 'demo', demo: true, updated_at: at(4) }]);
      expect(await store.registry.coverage('DE', 'travel')).toMatchObject({ demo: false, demo_covered: true });
    });
  });

  describe('sanctions', () => {
    it('replaceList replaces only that list; all() is ordered by list, then name', async () => {
      expect(
        await store.sanctions.replaceList('eu', [
          { name: 'Zeta Holdings', country: 'DE', list: 'eu', reference: 'EU.123', demo: false },
          { name: 'Alpha Trading', country: null, list: 'eu', reference: null, demo: true },
        ]),
      ).toBe(2);
      expect(
        await store.sanctions.replaceList('uk-ofsi', [
          { name: 'Beta LLC', country: 'UK', list: 'uk-ofsi', reference: 'OFSI-9', demo: false },
        ]),
      ).toBe(1);
      expect(await store.sanctions.all()).toEqual([
        { name: 'Alpha Trading', country: null, list: 'eu', reference: null, demo: true },
        { name: 'Zeta Holdings', country: 'DE', list: 'eu', reference: 'EU.123', demo: false },
        { name: 'Beta LLC', country: 'UK', list: 'uk-ofsi', reference: 'OFSI-9', demo: false },
      ]);
      expect(await store.sanctions.replaceList('eu', [{ name: 'Gamma SA', country: 'FR', list: 'eu', reference: null, demo: false }])).toBe(
        1,
      );
      expect((await store.sanctions.all()).map((s) => `${s.list}/${s.name}`)).toEqual(['eu/Gamma SA', 'uk-ofsi/Beta LLC']);
      expect(await store.sanctions.replaceList('eu', [])).toBe(0);
      expect((await store.sanctions.all()).map((s) => `${s.list}/${s.name}`)).toEqual(['uk-ofsi/Beta LLC']);
    });
  });
});
