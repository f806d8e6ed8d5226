/**
 * The add-on's side of spreadsheet binding (issue 17 item 5) against binding-proxy.ts, a fake of
 * the connector's binding routes in front of the real connector (which writes into the Sheets API
 * stand-in). The developer metadata the add-on writes is mirrored into the fake through its
 * control route, as the connector child's POST /metadata will take it once the connector has
 * the routes (then this file points at the connector child itself; see addon/README.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, CONNECTOR, loadAddon, startChild, startConnectorChild, SyncHttp, type ChildConnector, type Harness } from './harness.js';
import type { MetadataEvent } from './standin/spreadsheet.js';

let google: ChildConnector;
let proxy: { url: string; control: string; stop(): Promise<void> };
let http: SyncHttp;

beforeAll(async () => {
  buildAddon();
  http = new SyncHttp();
  google = await startConnectorChild({ google: true, keys: { alice: { mode: 'test' }, bob: { mode: 'test' }, mallory: { mode: 'test' } } });
  proxy = await startChild('binding-proxy.ts', [google.url]);
}, 60_000);

afterAll(async () => {
  await Promise.all([proxy?.stop(), google?.stop()]);
  await http?.close();
});

/** Mirrors the add-on's metadata writes into what the connector reads through the Sheets API. */
const mirror = (e: MetadataEvent) => {
  const q = `id=${encodeURIComponent(e.spreadsheetId)}` + (e.op === 'remove' ? `&key=${encodeURIComponent(e.key)}&value=${encodeURIComponent(e.value ?? '')}` : '');
  const [r] = http.send([{ url: `${proxy.control}/metadata?${q}`, method: e.op === 'add' ? 'POST' : 'DELETE', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: e.key, value: e.value, visibility: e.visibility }) }]);
  if (r!.status !== 204) throw new Error(`metadata mirror failed: ${r!.status ?? r!.error}`);
};
const mirrored = async (id: string) => (await fetch(`${proxy.control}/metadata?id=${id}`)).json();
const direct = (method: string, p: string, key: string, body?: unknown) =>
  fetch(proxy.url + p, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
const calls = (h: Harness, from = 0) => h.stats.log.slice(from).map((l) => `${l.method} ${new URL(l.url).pathname.replace(/bnd_\w+/, 'bnd_*').replace(/bat_\w+/, 'bat_*')} ${l.status}`);

function sheetWithPolicies(h: Harness, sid: string): Promise<Response> {
  const s = h.ss.active;
  s.name = 'Claims';
  const rows = [['Policy number', 'Country', 'Type'], ['UKM-1000-0001', 'UK', 'motor'], ['UKM-1000-0002', 'UK', 'motor']];
  s.getRange(1, 1, 3, 3).setValues(rows);
  return fetch(`${google.google!.control}/sheet?id=${sid}&title=Claims`, { method: 'PUT', body: JSON.stringify(rows) });
}
async function gridUntil(id: string, done: (g: string[][]) => boolean): Promise<string[][]> {
  for (let i = 0; i < 300; i++) {
    const g = (await (await fetch(`${google.google!.control}/grid?id=${id}&title=Claims`)).json()) as string[][];
    if (done(g)) return g;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('grid not written');
}

describe('binding a spreadsheet to the key (add-on side)', () => {
  it('Settings: connect writes DOCUMENT-visible metadata and verifies; connecting again adds nothing; disconnect removes both', async () => {
    const SID = 'binding-sheet-000001';
    const h = loadAddon(http, { connector: proxy.url, spreadsheetId: SID, onMetadata: mirror });
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    expect(h.fns.getBindingStatus()).toMatchObject({ supported: true, bound: false });
    const n = h.stats.log.length;
    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ supported: true, bound: true, bindingId: expect.stringMatching(/^bnd_/), message: `Connected to this key (…${google.keys.alice!.slice(-4)}): the connector may write into this spreadsheet.` });
    expect(calls(h, n)).toEqual(['GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/bindings 201', 'GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/bindings/bnd_*/verify 200', 'GET /api/v1/sheets/bindings 200']);
    expect(h.ss.metadata.map((m) => [m.key, m.visibility])).toEqual([['covercheck.binding', 'DOCUMENT']]);
    expect(h.ss.metadata[0]!.value).toMatch(/^cvb_/);
    expect(await mirrored(SID)).toEqual([{ key: 'covercheck.binding', value: h.ss.metadata[0]!.value, visibility: 'DOCUMENT' }]);
    expect(JSON.stringify(h.docProps.data)).not.toContain(google.keys.alice);

    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    expect(h.ss.metadata).toHaveLength(1);

    expect(h.fns.disconnectSpreadsheet()).toMatchObject({ supported: true, bound: false });
    expect(h.ss.metadata).toEqual([]);
    expect(await mirrored(SID)).toEqual([]);
    expect(await (await direct('GET', '/api/v1/sheets/bindings', google.keys.alice!)).json()).toEqual({ bindings: [] });
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('covercheck.binding'))).toEqual([]);
  });

  it('write results back: the add-on binds first, the connector writes; another key can neither write nor schedule into the spreadsheet', async () => {
    const SID = 'binding-sheet-000002';
    const h = loadAddon(http, { connector: proxy.url, spreadsheetId: SID, onMetadata: mirror });
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    expect((await sheetWithPolicies(h, SID)).status).toBe(204);
    const p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true });
    expect(p).toMatchObject({ total: 2, finished: false });
    expect(calls(h).filter((c) => c.includes('bindings') || c.includes('batch'))).toEqual([
      'GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/bindings 201', 'GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/bindings/bnd_*/verify 200', 'GET /api/v1/sheets/bindings 200', 'POST /api/v1/verify/batch 202',
    ]);
    const grid = await gridUntil(SID, (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
    expect(grid.slice(1).map((r) => r[3])).toEqual(['verified', 'unverified']);

    // The attack of issue 17: another key names the same spreadsheet.
    const target = { spreadsheet_id: SID, sheet_name: 'Claims', key_column: 'A', header_rows: 1, columns: { status: 'D' } };
    const w = await direct('POST', '/api/v1/verify/batch', google.keys.mallory!, { policies: [{ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }], sheet_target: target });
    expect(w.status).toBe(403);
    expect(await w.json()).toMatchObject({ error: 'sheet_not_bound', code: 403 });
    const s = await direct('POST', '/api/v1/sheets/schedules', google.keys.mallory!, { dataset: 'uk-gdp-abmi', spreadsheet_id: SID, sheet_name: 'X', cadence: 'daily' });
    expect(s.status).toBe(403);

    // A second editor binds with their own key: two records, two metadata entries.
    const bob = h.as('bob@example.com');
    bob.fns.saveSettings({ url: CONNECTOR, key: google.keys.bob });
    expect(bob.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    expect(h.ss.metadata).toHaveLength(2);
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('covercheck.binding.'))).toHaveLength(2);
    expect(h.fns.getBindingStatus()).toMatchObject({ bound: true });
  }, 40_000);

  it('metadata deleted behind the add-on\'s back: the connector refuses with advice to connect; Connect re-binds with one entry', async () => {
    const SID = 'binding-sheet-000003';
    const h = loadAddon(http, { connector: proxy.url, spreadsheetId: SID, onMetadata: mirror });
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    await sheetWithPolicies(h, SID);
    h.fns.bindSpreadsheet(true);
    h.ss.removeMetadata(h.ss.metadata[0]!.id);
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true })).toThrow(/^Spreadsheet binding-sheet-000003 is not bound to this API key\. Connect this spreadsheet to your API key \(Covercheck > Settings > Connect\) and try again\.$/);
    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    expect(h.ss.metadata).toHaveLength(1);
    expect(await mirrored(SID)).toHaveLength(1);
    expect(((await (await direct('GET', '/api/v1/sheets/bindings', google.keys.alice!)).json()) as { bindings: { spreadsheet_id: string }[] }).bindings.filter((b: { spreadsheet_id: string }) => b.spreadsheet_id === SID)).toHaveLength(1);
    expect(h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true })).toMatchObject({ total: 2 });
  }, 40_000);

  it('a connector schedule binds the spreadsheet first', () => {
    const h = loadAddon(http, { connector: proxy.url, spreadsheetId: 'binding-sheet-000004', onMetadata: mirror });
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    expect(h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'daily', limit: 4 })).toMatchObject({ id: expect.stringMatching(/^sch_/), cadence: 'daily' });
    expect(h.ss.metadata).toHaveLength(1);
    expect(calls(h).at(-1)).toBe('POST /api/v1/sheets/schedules 201');
  });
});
