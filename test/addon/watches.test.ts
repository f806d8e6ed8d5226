/**
 * "Watch selected rows", the list of watches and a row's history (addon/src/watches.ts, row-history.ts) on the
 * Apps Script stand-ins against the real connector in a child (docs/monitoring.md, docs/history.md), with the
 * child's clock moved rather than waited for: the rows read with the Verify section's mapping and an end-date
 * column become one watch reporting into this spreadsheet (connected on the way); the list shows next run,
 * projected credits and the last run's changes on the rows they came from, and pauses, resumes and deletes; a
 * click retried after an execution that died once the connector had the watch makes no second watch (even with
 * the user cache emptied), while a refusal is never replayed to the click after it; more than 10,000 policies, a row the connector would refuse
 * or a webhook that is not https send nothing; a row's history lists its last results and what changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, metadataMirror, type ChildConnector, type Harness, type SyncHttp } from './harness.js';

let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    conn: {
      google: true,
      // Every use of a binding looks at the spreadsheet again, so metadata removed behind the add-on's back is noticed at once.
      env: { COVERCHECK_SHEETS_BINDING_RECHECK_MS: '0' },
      keys: {
        live: { mode: 'live', credits: 100_000 },
        retry: { mode: 'live', credits: 1000 },
        sandbox: { mode: 'test' },
        historian: { mode: 'live', credits: 1000 },
      },
    },
  });
  ({ http, conn } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

type V = any;
/** The add-on's entry points, this file's new ones included (the harness lists the older ones by name). */
const fn = (h: Harness, name: string, ...args: unknown[]): V => (h.fns as Record<string, (...a: unknown[]) => V>)[name]!(...args);
const addon = (spreadsheetId: string, key: string) => {
  const h = loadAddon(http, { connector: conn.url, spreadsheetId, onMetadata: metadataMirror(http, conn) });
  h.fns.saveSettings({ url: CONNECTOR, key });
  return h;
};
const calls = (h: Harness, from = 0) =>
  h.stats.log.slice(from).map((l) => `${l.method} ${new URL(l.url).pathname.replace(/sbd_\w+/, 'sbd_*')} ${l.status}`);

async function api(method: string, p: string, key: string): Promise<{ status: number; body: V }> {
  const send = () => fetch(conn.url + p, { method, headers: { authorization: `Bearer ${key}` } });
  // A pooled socket the server closed as idle while the vm held this thread fails once: send again (reads only).
  const res = await send().catch((e: { cause?: { code?: string } }) => (e.cause?.code === 'UND_ERR_SOCKET' ? send() : Promise.reject(e)));
  return { status: res.status, body: res.status === 204 ? null : await res.json() };
}
const watchesOf = async (key: string) => (await api('GET', '/api/v1/watches', key)).body.watches as V[];
const balance = async (key: string) => (await api('GET', '/api/v1/account', key)).body.credits.balance as number;

/** Moves the child's clock forward to `iso` (it only moves forward). */
async function setChildClock(iso: string): Promise<void> {
  const { skew } = (await (await fetch(`${conn.control}/advance?ms=0`, { method: 'POST' })).json()) as { skew: number };
  const ms = Date.parse(iso) - (Date.now() + skew);
  expect(ms).toBeGreaterThanOrEqual(0);
  await fetch(`${conn.control}/advance?ms=${ms}`, { method: 'POST' });
}
/** Google's copy of a sheet, as the connector reads and writes it. */
const googleGrid = async (id: string, title: string) => {
  const r = await fetch(`${conn.google!.control}/grid?id=${id}&title=${encodeURIComponent(title)}`);
  return r.status === 200 ? ((await r.json()) as string[][]) : null;
};
async function putGoogleSheet(id: string, title: string, grid: string[][]): Promise<void> {
  const r = await fetch(`${conn.google!.control}/sheet?id=${id}&title=${encodeURIComponent(title)}`, {
    method: 'PUT',
    body: JSON.stringify(grid),
  });
  expect(r.status).toBe(204);
}
async function until<T>(what: string, get: () => T | Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms; last ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Demo policies whose end dates (the registry's) cross a 30-day window between 2030-12-10 and 2031-01-04, one
 * unknown policies whose end dates only the sheet gives, and a blank row: the watch holds five policies.
 */
const FLEET = [
  ['Policy number', 'Country', 'Insurance type', 'Provider', 'End date'],
  ['UKM-1000-0001', 'UK', 'motor', '', ''], // ends 2030-12-31: in the window at the baseline, expired after
  ['UKM-1000-0004', 'UK', 'motor', '', ''], // ends 2031-02-28: no change
  ['', '', '', '', ''],
  ['KFZ-5441-000004', 'DE', 'motor', '', ''], // ends 2031-01-31: enters the window
  ['UKM-9999-0101', 'UK', 'motor', '', '2031-01-20'], // only the sheet's end date (a date cell): enters the window
  ['UKM-9999-0102', 'UK', 'motor', '', '2031-01-25'], // only the sheet's end date (text): enters the window
];
const REQUEST = { cadence: 'daily', windowDays: 30, report: { sheet: true, email: false, webhookUrl: '' } };

function fleet(h: Harness, rows: string[][] = FLEET): void {
  const s = h.ss.active;
  s.name = 'Fleet';
  s.getRange(1, 1, rows.length, rows[0]!.length).setValues(rows);
}

describe('watch selected rows', () => {
  it('the selected rows become one watch reporting into this spreadsheet; the list shows its runs, changes by row, credits; pause, resume, delete', async () => {
    await setChildClock('2030-12-10T09:00:00Z');
    const SID = 'watch-sheet-000000001';
    const h = addon(SID, conn.keys.live!);
    // Nine hours ahead of UTC: a date cell is that day's midnight there, the day before in UTC.
    h.ss.timeZone = 'Asia/Tokyo';
    // The end date typed as text stays text in a plain-text cell; elsewhere Sheets types a date.
    h.ss.active.getRange(7, 5).setNumberFormat('@');
    fleet(h);
    expect(h.ss.active.get(6, 5)).toBeInstanceOf(Date);
    expect(h.ss.active.get(7, 5)).toBe('2031-01-25');
    await putGoogleSheet(SID, 'Fleet', FLEET);
    h.ss.active.getRange(2, 1, 6, 5).activate();

    const rows = fn(h, 'detectWatchRows');
    expect(rows).toMatchObject({
      sheet: 'Fleet',
      mapping: { policy_number: 1, country: 2, insurance_type: 3, provider: 4 },
      endDate: 5,
      firstRow: 2,
      lastRow: 7,
      missing: [],
      maxPolicies: 10_000,
    });
    const b0 = await balance(conn.keys.live!);
    const made = fn(h, 'watchSelectedRows', { ...REQUEST, mapping: rows.mapping, endDate: rows.endDate });
    expect(made.blankRows).toBe(1);
    expect(calls(h)).toEqual([
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/watches 201',
    ]);
    const id = made.watch.id as string;
    expect(made.watch).toMatchObject({
      status: 'active',
      cadence: 'daily',
      windowDays: 30,
      policies: 5,
      origin: { sheet: 'Fleet', first: 2, last: 7 },
      report: { sheet: 'Fleet', thisSpreadsheet: true, email: false, webhook: null },
      projectedCredits: 5 * 31,
    });
    // The result columns the status cells are written to, found or made as the Verify section makes them.
    expect(h.ss.active.row(1).slice(5, 10)).toEqual([
      'Covercheck status',
      'Covercheck confidence',
      'Covercheck insurer',
      'Covercheck flags',
      'Covercheck checked at',
    ]);
    const stored = (await api('GET', `/api/v1/watches/${id}`, conn.keys.live!)).body;
    expect(stored).toMatchObject({
      policy_count: 5,
      cadence: 'daily',
      expiry_window_days: 30,
      report: {
        webhook_url: null,
        email: false,
        sheet_target: {
          spreadsheet_id: SID,
          sheet_name: 'Fleet',
          key_column: 'A',
          header_rows: 1,
          columns: { status: 'F', confidence_score: 'G', insurer: 'H', flags: 'I', checked_at: 'J' },
        },
      },
    });

    // The baseline: where each policy stands, nothing reported.
    const first = await until(
      'the first run',
      () => fn(h, 'listWatches') as V[],
      (l) => l.find((w) => w.id === id)?.lastRun?.status === 'complete',
    );
    const w1 = first.find((w) => w.id === id);
    expect(w1.lastRun).toMatchObject({ checked: 5, changed: 0, policies: 5 });
    expect(w1.changes).toEqual([]);
    expect(w1.lastRun.credits).toBe(b0 - (await balance(conn.keys.live!)));
    expect(Date.parse(w1.nextRunAt) - Date.parse('2030-12-11T09:00:00Z')).toBeGreaterThanOrEqual(0);

    // 25 days on: one policy expired; three came within the window, two of them by the end dates only the sheet gives
    // (the date cell's day in the spreadsheet's zone, and the text).
    await setChildClock('2031-01-04T09:00:00Z');
    const second = await until(
      'the second run',
      () => fn(h, 'listWatches') as V[],
      (l) => {
        const w = l.find((x) => x.id === id);
        return w?.lastRun?.status === 'complete' && w.lastRun.runId !== w1.lastRun.runId;
      },
    );
    const w2 = second.find((w) => w.id === id);
    expect(w2.lastRun).toMatchObject({ checked: 5, changed: 4 });
    expect(w2.moreChanges).toBe(0);
    // Each change on the row it came from (the blank row 4 is not a policy).
    expect(w2.changes).toEqual([
      {
        row: 2,
        policy: 'UKM-1000-0001',
        before: 'verified',
        after: 'unverified',
        why: expect.stringMatching(/^status verified -> unverified; cover ended 2030-12-31/),
      },
      { row: 5, policy: 'KFZ-5441-000004', before: 'verified', after: 'verified', why: 'cover ends 2031-01-31, within 30 days' },
      { row: 6, policy: 'UKM-9999-0101', before: 'unverified', after: 'unverified', why: 'cover ends 2031-01-20, within 30 days' },
      { row: 7, policy: 'UKM-9999-0102', before: 'unverified', after: 'unverified', why: 'cover ends 2031-01-25, within 30 days' },
    ]);
    // The connector reported them into the spreadsheet: a line each in Changes, status cells updated in place.
    const log = await until(
      'the Changes sheet',
      () => googleGrid(SID, 'Changes'),
      (g) => (g?.length ?? 0) >= 5,
    );
    expect(log!.slice(1).map((l) => [l[1], l[2]])).toEqual([
      ['2', 'UKM-1000-0001'],
      ['5', 'KFZ-5441-000004'],
      ['6', 'UKM-9999-0101'],
      ['7', 'UKM-9999-0102'],
    ]);
    // The status cells and the Changes lines are separate Sheets calls of one write-back: wait for both.
    await until(
      'the status cell updated in place',
      () => googleGrid(SID, 'Fleet'),
      (g) => g?.[1]?.[5] === 'unverified',
    );

    const n = h.stats.log.length;
    const paused = (fn(h, 'pauseWatch', id) as V[]).find((w) => w.id === id);
    expect(paused).toMatchObject({ status: 'paused', nextRunAt: null });
    expect((fn(h, 'resumeWatch', id) as V[]).find((w) => w.id === id)).toMatchObject({ status: 'active' });
    expect((fn(h, 'deleteWatch', id) as V[]).map((w) => w.id)).not.toContain(id);
    expect(calls(h, n)).toEqual([
      `POST /api/v1/watches/${id}/pause 200`,
      'GET /api/v1/watches 200',
      `POST /api/v1/watches/${id}/resume 200`,
      'GET /api/v1/watches 200',
      `DELETE /api/v1/watches/${id} 204`,
      'GET /api/v1/watches 200',
    ]);
    expect((await api('GET', `/api/v1/watches/${id}`, conn.keys.live!)).status).toBe(404);
    // Where it came from was kept beside the spreadsheet only while it existed.
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('covercheck.watch.'))).toEqual([]);
  }, 90_000);

  it('a click retried after an execution that died with the watch made gets that watch back; a refusal is never replayed to the next click', async () => {
    const SID = 'watch-sheet-000000002';
    const h = addon(SID, conn.keys.retry!);
    fleet(h);
    await putGoogleSheet(SID, 'Fleet', FLEET);
    const listOnly = {
      ...REQUEST,
      report: { sheet: false, email: false, webhookUrl: '' },
      mapping: fn(h, 'detectWatchRows').mapping,
      endDate: 5,
    };

    // The connector makes the watch (the click's one call); its answer comes after the execution's 6 minutes, so the add-on never sees it.
    h.world.opts.rttMs = 7 * 60_000;
    expect(() => fn(h, 'watchSelectedRows', listOnly)).toThrow('Exceeded maximum execution time');
    h.world.opts.rttMs = 0;
    expect(calls(h)).toEqual(['POST /api/v1/watches 201']);
    const made = await watchesOf(conn.keys.retry!);
    expect(made).toHaveLength(1);
    // The click again: the same Idempotency-Key, so the connector answers with that watch. Even after Google
    // dropped the user's cache, which it may do before an item expires (Cache reference: no guarantee).
    h.world.user(h.user).userCache.entries.clear();
    const again = fn(h, 'watchSelectedRows', listOnly);
    expect(again.watch.id).toBe(made[0].watch_id);
    expect(await watchesOf(conn.keys.retry!)).toHaveLength(1);

    const req = { ...listOnly, report: REQUEST.report };
    expect(fn(h, 'watchSelectedRows', req).watch.id).not.toBe(made[0].watch_id);

    // A definite answer ends the attempt: the token removed behind the add-on's back, the connector refuses (403)...
    h.ss.removeMetadata(h.ss.metadata[0]!.id);
    expect(() => fn(h, 'watchSelectedRows', req)).toThrow(/Connect this spreadsheet/);
    // ...and once connected again, the same click makes a watch instead of being answered the stored 403.
    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    const n = h.stats.log.length;
    const third = fn(h, 'watchSelectedRows', req);
    expect(calls(h, n)).toEqual(['GET /api/v1/sheets/bindings 200', 'POST /api/v1/watches 201']);
    expect(third.watch.id).not.toBe(made[0].watch_id);
    const all = await watchesOf(conn.keys.retry!);
    expect(all).toHaveLength(3);
    for (const w of all) fn(h, 'deleteWatch', w.watch_id);
    expect(await watchesOf(conn.keys.retry!)).toEqual([]);
  }, 60_000);
});

describe('nothing is sent when the watch could not be what the rows say', () => {
  const policies = (n: number) =>
    Array.from({ length: n }, (_, i) => [`UKM-${1000 + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, '0')}`, 'UK', 'motor']);

  it('more than 10,000 policies: a clear message and no call; exactly 10,000 are one watch', async () => {
    const h = addon('watch-sheet-000000003', conn.keys.sandbox!);
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    s.getRange(2, 1, 10_001, 3).setValues(policies(10_001));
    const req = {
      ...REQUEST,
      report: { sheet: false, email: false, webhookUrl: '' },
      mapping: fn(h, 'detectWatchRows').mapping,
      endDate: null,
    };
    const n = h.stats.log.length;
    expect(() => fn(h, 'watchSelectedRows', req)).toThrow(
      '10,001 policies are selected; a watch holds at most 10,000. Select fewer rows and watch the rest as a second watch. Nothing was sent.',
    );
    expect(calls(h, n)).toEqual([]);

    s.getRange(2, 1, 10_001, 3).activate();
    s.getRange(10_002, 1, 1, 3).setValues([['', '', '']]);
    const made = fn(h, 'watchSelectedRows', req);
    expect(made.watch).toMatchObject({ policies: 10_000, projectedCredits: 0 });
    expect(calls(h, n)).toEqual(['POST /api/v1/watches 201']);
    fn(h, 'deleteWatch', made.watch.id);
  }, 90_000);

  it('a row the connector would refuse is named by its row; a webhook that is not https and an e-mail the key has no address for are refused', async () => {
    const h = addon('watch-sheet-000000004', conn.keys.sandbox!);
    fleet(h, [
      ['Policy number', 'Country', 'Insurance type'],
      ['UKM-1000-0001', 'UK', 'motor'],
      ['UKM-1000-0002', 'Atlantis', 'motor'],
    ]);
    const req = {
      ...REQUEST,
      report: { sheet: false, email: false, webhookUrl: '' },
      mapping: fn(h, 'detectWatchRows').mapping,
      endDate: null,
    };
    expect(() => fn(h, 'watchSelectedRows', req)).toThrow(
      /^Row 3: Unsupported country: Atlantis\. .*\nFix these rows or leave them out of the selection\. Nothing was sent\.$/s,
    );
    expect(calls(h)).toEqual([]);

    // The number format is the connector's check: its "policies[1]" is the sheet's row 3.
    h.ss.active.getRange(3, 1, 1, 3).setValues([['XYZ', 'UK', 'motor']]);
    expect(() => fn(h, 'watchSelectedRows', req)).toThrow(/^Row 3 \(XYZ\): /);
    expect(calls(h)).toEqual(['POST /api/v1/watches 400']);

    h.ss.active.getRange(3, 1, 1, 3).setValues([['UKM-1000-0002', 'UK', 'motor']]);
    expect(() =>
      fn(h, 'watchSelectedRows', { ...req, report: { sheet: false, email: false, webhookUrl: 'http://hooks.example.com/x' } }),
    ).toThrow('The webhook URL must start with https://. Nothing was sent.');
    expect(() => fn(h, 'watchSelectedRows', { ...req, cadence: 'hourly' })).toThrow('Re-check must be daily or weekly.');
    expect(() => fn(h, 'watchSelectedRows', { ...req, windowDays: 400 })).toThrow(
      'The expiry window must be a whole number of days from 0 to 365.',
    );
    expect(() => fn(h, 'watchSelectedRows', { ...req, report: { sheet: false, email: true, webhookUrl: '' } })).toThrow(
      /this API key has no e-mail address/,
    );
    expect(calls(h).slice(1)).toEqual(['POST /api/v1/watches 400']);
    expect(await watchesOf(conn.keys.sandbox!)).toEqual([]);
  }, 60_000);
});

describe("a row's history", () => {
  it('the selected row: its last results, newest first, and what changed between each and the one before', async () => {
    await setChildClock('2031-02-20T09:00:00Z');
    const h = addon('watch-sheet-000000005', conn.keys.historian!);
    fleet(h, [
      ['Policy number', 'Country', 'Insurance type'],
      ['UKM-1000-0004', 'UK', 'motor'], // ends 2031-02-28
      ['UKM-9999-0404', 'UK', 'motor'],
    ]);
    const verify = () => {
      let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { recheck: { mode: 'all' } });
      for (let i = 0; i < 50 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
      expect(p.finished).toBe(true);
    };
    verify();
    await setChildClock('2031-03-02T09:00:00Z');
    verify();

    h.ss.active.getRange(2, 2).activate();
    const n = h.stats.log.length;
    const hist = fn(h, 'getRowHistory');
    expect(calls(h, n)).toEqual(['GET /api/v1/verifications 200']);
    expect(h.stats.log.at(-1)!.url).toMatch(/\?policy_number=UKM-1000-0004&limit=\d+$/);
    expect(hist).toMatchObject({ sheet: 'Fleet', row: 2, policy: 'UKM-1000-0004', more: false });
    expect(hist.entries.map((e: V) => [e.source, e.status])).toEqual([
      ['batch', 'unverified'],
      ['batch', 'verified'],
    ]);
    expect(hist.entries[0].at.slice(0, 10)).toBe('2031-03-02');
    expect(hist.entries[0].changes).toEqual([
      { what: 'status', from: 'verified', to: 'unverified' },
      { what: 'flag_added', from: null, to: 'expired' },
    ]);
    // The oldest shown has nothing before it to compare with.
    expect(hist.entries[1].changes).toBeNull();

    h.ss.active.getRange(3, 1).activate();
    expect(fn(h, 'getRowHistory')).toMatchObject({
      row: 3,
      policy: 'UKM-9999-0404',
      entries: [{ status: 'unverified' }, { changes: null }],
    });
    expect(fn(h, 'getRowHistory').entries[0].changes).toEqual([]);
    h.ss.active.getRange(1, 1).activate();
    expect(() => fn(h, 'getRowHistory')).toThrow('Select a cell in the row whose history you want, below the header.');
  }, 60_000);
});
