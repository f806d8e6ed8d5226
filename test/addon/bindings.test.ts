/**
 * The add-on's side of spreadsheet binding (docs/sheets-binding.md) end to end:
 * the built add-on on the Apps Script stand-ins against the real connector in a child process,
 * which reads the binding token back through the Sheets API stand-in (test/helpers/fake-google.ts).
 * What the add-on writes as developer metadata reaches that stand-in through metadataMirror (the
 * two stand-ins are one spreadsheet seen from two sides), as it would for an editor.
 *
 * The child checks a binding on every use (COVERCHECK_SHEETS_BINDING_RECHECK_MS=0), so metadata
 * deleted behind the add-on's back is noticed at once; the 10-minute default interval is tested on
 * the connector's side (test/sheets/bindings.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, metadataMirror, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'google'>;
let google: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    google: {
      google: true,
      env: { COVERCHECK_SHEETS_BINDING_RECHECK_MS: '0' },
      keys: { alice: { mode: 'test' }, bob: { mode: 'test' }, mallory: { mode: 'test' } },
    },
  });
  ({ http, google } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

const addon = (spreadsheetId: string) =>
  loadAddon(http, { connector: google.url, spreadsheetId, onMetadata: metadataMirror(http, google) });
/** Google's copy of the spreadsheet's developer metadata, as the connector's service account and everyone else see it. */
const googleMetadata = async (id: string) =>
  (await fetch(`${google.google!.control}/metadata?id=${id}`)).json() as Promise<
    { metadataKey: string; metadataValue?: string; visibility: string }[]
  >;
const googleGrid = async (id: string) =>
  (await fetch(`${google.google!.control}/grid?id=${id}&title=Claims`)).json() as Promise<string[][]>;
const direct = (method: string, p: string, key: string) => fetch(google.url + p, { method, headers: { authorization: `Bearer ${key}` } });
const calls = (h: Harness, from = 0) =>
  h.stats.log.slice(from).map((l) => `${l.method} ${new URL(l.url).pathname.replace(/sbd_\w+/, 'sbd_*')} ${l.status}`);
/** What the add-on says when the connector refuses a spreadsheet: a function of the spreadsheet id alone. */
const notBound = (id: string) =>
  `Spreadsheet ${id} is not connected to this API key, so nothing is written into it. Share it with ${google.google!.serviceEmail} as an editor, then open it in Google Sheets and choose Extensions > Covercheck > Connect this spreadsheet (you need edit access). Connect this spreadsheet to your API key (Covercheck > Settings > Connect) and try again.`;

const ROWS = [
  ['Policy number', 'Country', 'Type'],
  ['UKM-1000-0001', 'UK', 'motor'],
  ['UKM-1000-0002', 'UK', 'motor'],
];
/** The same rows in the add-on's view of the spreadsheet and in Google's copy, which the connector reads. */
async function sheetWithPolicies(h: Harness, sid: string): Promise<void> {
  h.ss.active.name = 'Claims';
  h.ss.active.getRange(1, 1, 3, 3).setValues(ROWS);
  const r = await fetch(`${google.google!.control}/sheet?id=${sid}&title=Claims`, { method: 'PUT', body: JSON.stringify(ROWS) });
  expect(r.status).toBe(204);
}
async function gridUntil(id: string, done: (g: string[][]) => boolean): Promise<string[][]> {
  for (let i = 0; i < 300; i++) {
    const g = await googleGrid(id);
    if (done(g)) return g;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('grid not written');
}

describe('binding a spreadsheet to the key (add-on side, against the connector)', () => {
  it('Settings: connect writes DOCUMENT-visible metadata that the connector verifies; connecting again adds nothing; disconnect removes both', async () => {
    const SID = 'binding-sheet-000001';
    const h = addon(SID);
    await sheetWithPolicies(h, SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    expect(h.fns.getBindingStatus()).toEqual({
      available: true,
      bound: false,
      bindingId: null,
      message: 'Not connected: the connector may not write into this spreadsheet with this key.',
    });
    const n = h.stats.log.length;
    const v = h.fns.bindSpreadsheet(true);
    expect(v).toEqual({
      available: true,
      bound: true,
      bindingId: expect.stringMatching(/^sbd_/),
      message: `Connected to this key (…${google.keys.alice!.slice(-4)}): the connector may write into this spreadsheet.`,
    });
    expect(calls(h, n)).toEqual([
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
    ]);
    expect(h.ss.metadata.map((m) => [m.key, m.visibility])).toEqual([['covercheck.binding', 'DOCUMENT']]);
    const token = h.ss.metadata[0]!.value!;
    expect(token).toMatch(/^cvb_/);
    expect(await googleMetadata(SID)).toEqual([
      expect.objectContaining({ metadataKey: 'covercheck.binding', metadataValue: token, visibility: 'DOCUMENT' }),
    ]);
    expect(JSON.stringify(h.docProps.data)).not.toContain(google.keys.alice);
    expect(await (await direct('GET', `/api/v1/sheets/bindings/${v.bindingId}`, google.keys.alice!)).json()).toMatchObject({
      status: 'active',
      spreadsheet_id: SID,
    });

    // Connect again: the connector finds the same token; nothing is issued or written.
    const m = h.stats.log.length;
    expect(h.fns.bindSpreadsheet(true)).toMatchObject({ bound: true, bindingId: v.bindingId });
    expect(calls(h, m)).toEqual(['GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/bindings/sbd_*/verify 200']);
    expect(h.ss.metadata.map((x) => x.value)).toEqual([token]);

    expect(h.fns.disconnectSpreadsheet()).toMatchObject({ available: true, bound: false });
    expect(h.ss.metadata).toEqual([]);
    expect(await googleMetadata(SID)).toEqual([]);
    expect(await (await direct('GET', '/api/v1/sheets/bindings', google.keys.alice!)).json()).toEqual({ bindings: [] });
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('covercheck.binding'))).toEqual([]);
  }, 40_000);

  it("write results back: the add-on binds first, the connector writes; another user's add-on can neither write nor schedule into the spreadsheet and learns nothing about it", async () => {
    const SID = 'binding-sheet-000002';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    await sheetWithPolicies(h, SID);
    const p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true });
    expect(p).toMatchObject({ total: 2, finished: false });
    expect(calls(h)).toEqual([
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/verify/batch 202',
    ]);
    const grid = await gridUntil(SID, (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
    expect(grid.slice(1).map((r) => r[3])).toEqual(['verified', 'unverified']);

    // The cross-tenant write attack, through the add-on: mallory's add-on names alice's spreadsheet with
    // mallory's key. She cannot edit it, so what her add-on writes as metadata stays in her view
    // and never reaches Google's copy (no mirror): the connector finds no token for her key.
    const mallory = loadAddon(http, { connector: google.url, spreadsheetId: SID, owner: 'mallory@example.com' });
    mallory.fns.saveSettings({ url: CONNECTOR, key: google.keys.mallory });
    mallory.ss.active.name = 'Claims';
    mallory.ss.active.getRange(1, 1, 3, 3).setValues(ROWS);
    expect(() => mallory.fns.startRowsRun(mallory.fns.detectRowMapping().mapping, { writeBack: true })).toThrow(notBound(SID));
    expect(() => mallory.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'Claims', cadence: 'hourly', limit: 5 })).toThrow(
      notBound(SID),
    );
    expect(() =>
      mallory.fns.importDataset({
        slug: 'uk-gdp-abmi',
        sheetName: 'GDP',
        limit: 5,
        chart: false,
        schedule: 'daily',
        refreshBy: 'connector',
      }),
    ).toThrow(notBound(SID));
    // Refused before anything was accepted: no batch, no schedule; Google's copy is as alice's run left it.
    expect(calls(mallory).filter((c) => !c.includes('/sheets/bindings') && !c.startsWith('GET /api/v1/datasets'))).toEqual([]);
    expect(await (await direct('GET', '/api/v1/sheets/schedules', google.keys.mallory!)).json()).toEqual({ schedules: [] });
    expect(await googleGrid(SID)).toEqual(grid);
    expect((await googleMetadata(SID)).map((x) => x.metadataValue)).toEqual([h.ss.metadata[0]!.value]);
    // Learns nothing: the refusal for alice's spreadsheet, rows and sheet names and all, is the
    // refusal for one that does not exist.
    const nowhere = loadAddon(http, { connector: google.url, spreadsheetId: 'no-such-spreadsheet-0001', owner: 'mallory@example.com' });
    nowhere.fns.saveSettings({ url: CONNECTOR, key: google.keys.mallory });
    expect(() => nowhere.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'Claims', cadence: 'hourly', limit: 5 })).toThrow(
      notBound('no-such-spreadsheet-0001'),
    );

    // A second editor binds with their own key: two bindings, two metadata entries; alice stays bound.
    const bob = h.as('bob@example.com');
    bob.fns.saveSettings({ url: CONNECTOR, key: google.keys.bob });
    expect(bob.fns.bindSpreadsheet(true)).toMatchObject({ bound: true });
    expect(h.ss.metadata).toHaveLength(2);
    expect(await googleMetadata(SID)).toHaveLength(2);
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('covercheck.binding.'))).toHaveLength(2);
    expect(h.fns.getBindingStatus()).toMatchObject({ bound: true });
  }, 40_000);

  it("metadata deleted behind the add-on's back: the connector refuses with advice to connect; the next write-back binds again with one entry", async () => {
    const SID = 'binding-sheet-000003';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    await sheetWithPolicies(h, SID);
    const first = h.fns.bindSpreadsheet(true);
    h.ss.removeMetadata(h.ss.metadata[0]!.id);
    expect(await googleMetadata(SID)).toEqual([]);
    // The add-on still believes it is bound (the connector's last check found the token); the connector looks again and refuses.
    const n = h.stats.log.length;
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true })).toThrow(notBound(SID));
    expect(calls(h, n)).toEqual(['GET /api/v1/sheets/bindings 200', 'POST /api/v1/verify/batch 403']);
    expect(h.fns.getBindingStatus()).toMatchObject({ bound: false });

    const m = h.stats.log.length;
    expect(h.fns.startRowsRun(h.fns.detectRowMapping().mapping, { writeBack: true })).toMatchObject({ total: 2 });
    // The same binding with a new token: the old one stopped counting when it was reissued.
    expect(calls(h, m)).toEqual([
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/verify/batch 202',
    ]);
    expect(h.fns.getBindingStatus()).toMatchObject({ bound: true, bindingId: first.bindingId });
    expect(h.ss.metadata).toHaveLength(1);
    expect((await googleMetadata(SID)).map((x) => x.metadataValue)).toEqual([h.ss.metadata[0]!.value]);
    await gridUntil(SID, (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
  }, 40_000);

  it('binding answers off the contract (shared/sheets.ts) are refused, and nothing is written into the document', async () => {
    const SID = 'binding-sheet-000005';
    const can = async (method: string, p: string, status: number, body: unknown) =>
      expect(
        (
          await fetch(`${google.control}/canned?method=${method}&path=${encodeURIComponent(p)}&status=${status}`, {
            method: 'PUT',
            body: JSON.stringify(body),
          })
        ).status,
      ).toBe(204);
    const h = loadAddon(http, { connector: `${google.control}/canned`, spreadsheetId: SID });
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    // A bare list (which the add-on used to take as well).
    await can('GET', '/api/v1/sheets/bindings', 200, []);
    expect(() => h.fns.getBindingStatus()).toThrow(
      /^The connector's answer to GET \/sheets\/bindings is not what this add-on expects \(body: .+\)\. Update the connector\.$/,
    );
    // A token that is not one: never written into the spreadsheet.
    await can('GET', '/api/v1/sheets/bindings', 200, { bindings: [] });
    const issued = {
      binding_id: 'sbd_0',
      spreadsheet_id: SID,
      status: 'pending',
      metadata_key: 'covercheck.binding',
      created_at: '2026-01-01T00:00:00Z',
      verified_at: null,
    };
    await can('POST', '/api/v1/sheets/bindings', 201, { ...issued, metadata_value: '=IMPORTXML("https://evil.example/")' });
    expect(() => h.fns.bindSpreadsheet(true)).toThrow(
      /^The connector's answer to POST \/sheets\/bindings is not what this add-on expects \(metadata_value: /,
    );
    await can('POST', '/api/v1/sheets/bindings', 201, { ...issued, metadata_key: 'other.key', metadata_value: `cvb_${'A'.repeat(43)}` });
    expect(() => h.fns.bindSpreadsheet(true)).toThrow(
      /^The connector's answer to POST \/sheets\/bindings is not what this add-on expects \(metadata_key: /,
    );
    expect(h.ss.metadata).toEqual([]);
  });

  it('a connector schedule binds the spreadsheet first; once bound, one call says so', async () => {
    const SID = 'binding-sheet-000004';
    const h = addon(SID);
    h.fns.saveSettings({ url: CONNECTOR, key: google.keys.alice });
    await sheetWithPolicies(h, SID);
    expect(h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'daily', limit: 4 })).toMatchObject({
      id: expect.stringMatching(/^sch_/),
      cadence: 'daily',
    });
    expect(calls(h)).toEqual([
      'GET /api/v1/sheets/bindings 200',
      'POST /api/v1/sheets/bindings 201',
      'POST /api/v1/sheets/bindings/sbd_*/verify 200',
      'POST /api/v1/sheets/schedules 201',
    ]);
    const n = h.stats.log.length;
    h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP 2', cadence: 'weekly', limit: 4 });
    expect(calls(h, n)).toEqual(['GET /api/v1/sheets/bindings 200', 'POST /api/v1/sheets/schedules 201']);
    expect(h.ss.metadata).toHaveLength(1);
  }, 40_000);
});
