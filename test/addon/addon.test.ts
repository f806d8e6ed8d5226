/**
 * The built add-on (dist/addon/Code.js) in a vm with Apps Script stand-ins, against the real
 * connector in a child process: =VERIFYPOLICY, settings, the rows, PDF and dataset flows.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, loadAddon, ROOT, startConnectorChild, SyncHttp, type ChildConnector, type Harness } from './harness.js';

let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  buildAddon();
  http = new SyncHttp();
  conn = await startConnectorChild({
    keys: {
      live: { mode: 'live', credits: 5000 },
      sandbox: { mode: 'test' },
      broke: { mode: 'live', credits: 0 },
      verifyOnly: { mode: 'live', credits: 100, scopes: ['verify'] },
    },
  });
}, 60_000);

afterAll(async () => {
  await conn?.stop();
  await http?.close();
});

async function api(method: string, p: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(conn.url + p, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  return { status: res.status, body: await res.json() };
}

function granted(key: string, url = conn.url): Harness {
  const h = loadAddon(http);
  h.fns.saveSettings({ url, key });
  h.fns.grantKeyToSpreadsheet(true);
  return h;
}

/** 250 distinct rows: the demo registry's known policies, unknown numbers and an uncovered pair. */
function rows250(): string[][] {
  const known = [
    ['UKM-1000-0001', 'UK', 'motor'], ['UKM-1000-0002', 'UK', 'motor'], ['UKM-1000-0003', 'UK', 'motor'], ['UKM-1000-0005', 'UK', 'motor'],
    ['UKM-1000-0006', 'UK', 'motor'], ['UKT-2000-0001', 'UK', 'travel'], ['UKH-3000-0001', 'UK', 'health'], ['KFZ-5096-000001', 'DE', 'motor'],
    ['KFZ-5515-000003', 'DE', 'motor'], ['REI-5441-000001', 'DE', 'travel'], ['KV-5549-000002', 'DE', 'health'], ['AUTO-2109-000001', 'FR', 'motor'],
  ];
  const out: string[][] = known.map((k) => [...k]);
  for (let i = 0; out.length < 250; i++) {
    if (i % 5 === 4) out.push([`MUT-${String(100000 + i)}`, 'FR', 'health']);
    else out.push([`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']);
  }
  return out;
}

describe('build', () => {
  it('Code.js has top-level stubs, the custom function JSDoc and stays small', async () => {
    const fs = await import('node:fs');
    const code = fs.readFileSync(path.join(ROOT, 'dist/addon/Code.js'), 'utf8');
    expect(code).toMatch(/@customfunction\s*\n\s*\*\/\nfunction VERIFYPOLICY\(policy_number, country, insurance_type, provider, output\)/);
    for (const fn of ['onOpen', 'onInstall', 'startRowsRun', 'pollRowsRun', 'refreshScheduledImports']) expect(code).toContain(`\nfunction ${fn}(`);
    expect(Buffer.byteLength(code)).toBeLessThan(300 * 1024);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/addon/appsscript.json'), 'utf8'));
    expect(manifest.runtimeVersion).toBe('V8');
    expect(manifest.oauthScopes).toContain('https://www.googleapis.com/auth/spreadsheets.currentonly');
    expect(manifest.oauthScopes).not.toContain('https://www.googleapis.com/auth/spreadsheets');
    expect(fs.existsSync(path.join(ROOT, 'dist/addon/sidebar.html'))).toBe(true);
  });

  it('onOpen adds the four menu items', () => {
    const h = loadAddon(http);
    h.fns.onOpen({});
    expect(h.ui.menus[0].items.filter((i: any) => i !== '---').map((i: any) => i.label)).toEqual(['Verify selected rows', 'Extract from Drive PDF', 'Import dataset', 'Settings']);
  });
});

describe('settings', () => {
  it('keeps the key in user properties, never returns it, and tests the connection', () => {
    const h = loadAddon(http);
    const v = h.fns.saveSettings({ url: conn.url + '/', key: conn.keys.live });
    expect(v).toMatchObject({ url: conn.url, keySet: true, keyHint: `…${conn.keys.live!.slice(-4)}`, grant: null });
    expect(JSON.stringify(v)).not.toContain(conn.keys.live);
    expect(h.docProps.getProperties()).toEqual({});
    const t = h.fns.testConnection();
    expect(t.ok).toBe(true);
    expect(t.message).toMatch(/^Connected as "live" \(live, plan \w+, scopes verify, extract, datasets\): \d+ of \d+ credits left/);
  });

  it('test connection names 401 and an unreachable connector', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: 'pk_live_notarealkey' });
    expect(h.fns.testConnection().message).toMatch(/^API key refused \(401\)/);
    h.fns.saveSettings({ url: 'http://127.0.0.1:1', key: 'pk_live_x' });
    expect(h.fns.testConnection().message).toMatch(/^Connector unreachable at http:\/\/127\.0\.0\.1:1/);
  });

  it('granting needs confirmation and puts the key in document properties', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.live });
    expect(() => h.fns.grantKeyToSpreadsheet(false)).toThrow(/every such formula spends this key's credits/);
    const v = h.fns.grantKeyToSpreadsheet(true);
    expect(v.grant).toMatchObject({ url: conn.url, by: 'alice@example.com' });
    expect(h.docProps.getProperty('covercheck.grant.key')).toBe(conn.keys.live);
    h.fns.revokeGrant();
    expect(h.docProps.getProperties()).toEqual({});
  });

  it('refuses a non-https URL that is not loopback', () => {
    const h = loadAddon(http);
    expect(() => h.fns.saveSettings({ url: 'http://covercheck.example.com', key: 'pk_live_x' })).toThrow(/must use https/);
  });
});

describe('=VERIFYPOLICY', () => {
  it('250 rows in one range call: equal to direct API calls, <= 6 UrlFetch requests, and a recalculation makes none', async () => {
    const rows = rows250();
    const h = granted(conn.keys.live!);
    const before = (await api('GET', '/api/v1/account', conn.keys.live!)).body.credits.balance as number;
    const col = (i: number) => rows.map((r) => [r[i]]);
    const out = h.fns.VERIFYPOLICY(col(0), col(1), col(2)) as string[][];
    expect(out).toHaveLength(250);
    expect(h.stats.requests).toBeLessThanOrEqual(6);
    expect(h.stats.log.filter((l) => l.method === 'POST')).toHaveLength(3);

    const direct: string[] = [];
    for (const r of rows) direct.push((await api('POST', '/api/v1/verify', conn.keys.sandbox!, { policy_number: r[0], country: r[1], insurance_type: r[2] })).body.status);
    expect(out.map((r) => r[0])).toEqual(direct);
    expect(direct.slice(0, 3)).toEqual(['verified', 'unverified', 'unverified']);
    expect(new Set(direct)).toEqual(new Set(['verified', 'unverified', 'inconclusive']));

    const charged = direct.filter((s) => s !== 'inconclusive').length;
    const after = (await api('GET', '/api/v1/account', conn.keys.live!)).body.credits.balance as number;
    expect(before - after).toBe(charged);

    const calls = h.stats.requests;
    const again = h.fns.VERIFYPOLICY(col(0), col(1), col(2));
    expect(again).toEqual(out);
    expect(h.stats.requests).toBe(calls);
    expect((await api('GET', '/api/v1/account', conn.keys.live!)).body.credits.balance).toBe(after);

    // "full": status, confidence, insurer, flags, from the same cache.
    const full = h.fns.VERIFYPOLICY(col(0).slice(0, 1), col(1).slice(0, 1), col(2).slice(0, 1), '', 'full');
    expect(full).toEqual([['verified', 0.85, expect.stringMatching(/\w/), 'demo_data']]);
    expect(h.stats.requests).toBe(calls);
  });

  it('a single cell is one sync call, cached; inconclusive results expire after 10 minutes, others after 6 hours', () => {
    const h = granted(conn.keys.sandbox!);
    expect(h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global')).toBe('verified');
    expect(h.stats.log.map((l) => `${l.method} ${new URL(l.url).pathname}`)).toEqual(['POST /api/v1/verify']);
    expect(h.fns.VERIFYPOLICY('MUT-000123', 'FR', 'health')).toBe('inconclusive');
    expect(h.stats.requests).toBe(2);
    h.advance(11 * 60 * 1000);
    h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global');
    expect(h.stats.requests).toBe(2);
    h.fns.VERIFYPOLICY('MUT-000123', 'FR', 'health');
    expect(h.stats.requests).toBe(3);
    h.advance(6 * 60 * 60 * 1000);
    h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global');
    expect(h.stats.requests).toBe(4);
  });

  it('readable cell errors: unsupported country, bad output, no key granted, out of credits, 401, unreachable', () => {
    const h = granted(conn.keys.sandbox!);
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'ES', 'motor')).toThrow(/^Unsupported country: ES/);
    expect(h.stats.requests).toBe(0);
    expect(h.fns.VERIFYPOLICY([['UKM-1000-0001'], ['X-1']], [['UK'], ['ES']], 'motor')).toEqual([['verified'], [expect.stringMatching(/^Error: Unsupported country: ES/)]]);
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor', '', 'everything')).toThrow(/output must be "status" or "full"/);
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'boat')).toThrow(/^Unsupported insurance type: boat/);
    expect(h.fns.VERIFYPOLICY([['UKM-1000-0001'], ['12']], 'UK', 'motor')[1][0]).toMatch(/^Error: .*format/i);

    const none = loadAddon(http);
    none.fns.saveSettings({ url: conn.url, key: conn.keys.live });
    expect(() => none.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^No API key granted to this spreadsheet/);

    const broke = granted(conn.keys.broke!);
    expect(() => broke.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^Out of credits: balance 0$/);
    expect(() => broke.fns.VERIFYPOLICY([['UKM-1000-0001'], ['UKM-1000-0002']], 'UK', 'motor')).toThrow(/^Out of credits: balance 0$/);

    const bad = granted('pk_live_notarealkey');
    expect(() => bad.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^API key refused \(401\)/);

    const off = granted(conn.keys.live!, 'http://127.0.0.1:1');
    expect(() => off.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^Connector unreachable/);
  });
});

describe('sidebar: verify selected rows', () => {
  function sheetWith(h: Harness, headers: string[], rows: string[][]) {
    const s = h.ss.getActiveSheet();
    s.getRange(1, 1, 1, headers.length).setValues([headers]);
    s.getRange(2, 1, rows.length, headers.length).setValues(rows);
    return s;
  }

  it('detects German headers, runs 150 rows in 2 batches with progress, writes results, and re-runs without new columns', async () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    const data = rows250().slice(0, 149).map((r) => [r[0]!, r[1]!, r[2]!, '']);
    data.splice(5, 0, ['UKM-1000-0001', 'ES', 'motor', '']);
    const s = sheetWith(h, ['Versicherungsschein-Nr.', 'Land', 'Versicherungsart', 'Versicherer'], data);
    const m = h.fns.detectRowMapping();
    expect(m.mapping).toEqual({ policy_number: 1, country: 2, insurance_type: 3, provider: 4 });
    expect(m).toMatchObject({ firstRow: 2, lastRow: 151, missing: [] });

    let p = h.fns.startRowsRun(m.mapping);
    expect(p).toMatchObject({ total: 150, done: 1, errors: 1, finished: false, resultColumns: [5, 6, 7, 8, 9] });
    const seen = [p.done];
    for (let i = 0; i < 30 && !p.finished; i++) {
      p = h.fns.pollRowsRun(p.runId);
      seen.push(p.done);
    }
    expect(p).toMatchObject({ total: 150, done: 150, errors: 1, finished: true });
    expect(seen[0]).toBeLessThan(150);
    expect(s.row(1).slice(4)).toEqual(['Covercheck status', 'Covercheck confidence', 'Covercheck insurer', 'Covercheck flags', 'Covercheck checked at']);
    expect(s.get(7, 5)).toMatch(/^Error: Unsupported country: ES/);
    expect(s.get(2, 5)).toBe('verified');
    expect(s.get(2, 6)).toBe(0.85);
    expect(s.get(2, 9)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    for (const r of [3, 10, 60, 151]) {
      const d = await api('POST', '/api/v1/verify', conn.keys.sandbox!, { policy_number: s.get(r, 1), country: s.get(r, 2), insurance_type: s.get(r, 3) });
      expect(s.get(r, 5)).toBe(d.body.status);
    }
    expect(h.stats.log.filter((l) => l.method === 'POST')).toHaveLength(2);

    // Re-run: the same five columns are found and overwritten.
    s.set(2, 5, 'stale');
    p = h.fns.startRowsRun(m.mapping);
    while (!p.finished) p = h.fns.pollRowsRun(p.runId);
    expect(s.getLastColumn()).toBe(9);
    expect(s.get(2, 5)).toBe('verified');
  });

  it('says which columns are missing, and maps French and English headers', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    sheetWith(h, ['Numéro de police', 'Assureur', 'Notes'], [['UKM-1000-0001', 'Aviva', '']]);
    const m = h.fns.detectRowMapping();
    expect(m.mapping).toEqual({ policy_number: 1, country: null, insurance_type: null, provider: 2 });
    expect(m.missing).toEqual(['country', 'insurance type']);
    expect(() => h.fns.startRowsRun(m.mapping)).toThrow(/no column for country, insurance type/);
    const en = loadAddon(http);
    sheetWith(en, ['Policy No', 'Insurance type', 'Country', 'Insurer'], [['a', 'b', 'c', 'd']]);
    expect(en.fns.detectRowMapping().mapping).toEqual({ policy_number: 1, insurance_type: 2, country: 3, provider: 4 });
  });

  it('no key set and out of credits are reported', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url });
    sheetWith(h, ['Policy number', 'Country', 'Type'], [['UKM-1000-0001', 'UK', 'motor']]);
    const m = h.fns.detectRowMapping().mapping;
    expect(() => h.fns.startRowsRun(m)).toThrow(/^No API key set: open Covercheck > Settings/);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.broke });
    const p = h.fns.startRowsRun(m);
    expect(p).toMatchObject({ total: 1, done: 1, errors: 1, finished: true, message: 'Out of credits: balance 0' });
    expect(h.ss.getActiveSheet().get(2, 4)).toBe('Error: Out of credits: balance 0');
  });
});

describe('sidebar: datasets', () => {
  it('search, preview, import with chart and a daily schedule; the trigger refreshes; the schedule is removable', async () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.verifyOnly });
    const found = h.fns.searchDatasets('insurance');
    expect(found.map((d: any) => d.slug)).toContain('uk-rpi-vehicles-tax-insurance-yoy');
    const prev = h.fns.previewDataset('uk-rpi-vehicles-tax-insurance-yoy');
    expect(prev.points).toHaveLength(10);

    const r = h.fns.importDataset({ slug: 'uk-rpi-vehicles-tax-insurance-yoy', sheetName: 'Motor RPI', limit: 24, chart: true, schedule: 'daily' });
    expect(r).toMatchObject({ sheetName: 'Motor RPI', rows: 24, chart: true });
    const sheet = h.ss.getSheetByName('Motor RPI')!;
    const series = (await fetch(`${conn.url}/api/v1/datasets/uk-rpi-vehicles-tax-insurance-yoy/series?limit=24`).then((x) => x.json())) as { points: { date: string; value: number }[] };
    expect(sheet.row(1)).toEqual(['Date', expect.stringMatching(/^UK RPI: vehicles tax and insurance.*\(% change over 12 months\)$/)]);
    expect(sheet.getRange(2, 1, 24, 2).getValues()).toEqual(series.points.map((p) => [p.date, p.value]));
    expect(sheet.getLastRow()).toBe(25);
    expect(sheet.charts).toHaveLength(1);
    expect(sheet.charts[0]).toMatchObject({ type: 'LINE', ranges: ['A1:B25'] });
    expect(h.triggers).toHaveLength(1);
    expect(h.triggers[0]).toMatchObject({ fn: 'refreshScheduledImports', every: { days: 1 } });
    expect(h.fns.listSchedules()).toMatchObject([{ slug: 'uk-rpi-vehicles-tax-insurance-yoy', sheetName: 'Motor RPI', schedule: 'daily', lastRefresh: null }]);

    sheet.clearContents();
    sheet.set(30, 1, 'junk');
    h.fns.refreshScheduledImports({ triggerUid: h.triggers[0].id });
    expect(sheet.getLastRow()).toBe(25);
    expect(sheet.get(2, 1)).toBe(series.points[0]!.date);
    expect(h.fns.listSchedules()[0].lastRefresh).toMatch(/^\d{4}-/);

    // Importing again with a weekly schedule replaces the daily one; the chart is not duplicated.
    h.fns.importDataset({ slug: 'uk-rpi-vehicles-tax-insurance-yoy', sheetName: 'Motor RPI', limit: 24, chart: true, schedule: 'weekly' });
    expect(sheet.charts).toHaveLength(1);
    expect(h.triggers.map((t) => t.every)).toEqual([{ weeks: 1 }]);
    expect(h.fns.removeSchedule(h.triggers[0].id)).toEqual([]);
    expect(h.triggers).toHaveLength(0);
  });

  it('an unknown slug is a readable error', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url });
    expect(() => h.fns.previewDataset('no-such-dataset')).toThrow(/no-such-dataset/);
  });
});
