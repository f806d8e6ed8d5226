/**
 * Connector-side Sheets features on the Apps Script stand-ins: "write results back when done" for the rows sidebar, and
 * connector-side dataset schedules from the datasets sidebar, against a connector child that has
 * a service account and writes into the Sheets API stand-in (test/helpers/fake-google.ts, run in
 * the child, read through its control server). A second connector without one answers 503.
 * The connector writes only into a spreadsheet bound to the key: the add-on
 * binds it first, transparently, and its developer metadata reaches the Sheets stand-in through
 * metadataMirror; bindings.test.ts tests the binding itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, metadataMirror, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'google' | 'plain'>;
let google: ChildConnector;
let plain: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    // Schedules pause after one failed run here, so the pause and Resume are seen without waiting out retries.
    google: {
      google: true,
      env: { COVERCHECK_SCHEDULE_PAUSE_AFTER: '1' },
      keys: { sandbox: { mode: 'test' }, other: { mode: 'test' }, verifyOnly: { mode: 'live', credits: 100, scopes: ['verify'] } },
    },
    plain: { keys: { sandbox: { mode: 'test' } } },
  });
  ({ http, google, plain } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

const putSheet = async (id: string, title: string, grid: string[][]) => {
  const r = await fetch(`${google.google!.control}/sheet?id=${id}&title=${encodeURIComponent(title)}`, {
    method: 'PUT',
    body: JSON.stringify(grid),
  });
  expect(r.status).toBe(204);
};
/** The add-on in a spreadsheet that Google (the child's Sheets stand-in) also holds. */
const addon = (spreadsheetId: string) =>
  loadAddon(http, { connector: google.url, spreadsheetId, onMetadata: metadataMirror(http, google) });
const calls = (h: Harness) => h.stats.log.map((l) => `${l.method} ${new URL(l.url).pathname.replace(/sbd_\w+/, 'sbd_*')} ${l.status}`);
const getGrid = async (id: string, title: string): Promise<string[][]> =>
  (await fetch(`${google.google!.control}/grid?id=${id}&title=${encodeURIComponent(title)}`)).json() as Promise<string[][]>;
async function gridUntil(id: string, title: string, done: (g: string[][]) => boolean, ms = 15_000): Promise<string[][]> {
  const until = Date.now() + ms;
  for (;;) {
    const g = await getGrid(id, title);
    if (done(g)) return g;
    if (Date.now() > until) throw new Error(`grid ${id}/${title} not done: ${JSON.stringify(g).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function direct(
  policy: string,
): Promise<{ status: string; confidence_score: number; insurer: { name: string } | null; flags: string[] }> {
  const r = await fetch(`${google.url}/api/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${google.keys.sandbox}`, 'content-type': 'application/json' },
    body: JSON.stringify({ policy_number: policy, country: 'UK', insurance_type: 'motor' }),
  });
  return (await r.json()) as never;
}

/** 150 UK motor rows: two known policies, then unknown numbers (2 batches). */
const POLICIES = ['UKM-1000-0001', 'UKM-1000-0002', ...Array.from({ length: 148 }, (_, i) => `UKM-9999-${String(i).padStart(4, '0')}`)];

function rowsSheet(h: Harness) {
  const s = h.ss.active;
  s.name = 'Claims';
  s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Type']]);
  s.getRange(2, 1, POLICIES.length, 3).setValues(POLICIES.map((p) => [p, 'UK', 'motor']));
  return s;
}

describe('rows sidebar: write results back when done', () => {
  it('names the service account; with the sidebar closed the connector writes every status into the row that holds its number', async () => {
    const SID = 'writeback-sheet-000001';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    expect(h.fns.getSheetsInfo()).toEqual({
      available: true,
      email: google.google!.serviceEmail,
      message: `Share this spreadsheet with ${google.google!.serviceEmail} as an editor so the connector can write into it.`,
    });
    const s = rowsSheet(h);
    // The same spreadsheet as Google holds it: sorted Z→A meanwhile, and one row deleted.
    const sorted = POLICIES.map((p) => [p, 'UK', 'motor']).reverse();
    const gone = sorted.splice(10, 1)[0]![0]!;
    expect(gone).toBe('UKM-9999-0137');
    await putSheet(SID, 'Claims', [['Policy number', 'Country', 'Type'], ...sorted]);

    const m = h.fns.detectRowMapping().mapping;
    const p0 = h.fns.startRowsRun(m, { writeBack: true });
    expect(p0).toMatchObject({
      total: 150,
      done: 0,
      finished: false,
      resultColumns: [4, 5, 6, 7, 8, 9],
      writeBack: { written: 0, missing: [], failed: null },
    });
    // The add-on connects the spreadsheet to the key first (nothing was bound), then submits.
    expect(calls(h)).toEqual([
      'GET /api/v1/sheets/service-account 200',
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/verify/batch 202',
      'POST /api/v1/verify/batch 202',
    ]);

    // Nobody polls (the sidebar is closed): the connector fills the sheet on its own.
    const grid = await gridUntil(SID, 'Claims', (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
    expect(grid).toHaveLength(150);
    const byNumber = new Map(grid.slice(1).map((r) => [r[0]!, r]));
    expect(byNumber.has(gone)).toBe(false);
    const known = await direct('UKM-1000-0001');
    expect(known.status).toBe('verified');
    expect(byNumber.get('UKM-1000-0001')!.slice(3, 7)).toEqual([
      'verified',
      String(known.confidence_score),
      known.insurer!.name,
      known.flags.join(', '),
    ]);
    expect(byNumber.get('UKM-1000-0001')![7]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d/);
    expect(byNumber.get('UKM-1000-0002')![3]).toBe((await direct('UKM-1000-0002')).status);
    expect(byNumber.get('UKM-1000-0002')![3]).toBe('unverified');
    // Row by row: the status is the one for the number in that row, despite the sort.
    grid.slice(1).forEach((r) => expect([r[0], r[3]]).toEqual([r[0], r[0] === 'UKM-1000-0001' ? 'verified' : 'unverified']));
    expect(grid[1]![0]).toBe('UKM-9999-0147');

    // The sidebar, polled afterwards, reports the write-back and writes nothing itself.
    let p = p0;
    for (let i = 0; i < 30 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
    expect(p).toMatchObject({
      total: 150,
      done: 150,
      errors: 0,
      finished: true,
      writeBack: { written: 149, missing: ['UKM-9999-0137'], failed: null },
    });
    expect(p.message).toBe(
      'The connector wrote 149 results into the sheet. Not found in the sheet any more, nothing written for: UKM-9999-0137.',
    );
    expect(s.row(1)).toEqual([
      'Policy number',
      'Country',
      'Type',
      'Covercheck status',
      'Covercheck confidence',
      'Covercheck insurer',
      'Covercheck flags',
      'Covercheck checked at',
      'Covercheck input hash',
    ]);
    expect(s.get(2, 4)).toBe('');
    expect(s.get(151, 4)).toBe('');
    // Only the add-on's bookkeeping: each checked row's input hash, so a re-run skips it (delta re-check).
    expect(String(s.get(2, 9))).toMatch(/^h1:/);
  }, 40_000);

  it("the insurer names are the connector's: the sidebar adds register links only to cells that still hold the name, and rewrites no value", async () => {
    const SID = 'writeback-links-sheet01';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    const s = h.ss.active;
    s.name = 'Claims';
    // Unknown numbers with a provider: the insurer is the provider's register row, a real one with a page even for a sandbox key.
    const data = [
      ['UKM-9999-7001', 'UK', 'motor', 'Hiscox'],
      ['UKM-9999-7002', 'UK', 'motor', 'Hiscox'],
      ['UKM-9999-7003', 'UK', 'motor', ''],
      ['UKM-9999-7004', 'UK', 'motor', 'Hiscox'],
    ];
    s.getRange(1, 1, 1, 4).setValues([['Policy number', 'Country', 'Type', 'Provider']]);
    s.getRange(2, 1, data.length, 4).setValues(data);
    await putSheet(SID, 'Claims', [['Policy number', 'Country', 'Type', 'Provider'], ...data]);
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true });
    expect(p.resultColumns).toEqual([5, 6, 7, 8, 9, 10]);
    const grid = await gridUntil(SID, 'Claims', (g) => g.slice(1).every((r) => (r[4] ?? '') !== ''));
    expect(grid.slice(1).map((r) => r[6])).toEqual([
      'Hiscox Insurance Company Limited',
      'Hiscox Insurance Company Limited',
      '',
      'Hiscox Insurance Company Limited',
    ]);
    // The two stand-ins are one spreadsheet seen from two sides, but don't share cells: what the
    // connector wrote is copied across, and someone has since typed over row 3's insurer.
    grid.slice(1).forEach((r, i) => s.getRange(i + 2, 5, 1, 5).setValues([r.slice(4, 9)]));
    s.set(3, 7, 'Hiscox (typed by hand)');
    const writes0 = h.ss.writes;
    const rich0 = h.ss.richTextWrites;
    for (let i = 0; i < 30 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
    expect(p).toMatchObject({ done: 4, finished: true, writeBack: { written: 4, failed: null } });
    const link = 'https://register.fca.org.uk/s/search?q=113849&type=Companies';
    expect(
      s
        .getRange(2, 7, 4, 1)
        .getRichTextValues()
        .map(([v]) => [v!.getText(), v!.getLinkUrl()]),
    ).toEqual([
      ['Hiscox Insurance Company Limited', link],
      ['Hiscox (typed by hand)', null],
      ['', null],
      ['Hiscox Insurance Company Limited', link],
    ]);
    // Rows 2 and 4, split by the edited row: one rich text call each; the other write is the hash column.
    expect(h.ss.richTextWrites - rich0).toBe(2);
    expect(h.ss.writes - writes0).toBe(3);
    expect(s.get(2, 5)).toBe(grid[1]![4]);
  }, 40_000);

  it('when the connector cannot write (the spreadsheet no longer shared with its service account), the open sidebar writes the results itself and says why', async () => {
    const SID = 'not-shared-sheet-00001';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    const s = rowsSheet(h);
    await putSheet(SID, 'Claims', [['Policy number', 'Country', 'Type'], ...POLICIES.map((p) => [p, 'UK', 'motor'])]);
    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    // Someone removes the service account from the spreadsheet's sharing after it was connected
    // (the binding, verified moments ago, is trusted until the recheck interval ends).
    expect((await fetch(`${google.google!.control}/share?id=${SID}&shared=false`, { method: 'PUT' })).status).toBe(204);
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true });
    for (let i = 0; i < 40 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
    const why = `Reading column A of Claims: permission denied. Share the spreadsheet with ${google.google!.serviceEmail} as an editor.`;
    expect(p).toMatchObject({ done: 150, finished: true, writeBack: { written: 0, missing: [], failed: why } });
    expect(p.message).toBe(`Write-back failed: ${why} This sidebar wrote those results instead.`);
    expect(s.get(2, 4)).toBe('verified');
    expect(s.get(151, 4)).toBe('unverified');
  }, 40_000);

  it('a connector without a service account answers 503: the option is off, with the reason', () => {
    const h = loadAddon(http, { connector: plain.url });
    h.fns.saveSettings({ url: CONNECTOR, key: plain.keys.sandbox });
    expect(h.fns.getSheetsInfo()).toEqual({
      available: false,
      email: null,
      message: expect.stringMatching(/^The connector has no Google service account/),
    });
    expect(h.stats.log.map((l) => `${l.method} ${new URL(l.url).pathname} ${l.status}`)).toEqual([
      'GET /api/v1/sheets/service-account 503',
    ]);
    expect(h.fns.getBindingStatus()).toEqual({
      available: false,
      bound: false,
      bindingId: null,
      message: 'The connector has no Google service account, so it writes into no spreadsheet: there is nothing to connect.',
    });
    // Write-back asked for anyway (the sidebar disables it): refused before anything is sent.
    rowsSheet(h);
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true })).toThrow(
      /^The connector has no Google service account, so it writes into no spreadsheet/,
    );
    expect(h.stats.log.filter((l) => l.method === 'POST')).toEqual([]);
    h.fns.saveSettings({ url: CONNECTOR, key: 'pk_test_notarealkey' });
    expect(() => h.fns.getSheetsInfo()).toThrow(/^API key refused \(401\)/);
  });
});

describe('datasets sidebar: connector schedules', () => {
  it("import with a connector refresh in merge mode: the schedule keeps the mode, and the connector merges on the date, the user's column kept", async () => {
    const SID = 'schedules-merge-sheet-1';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    const series = (await fetch(`${google.url}/api/v1/datasets/uk-gdp-abmi/series?limit=4`).then((x) => x.json())) as {
      points: { date: string; value: number }[];
    };
    const [p0, p1, p2, p3] = series.points as [
      { date: string; value: number },
      { date: string; value: number },
      { date: string; value: number },
      { date: string; value: number },
    ];
    // Google's copy of the sheet: a stale value on one of the series' dates, a date of the user's own, notes in C.
    await putSheet(SID, 'GDP', [
      ['date', 'value', 'Note'],
      [p2.date, '0', 'check this'],
      ['1999-01-01', '7', 'mine'],
    ]);
    const r = h.fns.importDataset({
      slug: 'uk-gdp-abmi',
      sheetName: 'GDP',
      limit: 4,
      schedule: 'daily',
      refreshBy: 'connector',
      mode: 'merge',
    });
    expect(r.connectorSchedule).toMatchObject({ mode: 'merge', paused: null });
    const grid = await gridUntil(SID, 'GDP', (g) => g.length >= 6);
    expect(grid.slice(1).map((row) => [row[0], row[2] ?? ''])).toEqual([
      [p2.date, 'check this'],
      ['1999-01-01', 'mine'],
      [p0.date, ''],
      [p1.date, ''],
      [p3.date, ''],
    ]);
    expect(Number(grid[1]![1])).toBe(p2.value);
    expect(grid[2]![1]).toBe('7');
    expect(h.fns.listConnectorSchedules()[0]).toMatchObject({ id: r.connectorSchedule.id, mode: 'merge' });
    h.fns.removeConnectorSchedule(r.connectorSchedule.id);
  });

  it('import with a daily connector refresh: the connector fills the sheet; list shows next run and last run; remove', async () => {
    const SID = 'schedules-sheet-00001';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    // The sheet as Google holds it (the add-on makes it in the spreadsheet; here the two are separate stand-ins).
    await putSheet(SID, 'Motor RPI', [
      ['stale', 'data'],
      ['1999-01-01', '7'],
    ]);
    const r = h.fns.importDataset({
      slug: 'uk-rpi-vehicles-tax-insurance-yoy',
      sheetName: 'Motor RPI',
      limit: 24,
      chart: true,
      schedule: 'daily',
      refreshBy: 'connector',
    });
    expect(r).toMatchObject({
      sheetName: 'Motor RPI',
      rows: 24,
      chart: true,
      schedule: null,
      connectorSchedule: {
        id: expect.stringMatching(/^sch_/),
        dataset: 'uk-rpi-vehicles-tax-insurance-yoy',
        sheetName: 'Motor RPI',
        cadence: 'daily',
        limit: 24,
      },
    });
    expect(h.world.triggers).toHaveLength(0);
    expect(calls(h).filter((c) => c.startsWith('POST'))).toEqual([
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/sheets/schedules 201',
    ]);

    const series = (await fetch(`${google.url}/api/v1/datasets/uk-rpi-vehicles-tax-insurance-yoy/series?limit=24`).then((x) =>
      x.json(),
    )) as { points: { date: string; value: number }[] };
    const grid = await gridUntil(SID, 'Motor RPI', (g) => g[1]?.[0] !== '1999-01-01' && g.length >= 25);
    expect(grid[0]).toEqual(['date', expect.stringMatching(/^UK RPI: vehicles tax and insurance/)]);
    expect(grid.slice(1, 25).map((row) => [row[0], Number(row[1])])).toEqual(series.points.map((p) => [p.date, p.value]));
    expect(grid.slice(25).every((row) => row.every((c) => c === ''))).toBe(true);

    let list = h.fns.listConnectorSchedules();
    for (let i = 0; i < 50 && list[0]?.lastRun?.status !== 'ok'; i++) {
      await new Promise((res) => setTimeout(res, 50));
      list = h.fns.listConnectorSchedules();
    }
    expect(list).toEqual([
      {
        id: r.connectorSchedule.id,
        dataset: 'uk-rpi-vehicles-tax-insurance-yoy',
        sheetName: 'Motor RPI',
        cadence: 'daily',
        limit: 24,
        mode: 'overwrite',
        paused: null,
        nextRunAt: expect.any(String),
        lastRun: { status: 'ok', at: expect.any(String), rows: 24, error: null },
        runs: [{ at: expect.any(String), ok: true, running: false, rows: 24, durationMs: expect.any(Number), error: null }],
      },
    ]);
    expect(list[0].runs[0].durationMs).toBeGreaterThanOrEqual(0);
    expect(Date.parse(list[0].nextRunAt) - Date.now()).toBeGreaterThan(23 * 3600_000);

    // A schedule into a sheet Google doesn't have fails its run; the list says why. The same key's
    // schedules into another spreadsheet (connected there) are not listed here.
    const bad = h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'hourly', limit: 5 });
    expect(h.ss.sheets.some((x) => x.name === 'GDP')).toBe(true);
    const other = addon('another-spreadsheet-01');
    other.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    await putSheet('another-spreadsheet-01', 'X', []);
    expect(other.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'X', cadence: 'weekly' })).toMatchObject({
      id: expect.stringMatching(/^sch_/),
    });
    for (let i = 0; i < 50; i++) {
      list = h.fns.listConnectorSchedules();
      if (list.find((s: any) => s.id === bad.id)?.lastRun?.status === 'failed') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(list.map((s: any) => s.id)).toEqual(expect.arrayContaining([r.connectorSchedule.id, bad.id]));
    expect(list).toHaveLength(2);
    // Says only what is missing, never which sheets the spreadsheet has.
    expect(list.find((s: any) => s.id === bad.id).lastRun).toMatchObject({
      status: 'failed',
      rows: null,
      error: 'the spreadsheet has no sheet named "GDP"',
    });
    // Its history, as the sidebar shows it (the connector's own record of runs).
    expect(list.find((s: any) => s.id === bad.id).runs[0]).toMatchObject({
      ok: false,
      running: false,
      rows: null,
      error: 'the spreadsheet has no sheet named "GDP"',
    });

    expect(h.fns.removeConnectorSchedule(bad.id).map((s: any) => s.id)).toEqual([r.connectorSchedule.id]);
    expect(h.fns.removeConnectorSchedule(r.connectorSchedule.id)).toEqual([]);
    expect(() => h.fns.removeConnectorSchedule(r.connectorSchedule.id)).toThrow(/No schedule sch_\w+ for this API key/);
  }, 40_000);

  it('a schedule the connector paused shows why; Resume (through the add-on) runs it again at once', async () => {
    const SID = 'schedules-paused-sheet1';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    // Google's copy of the spreadsheet has no "GDP" sheet: the first run fails, and the schedule pauses (after 1 here).
    await putSheet(SID, 'Other', []);
    const s = h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'daily', limit: 3 });
    let list = h.fns.listConnectorSchedules();
    for (let i = 0; i < 100 && !list[0]?.paused; i++) {
      await new Promise((res) => setTimeout(res, 50));
      list = h.fns.listConnectorSchedules();
    }
    expect(list[0]).toMatchObject({
      id: s.id,
      paused: 'Paused after 1 failed runs in a row. The last: the spreadsheet has no sheet named "GDP"',
    });
    await putSheet(SID, 'GDP', [
      ['', '', 'Note'],
      ['', '', 'kept'],
    ]);
    list = h.fns.resumeConnectorSchedule(s.id);
    expect(list[0]).toMatchObject({ id: s.id, paused: null });
    for (let i = 0; i < 100 && list[0]?.lastRun?.status !== 'ok'; i++) {
      await new Promise((res) => setTimeout(res, 50));
      list = h.fns.listConnectorSchedules();
    }
    expect(list[0]).toMatchObject({ paused: null, lastRun: { status: 'ok', rows: 3 } });
    expect((await getGrid(SID, 'GDP')).map((row) => row[2] ?? '')).toEqual(['Note', 'kept', '', '']);
    expect(() => h.fns.resumeConnectorSchedule('sch_nope')).toThrow(/No schedule sch_nope for this API key/);
    h.fns.removeConnectorSchedule(s.id);
  }, 30_000);

  it('refused without the datasets scope and with a bad cadence, in readable words', async () => {
    const h = addon('schedules-sheet-00002');
    await putSheet('schedules-sheet-00002', 'GDP', []);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.verifyOnly });
    expect(() => h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'daily' })).toThrow(
      /^This API key may not do that \(403\)/,
    );
    expect(() => h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'monthly' })).toThrow(
      /^Refresh must be one of hourly, daily, weekly\./,
    );
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.sandbox });
    expect(() => h.fns.createConnectorSchedule({ slug: 'no-such-dataset', sheetName: 'GDP', cadence: 'daily' })).toThrow(
      /No dataset "no-such-dataset"/,
    );
  });
});
