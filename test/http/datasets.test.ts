import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZDatasetListSchema, ZSeriesSchema } from '../../shared/dataset.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
const get = (p: string, key?: string) => call(srv.url, 'GET', p, key ? { key } : {});

beforeAll(async () => {
  srv = await startTestServer({ workers: false });
  // Two datasets made for ranking: the word in the title must outrank the word in a description.
  const at = new Date().toISOString();
  const base = {
    category: 'test ranking',
    source: 'Covercheck tests',
    source_url: 'https://example.org',
    licence: null,
    cadence: 'monthly' as const,
    unit: 'x',
    refresh: null,
  };
  await srv.store.datasets.upsert(
    { ...base, slug: 'zz-description-match', title: 'Aardvark counts', description: 'Mentions the word quokka once.' },
    at,
  );
  await srv.store.datasets.upsert({ ...base, slug: 'zz-title-match', title: 'Quokka sightings', description: 'Monthly counts.' }, at);
});
afterAll(async () => srv.close());

describe('GET /api/v1/datasets', () => {
  it('lists the shipped catalogue without a key, ordered by title, with the page and the total', async () => {
    const r = await get('/api/v1/datasets');
    expect(r.status).toBe(200);
    const body = ZDatasetListSchema.parse(r.body);
    expect(body.total).toBe(26);
    expect(body.limit).toBe(50);
    expect(body.offset).toBe(0);
    expect(body.datasets).toHaveLength(26);
    const titles = body.datasets.map((d) => d.title.toLowerCase());
    expect(titles).toEqual([...titles].sort((a, b) => a.localeCompare(b, 'en')));
  });

  it('every shipped dataset has its publisher, source URL, cadence, unit, range and points', async () => {
    const { body } = await get('/api/v1/datasets?category=inflation&limit=200');
    const all = (await get('/api/v1/datasets?limit=200')).body.datasets.filter((d: any) => d.category !== 'test ranking');
    expect(all).toHaveLength(24);
    for (const d of all) {
      expect(d.source_url, d.slug).toMatch(/^https:\/\//);
      expect(d.point_count, d.slug).toBeGreaterThan(10);
      expect(d.first_date! < d.last_date!, d.slug).toBe(true);
      expect(d.last_refreshed_at, d.slug).not.toBeNull();
    }
    expect(body.datasets.map((d: any) => d.slug).sort()).toEqual(['uk-ons-cdko-price-index', 'uk-rpi-all-items-yoy']);
  });

  it('a q with no letter or digit (empty, blank, punctuation, FTS operators alone) lists as if there were no q, never 400', async () => {
    const all = await get('/api/v1/datasets?limit=200');
    expect(all.status).toBe(200);
    for (const q of ['', '%20%20', '%21%21%21', '%22', '*', '-', '%5E%5E']) {
      const r = await get(`/api/v1/datasets?limit=200&q=${q}`);
      expect(r.status, `q=${q}`).toBe(200);
      expect(r.body, `q=${q}`).toEqual(all.body);
    }
    // and a real word still filters, so the test above can tell "ignored" from "matched everything"
    expect((await get('/api/v1/datasets?q=brent')).body.total).toBeLessThan(all.body.total);
  });

  it('ranks title matches above description matches', async () => {
    const r = await get('/api/v1/datasets?q=quokka');
    expect(r.body.datasets.map((d: any) => d.slug)).toEqual(['zz-title-match', 'zz-description-match']);
    expect(r.body.total).toBe(2);
  });

  it('searches title, description, category and source, with prefixes and without accents', async () => {
    expect((await get('/api/v1/datasets?q=brent')).body.datasets.map((d: any) => d.slug).sort()).toEqual([
      'brent-spot-daily',
      'brent-spot-weekly',
    ]);
    expect(
      (await get('/api/v1/datasets?q=insur')).body.datasets
        .map((d: any) => d.slug)
        .slice(0, 2)
        .sort(),
    ).toEqual(['uk-rpi-dwelling-insurance-yoy', 'uk-rpi-vehicles-tax-insurance-yoy']);
    // The VA dataset has "volatility" in its title; the other two DE curves only say "without volatility adjustment".
    expect((await get('/api/v1/datasets?q=volatility%20germany')).body.datasets.map((d: any) => d.slug)).toEqual([
      'eiopa-rfr-va-de',
      'eiopa-rfr-alpha-de',
      'eiopa-rfr-ufr-de',
    ]);
    expect((await get('/api/v1/datasets?q=energy%20information')).body.datasets.map((d: any) => d.slug).sort()).toEqual([
      'brent-spot-daily',
      'brent-spot-weekly',
    ]);
    expect((await get('/api/v1/datasets?q=commodit')).body.total).toBe(2);
    expect((await get('/api/v1/datasets?q=xylophone')).body).toMatchObject({ datasets: [], total: 0 });
  });

  it('filters by category, source and cadence, alone and with q', async () => {
    expect((await get('/api/v1/datasets?cadence=quarterly')).body.datasets.map((d: any) => d.slug).sort()).toEqual([
      'uk-gdp-abmi',
      'uk-gilt-10y-par-yield',
    ]);
    expect((await get('/api/v1/datasets?cadence=daily')).body.total).toBe(1);
    expect((await get('/api/v1/datasets?source=eiopa')).body.total).toBe(12);
    expect((await get('/api/v1/datasets?source=Bank%20of%20England')).body.total).toBe(2);
    expect((await get('/api/v1/datasets?category=Exchange%20Rates')).body.total).toBe(2);
    expect((await get('/api/v1/datasets?category=interest%20rates&q=france')).body.datasets.map((d: any) => d.slug).sort()).toEqual([
      'eiopa-rfr-alpha-fr',
      'eiopa-rfr-ufr-fr',
      'eiopa-rfr-va-fr',
    ]);
    expect((await get('/api/v1/datasets?source=eiopa&cadence=daily')).body.total).toBe(0);
  });

  it('paginates: limit, offset, the last item and past the end', async () => {
    const all = (await get('/api/v1/datasets?limit=200')).body.datasets.map((d: any) => d.slug);
    const page = await get('/api/v1/datasets?limit=5&offset=5');
    expect(page.body).toMatchObject({ limit: 5, offset: 5, total: 26 });
    expect(page.body.datasets.map((d: any) => d.slug)).toEqual(all.slice(5, 10));
    expect((await get('/api/v1/datasets?limit=1&offset=25')).body.datasets.map((d: any) => d.slug)).toEqual([all[25]]);
    expect((await get('/api/v1/datasets?offset=26')).body).toMatchObject({ datasets: [], total: 26 });
    expect((await get('/api/v1/datasets?limit=200')).body.datasets).toHaveLength(26);
  });

  const bad: [string, string][] = [
    ['cadence=hourly', 'cadence must be one of'],
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=201', 'limit'],
    ['limit=1e3', 'limit'],
    ['limit=abc', 'limit'],
    ['offset=-5', 'offset'],
    ['offset=100001', 'offset'],
    ['q=' + 'a'.repeat(201), 'q'],
    ['colour=blue', 'Unknown query parameter: colour'],
    ['q=a&q=b', 'given once'],
  ];
  for (const [qs, mention] of bad) {
    it(`?${qs.slice(0, 40)} -> 400 invalid_request`, async () => {
      const r = await get(`/api/v1/datasets?${qs}`);
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ error: 'invalid_request', message: expect.stringContaining(mention), code: 400 });
    });
  }

  it('FTS syntax in q never makes an error', async () => {
    for (const q of ['"unbalanced', 'NEAR(', 'a AND OR', '*', 'title:brent', '- - -x']) {
      const r = await get(`/api/v1/datasets?q=${encodeURIComponent(q)}`);
      expect([200, 400], q).toContain(r.status);
    }
  });
});

describe('GET /api/v1/datasets/{slug} and /series', () => {
  it('one dataset by slug', async () => {
    const r = await get('/api/v1/datasets/uk-bank-rate');
    expect(r.body).toMatchObject({ slug: 'uk-bank-rate', cadence: 'monthly', source: 'Bank of England', first_date: '1694-10-31' });
  });
  it('defaults to the latest 100 points, in ascending date order', async () => {
    const r = await get('/api/v1/datasets/brent-spot-daily/series');
    expect(r.status).toBe(200);
    const s = ZSeriesSchema.parse(r.body);
    expect(s).toMatchObject({ slug: 'brent-spot-daily', direction: 'latest', limit: 100 });
    expect(s.points).toHaveLength(100);
    expect(s.points.at(-1)!.date).toBe('2026-08-18');
    expect(s.points.map((p) => p.date)).toEqual([...s.points.map((p) => p.date)].sort());
  });
  it('earliest with a limit', async () => {
    const r = await get('/api/v1/datasets/uk-gdp-abmi/series?direction=earliest&limit=2');
    expect(r.body.points).toEqual([
      { date: '1955-01-01', value: 134886 },
      { date: '1955-04-01', value: 134924 },
    ]);
  });
  it('a limit larger than the series returns all of it', async () => {
    const r = await get('/api/v1/datasets/uk-gdp-abmi/series?limit=5000');
    expect(r.body.points).toHaveLength(279);
  });
  it('unknown slug -> 404; bad direction or limit -> 400', async () => {
    expect((await get('/api/v1/datasets/nope/series')).body).toMatchObject({ error: 'not_found', code: 404 });
    expect((await get('/api/v1/datasets/nope')).status).toBe(404);
    expect((await get('/api/v1/datasets/uk-gdp-abmi/series?direction=sideways')).body).toMatchObject({
      error: 'invalid_request',
      message: 'direction must be latest or earliest.',
    });
    expect((await get('/api/v1/datasets/uk-gdp-abmi/series?limit=5001')).status).toBe(400);
    expect((await get('/api/v1/datasets/uk-gdp-abmi/series?limit=0')).status).toBe(400);
  });
});

describe('dataset routes and keys', () => {
  it('a key with the datasets scope works; an invalid key is 401; a key without the scope is 403', async () => {
    const good = await srv.key({ scopes: ['datasets'] });
    const other = await srv.key({ scopes: ['verify'] });
    expect((await get('/api/v1/datasets?limit=1', good.key)).status).toBe(200);
    expect((await get('/api/v1/datasets?limit=1', 'pk_live_' + 'Z'.repeat(44))).body.error).toBe('invalid_api_key');
    expect((await get('/api/v1/datasets?limit=1', other.key)).status).toBe(403);
  });
});
