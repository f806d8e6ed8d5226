/** Storage contract, dataset catalogue (store/types/datasets.ts): metadata, points, series, search. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, dataset, count } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });

  describe('datasets', () => {
    const refresh = { url: 'https://example.org/cpi.csv', format: 'csv' as const, date_column: 'date', value_column: 'value' };

    it('upsert creates and updates metadata; get returns the full record', async () => {
      const meta = dataset('uk-cpi', { title: 'UK CPI', description: 'Consumer prices', licence: 'OGL-3.0', refresh });
      await store.datasets.upsert(meta, at(1));
      expect(await store.datasets.get('uk-cpi')).toEqual({
        ...meta,
        first_date: null,
        last_date: null,
        point_count: 0,
        last_refreshed_at: null,
        last_refresh_attempt_at: null,
        last_refresh_error: null,
        updated_at: at(1),
      });
      expect(await store.datasets.get('nope')).toBeNull();
      await store.datasets.writePoints('uk-cpi', [{ date: '2026-01-01', value: 1.5 }], 'replace', at(2));
      const updated = {
        ...meta,
        title: 'UK consumer price index',
        licence: null,
        refresh: { url: 'https://example.org/cpi.json', format: 'json' as const, path: 'data.points' },
        cadence: 'quarterly' as const,
      };
      await store.datasets.upsert(updated, at(3));
      expect(await store.datasets.get('uk-cpi')).toEqual({
        ...updated,
        first_date: '2026-01-01',
        last_date: '2026-01-01',
        point_count: 1,
        last_refreshed_at: at(2),
        last_refresh_attempt_at: at(2),
        last_refresh_error: null,
        updated_at: at(3),
      });
      expect(await store.datasets.series('uk-cpi', 10, 'latest')).toEqual([{ date: '2026-01-01', value: 1.5 }]);
      expect(await store.datasets.count()).toBe(1);
      // The search index follows the update.
      expect((await store.datasets.search({ terms: ['consumer', 'index'], limit: 10, offset: 0 })).items.map((d) => d.slug)).toEqual([
        'uk-cpi',
      ]);
      expect(await store.datasets.search({ terms: ['cpi'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
    });

    it('writePoints replace and merge keep counts, range and refresh fields; failures are recorded', async () => {
      await store.datasets.upsert(dataset('d1'), at(0));
      await store.datasets.upsert(dataset('d2'), at(0));
      expect(
        await store.datasets.writePoints(
          'd1',
          [
            { date: '2026-03-01', value: 3.25 },
            { date: '2026-01-01', value: -0.5 },
            { date: '2026-02-01', value: 123456.789 },
          ],
          'replace',
          at(5),
        ),
      ).toBe(3);
      expect(await store.datasets.get('d1')).toMatchObject({
        point_count: 3,
        first_date: '2026-01-01',
        last_date: '2026-03-01',
        last_refreshed_at: at(5),
        last_refresh_attempt_at: at(5),
        last_refresh_error: null,
      });
      expect(await store.datasets.series('d1', 10, 'earliest')).toEqual([
        { date: '2026-01-01', value: -0.5 },
        { date: '2026-02-01', value: 123456.789 },
        { date: '2026-03-01', value: 3.25 },
      ]);

      await store.datasets.recordRefreshFailure('d1', 'HTTP 503 from source', at(6));
      expect(await store.datasets.get('d1')).toMatchObject({
        point_count: 3,
        last_refreshed_at: at(5),
        last_refresh_attempt_at: at(6),
        last_refresh_error: 'HTTP 503 from source',
      });

      expect(
        await store.datasets.writePoints(
          'd1',
          [
            { date: '2026-03-01', value: 3.5 },
            { date: '2026-04-01', value: 4 },
            { date: '2025-12-01', value: 0 },
          ],
          'merge',
          at(7),
        ),
      ).toBe(3);
      expect(await store.datasets.get('d1')).toMatchObject({
        point_count: 5,
        first_date: '2025-12-01',
        last_date: '2026-04-01',
        last_refreshed_at: at(7),
        last_refresh_attempt_at: at(7),
        last_refresh_error: null,
      });
      expect(await store.datasets.series('d1', 10, 'earliest')).toEqual([
        { date: '2025-12-01', value: 0 },
        { date: '2026-01-01', value: -0.5 },
        { date: '2026-02-01', value: 123456.789 },
        { date: '2026-03-01', value: 3.5 },
        { date: '2026-04-01', value: 4 },
      ]);

      expect(await store.datasets.writePoints('d1', [{ date: '2027-01-01', value: 9 }], 'replace', at(8))).toBe(1);
      expect(await store.datasets.get('d1')).toMatchObject({
        point_count: 1,
        first_date: '2027-01-01',
        last_date: '2027-01-01',
        last_refreshed_at: at(8),
      });
      expect(await store.datasets.series('d1', 10, 'latest')).toEqual([{ date: '2027-01-01', value: 9 }]);
      // Other datasets are untouched.
      expect(await store.datasets.get('d2')).toMatchObject({ point_count: 0, first_date: null, last_refreshed_at: null });
      expect(await store.datasets.series('d2', 10, 'latest')).toEqual([]);
    });

    it('series: limit points from the latest or earliest end, always in ascending date order', async () => {
      await store.datasets.upsert(dataset('d1'), at(0));
      const points = Array.from({ length: 30 }, (_, i) => ({ date: `2026-01-${String(i + 1).padStart(2, '0')}`, value: i * 1.5 }));
      await store.datasets.writePoints('d1', [...points].reverse(), 'replace', at(1));
      expect(await store.datasets.series('d1', 3, 'latest')).toEqual(points.slice(27));
      expect(await store.datasets.series('d1', 3, 'earliest')).toEqual(points.slice(0, 3));
      expect(await store.datasets.series('d1', 100, 'latest')).toEqual(points);
      expect(await store.datasets.series('d1', 100, 'earliest')).toEqual(points);
      expect(await store.datasets.series('nope', 3, 'latest')).toEqual([]);
    });

    describe('search', () => {
      beforeEach(async () => {
        await store.datasets.upsert(
          dataset('uk-inflation-cpi', {
            title: 'Inflation rate (CPI)',
            description: 'Consumer price index, annual change',
            category: 'Economy',
            source: 'ONS',
            cadence: 'monthly',
          }),
          at(0),
        );
        await store.datasets.upsert(
          dataset('ch-claims-frequency', {
            title: 'Zürich claims frequency',
            description: 'Motor claims per 1000 policies',
            category: 'Insurance',
            source: 'FINMA',
            cadence: 'quarterly',
          }),
          at(0),
        );
        await store.datasets.upsert(
          dataset('a-motor-premiums', {
            title: 'Motor premiums',
            description: 'Average premium; claims inflation pushes it up',
            category: 'Insurance',
            source: 'ABI',
            cadence: 'quarterly',
          }),
          at(0),
        );
        await store.datasets.upsert(
          dataset('b-reinsurance-capacity', {
            title: 'Reinsurance capacity',
            description: 'Published by Zurich Re and peers',
            category: 'Markets',
            source: 'Swiss Re',
            cadence: 'weekly',
          }),
          at(0),
        );
      });
      const slugs = (r: { items: { slug: string }[] }) => r.items.map((d) => d.slug);

      it('terms match as prefixes; title matches rank above description-only matches', async () => {
        const r = await store.datasets.search({ terms: ['infl'], limit: 10, offset: 0 });
        expect(slugs(r)).toEqual(['uk-inflation-cpi', 'a-motor-premiums']);
        expect(r.total).toBe(2);
        expect(r.items[0]).toMatchObject({ title: 'Inflation rate (CPI)', category: 'Economy', point_count: 0, updated_at: at(0) });
        expect(slugs(await store.datasets.search({ terms: ['premium'], limit: 10, offset: 0 }))).toEqual(['a-motor-premiums']);
        expect(slugs(await store.datasets.search({ terms: ['freq'], limit: 10, offset: 0 }))).toEqual(['ch-claims-frequency']);
      });

      it('every term must match', async () => {
        expect(slugs(await store.datasets.search({ terms: ['motor', 'claims'], limit: 10, offset: 0 }))).toEqual(
          expect.arrayContaining(['ch-claims-frequency', 'a-motor-premiums']),
        );
        expect((await store.datasets.search({ terms: ['motor', 'claims'], limit: 10, offset: 0 })).total).toBe(2);
        expect(slugs(await store.datasets.search({ terms: ['motor', 'frequency'], limit: 10, offset: 0 }))).toEqual([
          'ch-claims-frequency',
        ]);
        expect(await store.datasets.search({ terms: ['motor', 'cpi'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
        expect(await store.datasets.search({ terms: ['nothingmatches'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      });

      it('accent-insensitive both ways: zurich finds Zürich, zürich finds Zurich', async () => {
        const plain = await store.datasets.search({ terms: ['zurich'], limit: 10, offset: 0 });
        expect(slugs(plain)).toEqual(['ch-claims-frequency', 'b-reinsurance-capacity']);
        expect(plain.total).toBe(2);
        expect(slugs(await store.datasets.search({ terms: ['zürich'], limit: 10, offset: 0 }))).toEqual([
          'ch-claims-frequency',
          'b-reinsurance-capacity',
        ]);
        expect(slugs(await store.datasets.search({ terms: ['zür'], limit: 10, offset: 0 }))).toEqual([
          'ch-claims-frequency',
          'b-reinsurance-capacity',
        ]);
      });

      it('filters on category, source and cadence, case-insensitively, alone and with terms', async () => {
        const insurance = await store.datasets.search({ category: 'insurance', limit: 10, offset: 0 });
        expect(slugs(insurance)).toEqual(['a-motor-premiums', 'ch-claims-frequency']);
        expect(insurance.total).toBe(2);
        expect(slugs(await store.datasets.search({ source: 'swiss re', limit: 10, offset: 0 }))).toEqual(['b-reinsurance-capacity']);
        expect(slugs(await store.datasets.search({ cadence: 'quarterly', limit: 10, offset: 0 }))).toEqual([
          'a-motor-premiums',
          'ch-claims-frequency',
        ]);
        expect(slugs(await store.datasets.search({ category: 'INSURANCE', source: 'abi', limit: 10, offset: 0 }))).toEqual([
          'a-motor-premiums',
        ]);
        expect(await store.datasets.search({ category: 'Insurance', source: 'ONS', limit: 10, offset: 0 })).toEqual({
          items: [],
          total: 0,
        });

        const filtered = await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 10, offset: 0 });
        expect(slugs(filtered)).toEqual(['ch-claims-frequency', 'a-motor-premiums']);
        expect(filtered.total).toBe(2);
        expect(slugs(await store.datasets.search({ terms: ['infl'], category: 'economy', limit: 10, offset: 0 }))).toEqual([
          'uk-inflation-cpi',
        ]);
        expect(slugs(await store.datasets.search({ terms: ['infl'], source: 'ABI', cadence: 'quarterly', limit: 10, offset: 0 }))).toEqual([
          'a-motor-premiums',
        ]);
        expect(await store.datasets.search({ terms: ['zurich'], category: 'economy', limit: 10, offset: 0 })).toEqual({
          items: [],
          total: 0,
        });
      });

      it('paging keeps the total, also past the end (with and without terms and filters)', async () => {
        const all = await store.datasets.search({ limit: 2, offset: 0 });
        expect(all.total).toBe(4);
        expect(all.items).toHaveLength(2);
        const rest = await store.datasets.search({ limit: 2, offset: 2 });
        expect(rest.total).toBe(4);
        expect(slugs(rest)).toHaveLength(2);
        expect(new Set([...slugs(all), ...slugs(rest)]).size).toBe(4);
        expect(await store.datasets.search({ limit: 2, offset: 10 })).toEqual({ items: [], total: 4 });

        expect(slugs(await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 1 }))).toEqual(['b-reinsurance-capacity']);
        expect((await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 1 })).total).toBe(2);
        expect(await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 5 })).toEqual({ items: [], total: 2 });

        const page = await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 1, offset: 1 });
        expect(slugs(page)).toEqual(['a-motor-premiums']);
        expect(page.total).toBe(2);
        expect(await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 1, offset: 5 })).toEqual({
          items: [],
          total: 2,
        });
        expect(await store.datasets.search({ category: 'insurance', limit: 1, offset: 5 })).toEqual({ items: [], total: 2 });
      });

      it('without terms: ordered by title case-insensitively, then slug', async () => {
        await store.datasets.upsert(dataset('z-alpha', { title: 'Alpha' }), at(0));
        await store.datasets.upsert(dataset('a-alpha', { title: 'alpha' }), at(0));
        await store.datasets.upsert(dataset('b-beta', { title: 'beta' }), at(0));
        await store.datasets.upsert(dataset('g-gamma', { title: 'Gamma' }), at(0));
        const r = await store.datasets.search({ limit: 20, offset: 0 });
        expect(slugs(r)).toEqual([
          'a-alpha',
          'z-alpha',
          'b-beta',
          'g-gamma',
          'uk-inflation-cpi',
          'a-motor-premiums',
          'b-reinsurance-capacity',
          'ch-claims-frequency',
        ]);
        expect(r.total).toBe(8);
        expect(slugs(await store.datasets.search({ category: 'economy', limit: 3, offset: 0 }))).toEqual(['a-alpha', 'z-alpha', 'b-beta']);
        expect(await store.datasets.count()).toBe(8);
      });
    });

    it('refreshable lists only datasets with a refresh source; count counts all', async () => {
      expect(await store.datasets.refreshable()).toEqual([]);
      expect(await store.datasets.count()).toBe(0);
      await store.datasets.upsert(dataset('b-manual'), at(0));
      await store.datasets.upsert(dataset('c-auto', { refresh }), at(0));
      await store.datasets.upsert(dataset('a-auto', { refresh: { url: 'https://example.org/a.json', format: 'json' } }), at(0));
      const r = await store.datasets.refreshable();
      expect(r.map((d) => d.slug).sort()).toEqual(['a-auto', 'c-auto']);
      expect(r.find((d) => d.slug === 'c-auto')?.refresh).toEqual(refresh);
      expect(r.find((d) => d.slug === 'a-auto')?.refresh).toEqual({ url: 'https://example.org/a.json', format: 'json' });
      expect(await store.datasets.count()).toBe(3);
      // Dropping the refresh source takes it off the list.
      await store.datasets.upsert(dataset('c-auto'), at(1));
      expect((await store.datasets.refreshable()).map((d) => d.slug)).toEqual(['a-auto']);
    });
  });
});
