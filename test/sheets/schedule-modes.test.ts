/** Output modes of connector schedules through the Sheets stand-in: overwrite, append, merge; a user column beside the data is never touched. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { ScheduleRunner } from '../../connector/src/sheets/scheduler.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';

const google = new FakeGoogle();
let srv: TestServer;
let key: string;
const SID = 'schedule-modes-sheet-01';
let points: { date: string; value: number }[];

beforeAll(async () => {
  await google.start();
  // No background workers: each test runs the schedule it made with one runner tick.
  srv = await startTestServer({
    workers: false,
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_SHEETS_PER_MIN: '6000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
    },
  });
  ({ key } = await srv.key({ mode: 'test' }));
  google.sheet(SID, 'Notes', []);
  await bindOverHttp(srv.url, key, google, SID);
  points = (await srv.store.datasets.series('uk-gdp-abmi', 6, 'latest')).map((p) => ({ date: p.date, value: p.value }));
  expect(points).toHaveLength(6);
});
afterAll(async () => {
  await srv.close();
  await google.stop();
});

async function runOnce(sheet: string, mode?: string) {
  const r = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
    key,
    body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SID, sheet_name: sheet, cadence: 'daily', limit: 6, ...(mode ? { mode } : {}) },
  });
  expect(r.status).toBe(201);
  const { api, bindings } = srv.ctx.sheets!;
  const runner = new ScheduleRunner(
    { store: srv.store, api, bindings, logger: createLogger('silent'), now: () => new Date() },
    { pollMs: 10, leaseMs: 5000, concurrency: 1, pauseAfter: 3 },
  );
  expect(await runner.tick()).toBe(true);
  const s = await call(srv.url, 'GET', `/api/v1/sheets/schedules/${r.body.schedule_id}`, { key });
  expect(s.body.runs[0]).toMatchObject({ status: 'ok', error: null });
  return s.body;
}

const row = (p: { date: string; value: number }, note = '') => [p.date, String(p.value), note];

describe('connector schedule output modes', () => {
  it('mode defaults to overwrite and is shown; an unknown mode is refused with 400', async () => {
    const bad = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SID, sheet_name: 'X', cadence: 'daily', mode: 'replace' },
    });
    expect(bad.status).toBe(400);
    google.sheet(SID, 'Default', []);
    const s = await runOnce('Default');
    expect(s.mode).toBe('overwrite');
  });

  it('overwrite: latest points from row 2, older A:B rows blanked, column C kept on every row', async () => {
    const old = Array.from({ length: 9 }, (_, i) => [`2000-0${i + 1}-01`, '1', `note ${i}`]);
    google.sheet(SID, 'Over', [['date', 'old', 'Comment'], ...old]);
    const s = await runOnce('Over', 'overwrite');
    expect(s.runs[0].rows).toBe(6);
    const grid = google.grid(SID, 'Over');
    expect(grid[0]).toEqual(['date', expect.stringContaining('UK GDP'), 'Comment']);
    expect(grid.slice(1, 7).map((r) => r.slice(0, 2))).toEqual(points.map((p) => [p.date, String(p.value)]));
    expect(grid.slice(7, 10).map((r) => r.slice(0, 2))).toEqual([
      ['', ''],
      ['', ''],
      ['', ''],
    ]);
    expect(grid.slice(1).map((r) => r[2])).toEqual(old.map((r) => r[2]));
  });

  it('append: only points after the latest date in column A, below the data; existing rows and column C untouched', async () => {
    // The first four points are there, one with a value the user corrected by hand: append keeps it.
    const first = points.slice(0, 4).map((p, i) => row(p, `c${i}`));
    first[1]![1] = '12345';
    google.sheet(SID, 'App', [['date', 'value', 'Comment'], ...first.map((r) => [...r])]);
    const s = await runOnce('App', 'append');
    expect(s.mode).toBe('append');
    expect(s.runs[0].rows).toBe(2);
    const grid = google.grid(SID, 'App');
    expect(grid.slice(1, 5)).toEqual(first);
    expect(grid.slice(5).map((r) => r.slice(0, 2))).toEqual(points.slice(4).map((p) => [p.date, String(p.value)]));
    expect(grid.slice(5).every((r) => (r[2] ?? '') === '')).toBe(true);
    // A second run finds nothing newer and writes no point.
    google.sheet(
      SID,
      'App2',
      grid.map((r) => [...r]),
    );
    const again = await runOnce('App2', 'append');
    expect(again.runs[0].rows).toBe(0);
    expect(google.grid(SID, 'App2')).toEqual(grid);
  });

  it('merge: rows whose date exists are updated in place, the rest added below sorted; other dates and column C untouched', async () => {
    const [p0, p1, p2, p3, p4, p5] = points as [
      (typeof points)[0],
      (typeof points)[0],
      (typeof points)[0],
      (typeof points)[0],
      (typeof points)[0],
      (typeof points)[0],
    ];
    // Out of order, with stale values, and a date the series does not have (kept as it is).
    const before = [
      [p3.date, '0', 'third-ish'],
      ['1999-12-31', '7', 'mine'],
      [p1.date, '0', 'first-ish'],
    ];
    google.sheet(SID, 'Merge', [['date', 'value', 'Comment', 'Owner'], ...before.map((r) => [...r, 'ann'])]);
    const s = await runOnce('Merge', 'merge');
    expect(s.mode).toBe('merge');
    expect(s.runs[0].rows).toBe(6);
    const grid = google.grid(SID, 'Merge');
    expect(grid[0]).toEqual(['date', expect.stringContaining('UK GDP'), 'Comment', 'Owner']);
    expect(grid.slice(1, 4)).toEqual([
      [p3.date, String(p3.value), 'third-ish', 'ann'],
      ['1999-12-31', '7', 'mine', 'ann'],
      [p1.date, String(p1.value), 'first-ish', 'ann'],
    ]);
    expect(grid.slice(4).map((r) => r.slice(0, 2))).toEqual([p0, p2, p4, p5].map((p) => [p.date, String(p.value)]));
    expect(grid.slice(4).every((r) => r.slice(2).every((c) => c === ''))).toBe(true);
  });

  it('append and merge into an empty sheet write the whole series', async () => {
    google.sheet(SID, 'EmptyA', []);
    google.sheet(SID, 'EmptyM', [['', '', 'Comment']]);
    expect((await runOnce('EmptyA', 'append')).runs[0].rows).toBe(6);
    expect((await runOnce('EmptyM', 'merge')).runs[0].rows).toBe(6);
    expect(google.grid(SID, 'EmptyM')[0]).toEqual(['date', expect.stringContaining('UK GDP'), 'Comment']);
    expect(
      google
        .grid(SID, 'EmptyA')
        .slice(1)
        .map((r) => r[0]),
    ).toEqual(points.map((p) => p.date));
  });
});
