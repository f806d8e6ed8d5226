import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { DatasetRefresher, isDue, refreshDataset } from '../../connector/src/datasets/refresh.js';
import type { DatasetMeta } from '../../connector/src/store/types.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let answer: { status: number; type: string; body: string } = { status: 200, type: 'text/csv', body: '' };
const source = http.createServer((_req, res) => res.writeHead(answer.status, { 'content-type': answer.type }).end(answer.body));
let base: string;
let srv: TestServer;
let clock = Date.parse('2026-11-22T12:00:00Z');
const now = () => new Date(clock);

const meta = (slug: string, format: 'csv' | 'json', extra: Partial<DatasetMeta['refresh']> = {}): DatasetMeta => ({
  slug,
  title: `Refresh test ${slug}`,
  description: '',
  category: 'test',
  source: 'Test publisher',
  source_url: 'https://example.org',
  licence: null,
  cadence: 'daily',
  unit: 'x',
  refresh: { url: `${base}/${slug}`, format, ...extra },
});

beforeAll(async () => {
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(source.address() as AddressInfo).port}`;
  srv = await startTestServer({ workers: false });
});
afterAll(async () => {
  await srv.close();
  source.closeAllConnections();
  await new Promise((r) => source.close(r));
});

describe('dataset refresh', () => {
  it('CSV adapter: replaces the points and records the refresh time', async () => {
    const store = srv.store.datasets;
    await store.upsert(meta('csv-one', 'csv', { date_column: 'Date', value_column: 'Price' }), now().toISOString());
    answer = { status: 200, type: 'text/csv', body: 'Date,Price\n2026-11-20,80.5\n2026-11-21,81\n' };
    const d = (await store.get('csv-one'))!;
    expect(isDue(d, now())).toBe(true);
    expect(await refreshDataset(store, d, { now })).toEqual({ slug: 'csv-one', ok: true, points: 2 });
    const after = (await store.get('csv-one'))!;
    expect(after).toMatchObject({
      point_count: 2,
      first_date: '2026-11-20',
      last_date: '2026-11-21',
      last_refreshed_at: now().toISOString(),
      last_refresh_error: null,
    });
    expect(isDue(after, now())).toBe(false);
  });

  it('JSON adapter with a path', async () => {
    const store = srv.store.datasets;
    await store.upsert(meta('json-one', 'json', { path: 'observations', date_column: 'period', value_column: 'obs' }), now().toISOString());
    answer = {
      status: 200,
      type: 'application/json',
      body: JSON.stringify({
        observations: [
          { period: '2026-09', obs: 1.1 },
          { period: '2026-10', obs: 1.2 },
        ],
      }),
    };
    expect(await refreshDataset(store, (await store.get('json-one'))!, { now })).toMatchObject({ ok: true, points: 2 });
    expect(await store.series('json-one', 10, 'latest')).toEqual([
      { date: '2026-09-01', value: 1.1 },
      { date: '2026-10-01', value: 1.2 },
    ]);
  });

  it('a failed refresh (HTTP 500, malformed body, unreachable) keeps the old points and records the error', async () => {
    const store = srv.store.datasets;
    const before = await store.series('csv-one', 10, 'latest');
    answer = { status: 500, type: 'text/plain', body: 'down' };
    const d = (await store.get('csv-one'))!;
    expect(await refreshDataset(store, d, { now })).toMatchObject({ ok: false, error: expect.stringContaining('HTTP 500') });
    answer = { status: 200, type: 'text/csv', body: 'Date,Price\nnot-a-date,1\n' };
    expect(await refreshDataset(store, d, { now })).toMatchObject({ ok: false, error: expect.stringContaining('malformed') });
    await store.upsert(
      {
        ...meta('csv-one', 'csv', { date_column: 'Date', value_column: 'Price' }),
        refresh: { url: 'http://127.0.0.1:1/x', format: 'csv' },
      },
      now().toISOString(),
    );
    expect(await refreshDataset(store, (await store.get('csv-one'))!, { now })).toMatchObject({
      ok: false,
      error: expect.stringContaining('could not be fetched'),
    });
    expect(await store.series('csv-one', 10, 'latest')).toEqual(before);
    expect((await store.get('csv-one'))!).toMatchObject({
      last_refresh_error: expect.stringContaining('could not be fetched'),
      point_count: 2,
    });
  });

  it('the refresher refreshes only due datasets, once per run, and retries a failure after an hour', async () => {
    const store = srv.store.datasets;
    await store.upsert(meta('due-one', 'csv'), now().toISOString());
    answer = { status: 200, type: 'text/csv', body: 'date,value\n2026-11-21,5\n' };
    const refresher = new DatasetRefresher(store, createLogger('silent'), { intervalMs: 60_000, now });
    const first = await refresher.runDue();
    expect(first.map((r) => r.slug)).toContain('due-one');
    expect(first.map((r) => r.slug)).not.toContain('json-one');
    expect((await refresher.runDue()).map((r) => r.slug)).not.toContain('due-one');
    clock += 25 * 3600_000;
    const later = await refresher.runDue();
    expect(later.map((r) => r.slug)).toEqual(expect.arrayContaining(['due-one', 'json-one']));
    // csv-one failed (unreachable): it is retried after an hour, not at every run.
    const failed = (await store.get('csv-one'))!;
    clock += 10 * 60_000;
    expect(isDue(failed, now())).toBe(false);
    clock += 60 * 60_000;
    expect(isDue(failed, now())).toBe(true);
  });
});
