/**
 * The built add-on on the Apps Script stand-ins (test/addon/standin, each rule shown to hold in
 * standin-rules.test.ts), against the real connector in a child process: install and open,
 * settings and the key grant, =VERIFYPOLICY (10,000 rows and recalculation, the 30 s limit), the
 * rows sidebar, dataset imports with two users' schedules, and removal.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, SLOW_REGISTRY, type AddonRig } from '../helpers/addon-rig.js';
import {
  CONNECTOR,
  ENTRY_POINTS,
  loadAddon,
  ROOT,
  type SyncHttp,
  type ChildConnector,
  type Harness,
  type HarnessOptions,
} from './harness.js';

let rig: AddonRig<'conn' | 'slow'>;
let conn: ChildConnector;
let slow: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    conn: {
      keys: {
        live: { mode: 'live', credits: 5000 },
        big: { mode: 'live', credits: 30_000 },
        sandbox: { mode: 'test' },
        broke: { mode: 'live', credits: 0 },
        verifyOnly: { mode: 'live', credits: 100, scopes: ['verify'] },
      },
    },
    slow: SLOW_REGISTRY,
  });
  ({ http, conn, slow } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

const addon = (opts: HarnessOptions = {}) => loadAddon(http, { connector: conn.url, ...opts });

async function api(method: string, p: string, key: string, body?: unknown, c = conn): Promise<{ status: number; body: any }> {
  const send = () =>
    fetch(c.url + p, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  // A pooled socket the server closed as idle while the vm held this thread fails once: send again (these calls are reads or sandbox verifications).
  const res = await send().catch((e: { cause?: { code?: string } }) => (e.cause?.code === 'UND_ERR_SOCKET' ? send() : Promise.reject(e)));
  return { status: res.status, body: await res.json() };
}
const balance = async (key: string, c = conn) => (await api('GET', '/api/v1/account', key, undefined, c)).body.credits.balance as number;

function granted(key: string, opts: HarnessOptions = {}): Harness {
  const h = addon(opts);
  h.fns.saveSettings({ url: CONNECTOR, key });
  h.fns.grantKeyToSpreadsheet(true);
  return h;
}

/** 250 distinct rows: the demo registry's known policies, unknown numbers and an uncovered pair. */
function rows250(): string[][] {
  const known = [
    ['UKM-1000-0001', 'UK', 'motor'],
    ['UKM-1000-0002', 'UK', 'motor'],
    ['UKM-1000-0003', 'UK', 'motor'],
    ['UKM-1000-0005', 'UK', 'motor'],
    ['UKM-1000-0006', 'UK', 'motor'],
    ['UKT-2000-0001', 'UK', 'travel'],
    ['UKH-3000-0001', 'UK', 'health'],
    ['KFZ-5096-000001', 'DE', 'motor'],
    ['KFZ-5515-000003', 'DE', 'motor'],
    ['REI-5441-000001', 'DE', 'travel'],
    ['KV-5549-000002', 'DE', 'health'],
    ['AUTO-2109-000001', 'FR', 'motor'],
  ];
  const out: string[][] = known.map((k) => [...k]);
  for (let i = 0; out.length < 250; i++) {
    if (i % 5 === 4) out.push([`MUT-${String(100000 + i)}`, 'FR', 'health']);
    else out.push([`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']);
  }
  return out;
}
const col = (rows: string[][], i: number) => rows.map((r) => [r[i]]);
const posts = (h: Harness) => h.stats.log.filter((l) => l.method === 'POST').length;

describe('build, install and open', () => {
  it("Code.js has top-level stubs and the custom function JSDoc; the manifest is an Editor add-on's with narrow scopes", () => {
    const code = fs.readFileSync(path.join(ROOT, 'dist/addon/Code.js'), 'utf8');
    expect(code).toMatch(/@customfunction\s*\n\s*\*\/\nfunction VERIFYPOLICY\(policy_number, country, insurance_type, provider, output\)/);
    // One top-level stub per entry point, and the harness's list is the bundle's.
    const stubs = [...code.matchAll(/^function (\w+)\(/gm)].map((m) => m[1]!);
    expect([...stubs].sort()).toEqual([...ENTRY_POINTS].sort());
    expect(Buffer.byteLength(code)).toBeLessThan(300 * 1024);
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'dist/addon/appsscript.json'), 'utf8'));
    expect(manifest.addOns).toBeUndefined();
    expect(manifest.oauthScopes.map((s: string) => s.replace('https://www.googleapis.com/auth/', '')).sort()).toEqual([
      'drive.file',
      'script.container.ui',
      'script.external_request',
      'script.scriptapp',
      'spreadsheets.currentonly',
    ]);
    expect(fs.readFileSync(path.join(ROOT, 'dist/addon/sidebar.html'), 'utf8')).toContain('.sidebar.branding-below');
  });

  it('onInstall (FULL) and onOpen in NONE and LIMITED build the six menu items', () => {
    const h = addon();
    h.install();
    h.open('NONE');
    h.open('LIMITED');
    expect(h.ui.menus.map((m) => m.items.filter((i) => i !== '---').map((i) => (i as { label: string }).label))).toEqual(
      Array(3).fill([
        'Verify selected rows',
        'Watch selected rows',
        'Extract from Drive PDF',
        'Import dataset',
        'Update pending results',
        'Settings',
      ]),
    );
  });
});

describe('settings and the key grant', () => {
  it('pre-fills the allowlisted connector, keeps the key in user properties, never returns it, and tests the connection', () => {
    const h = addon();
    expect(h.fns.getSettings()).toMatchObject({ url: CONNECTOR, allowedUrls: [CONNECTOR], keySet: false });
    const v = h.fns.saveSettings({ url: CONNECTOR + '/', key: conn.keys.live });
    expect(v).toMatchObject({ url: CONNECTOR, keySet: true, keyHint: `…${conn.keys.live!.slice(-4)}`, grant: null });
    expect(JSON.stringify(v)).not.toContain(conn.keys.live);
    expect(h.docProps.data).toEqual({});
    expect(h.fns.testConnection().message).toMatch(
      /^Connected as "live" \(live, plan \w+, scopes verify, extract, datasets\): \d+ of \d+ credits left/,
    );
  });

  it('refuses a URL the manifest does not allowlist, and http://', () => {
    const h = addon();
    expect(() => h.fns.saveSettings({ url: 'https://evil.example.net', key: 'pk_live_x' })).toThrow(
      /may only call https:\/\/covercheck\.example\.com \(the urlFetchWhitelist of its manifest\)/,
    );
    expect(() => h.fns.saveSettings({ url: 'https://covercheck.example.com.evil.net', key: 'pk_live_x' })).toThrow(/urlFetchWhitelist/);
    expect(() => h.fns.saveSettings({ url: conn.url, key: 'pk_live_x' })).toThrow(/must use https:\/\//);
    expect(h.fns.saveSettings({ url: `${CONNECTOR}/tenant-a`, key: 'pk_live_x' }).url).toBe(`${CONNECTOR}/tenant-a`);
  });

  it('test connection names 401 and an unreachable connector', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: 'pk_live_notarealkey' });
    expect(h.fns.testConnection().message).toMatch(/^API key refused \(401\)/);
    h.world.offline = true;
    expect(h.fns.testConnection().message).toMatch(/^Connector unreachable at https:\/\/covercheck\.example\.com/);
  });

  it("granting needs confirmation and an accepted key; it records the key's account, not who granted", () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    expect(() => h.fns.grantKeyToSpreadsheet(false)).toThrow(/every such formula spends this key's credits/);
    const v = h.fns.grantKeyToSpreadsheet(true);
    expect(v.grant).toMatchObject({ url: CONNECTOR, account: 'live', at: expect.stringMatching(/^\d{4}-/) });
    expect(JSON.stringify(h.docProps.data)).not.toContain('@');
    expect(h.docProps.data['covercheck.grant.key']).toBe(conn.keys.live);
    h.fns.revokeGrant();
    expect(h.docProps.data).toEqual({});
    h.fns.saveSettings({ url: CONNECTOR, key: 'pk_live_notarealkey' });
    expect(() => h.fns.grantKeyToSpreadsheet(true)).toThrow(/^API key refused \(401\)/);
  });
});

describe('=VERIFYPOLICY', () => {
  it('250 rows in one range call: equal to direct API calls, <= 6 UrlFetch requests; a recalculation, by any editor, makes none', async () => {
    const rows = rows250();
    const h = granted(conn.keys.live!);
    const before = await balance(conn.keys.live!);
    const n0 = h.stats.requests;
    const out = h.fns.VERIFYPOLICY(col(rows, 0), col(rows, 1), col(rows, 2)) as string[][];
    expect(out).toHaveLength(250);
    expect(h.stats.requests - n0).toBeLessThanOrEqual(6);
    expect(posts(h)).toBe(3);

    expect(before - (await balance(conn.keys.live!))).toBe(out.filter((r) => r[0] !== 'inconclusive').length);
    // The same key's direct answers (live keys see the operator's real rows, not the demo ones).
    const direct: string[] = [];
    for (const r of rows)
      direct.push(
        (await api('POST', '/api/v1/verify', conn.keys.live!, { policy_number: r[0], country: r[1], insurance_type: r[2] })).body.status,
      );
    expect(out.map((r) => r[0])).toEqual(direct);
    expect(direct.slice(0, 3)).toEqual(['verified', 'unverified', 'unverified']);
    expect(new Set(direct)).toEqual(new Set(['verified', 'unverified', 'inconclusive']));
    const after = await balance(conn.keys.live!);

    const bob = h.as('bob@example.com');
    expect(bob.fns.VERIFYPOLICY(col(rows, 0), col(rows, 1), col(rows, 2))).toEqual(out);
    expect(bob.stats.requests).toBe(0);
    expect(await balance(conn.keys.live!)).toBe(after);

    const full = h.fns.VERIFYPOLICY(col(rows, 0).slice(0, 1), col(rows, 1).slice(0, 1), col(rows, 2).slice(0, 1), '', 'full');
    expect(full).toEqual([['verified', 0.85, 'U K Insurance Limited', 'sanctions_not_checked']]);
    expect(h.stats.requests - n0).toBeLessThanOrEqual(6);
  });

  it('10,000 rows: results packed into at most 64 cache items, so the 1,000-item cap evicts none; recalculation makes no call and no charge', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) =>
      i % 5 === 4 ? [`MUT-${100000 + i}`, 'FR', 'health'] : [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor'],
    );
    const h = granted(conn.keys.big!);
    const before = await balance(conn.keys.big!);
    const out = h.fns.VERIFYPOLICY(col(rows, 0), col(rows, 1), col(rows, 2)) as string[][];
    expect(out.every((r) => /^(verified|unverified|inconclusive)$/.test(String(r[0])))).toBe(true);
    expect(posts(h)).toBe(100);
    expect(h.docCache.size()).toBeLessThanOrEqual(64);
    expect(h.docCache.stats.evicted).toBe(0);
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('cc.p.'))).toEqual([]);
    const charged = before - (await balance(conn.keys.big!));
    expect(charged).toBe(out.filter((r) => r[0] !== 'inconclusive').length);
    const calls = h.stats.requests;
    expect(h.fns.VERIFYPOLICY(col(rows, 0), col(rows, 1), col(rows, 2))).toEqual(out);
    expect(h.stats.requests).toBe(calls);
    expect(before - (await balance(conn.keys.big!))).toBe(charged);
  }, 120_000);

  it('a single cell is one POST /verify, cached; inconclusive results expire after 10 minutes, others after 6 hours', () => {
    const h = granted(conn.keys.sandbox!);
    const calls0 = h.stats.requests;
    expect(h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global')).toBe('verified');
    expect(h.stats.log.slice(calls0).map((l) => `${l.method} ${new URL(l.url).pathname}`)).toEqual(['POST /api/v1/verify']);
    expect(h.fns.VERIFYPOLICY('MUT-000123', 'FR', 'health')).toBe('inconclusive');
    const n = h.stats.requests;
    h.advance(11 * 60 * 1000);
    h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global');
    expect(h.stats.requests).toBe(n);
    h.fns.VERIFYPOLICY('MUT-000123', 'FR', 'health');
    expect(h.stats.requests).toBe(n + 1);
    h.advance(6 * 60 * 60 * 1000);
    h.fns.VERIFYPOLICY('KFZ-5096-000001', 'de', 'Motor', 'HDI Global');
    expect(h.stats.requests).toBe(n + 2);
  });

  it('a single cell whose call outlasts the 30 s limit: the next run gets the same answer from the connector by its Idempotency-Key, charged once', async () => {
    const h = granted(conn.keys.live!);
    const before = await balance(conn.keys.live!);
    // A round trip of 31 s (simulated): Sheets ends the execution before the answer is cached.
    h.world.opts.rttMs = 31_000;
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/Exceeded maximum execution time/);
    const charged = before - (await balance(conn.keys.live!));
    expect(charged).toBe(1);
    h.world.opts.rttMs = 0;
    expect(h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toMatch(/^(verified|unverified)$/);
    expect(h.stats.log.map((l) => `${l.method} ${new URL(l.url).pathname} ${l.status}`).slice(-2)).toEqual([
      'POST /api/v1/verify 200',
      'POST /api/v1/verify 200',
    ]);
    expect(before - (await balance(conn.keys.live!))).toBe(1);
  });

  it('a batch that outlasts the 30 s limit: a readable cell within the limit, then collected by a later run without a second charge, even after the cache lost everything', async () => {
    // Round trips of 11 s (simulated): after the submit there is no time for a long poll.
    const h = loadAddon(http, { connector: slow.url, rttMs: 11_000 });
    h.fns.saveSettings({ url: CONNECTOR, key: slow.keys.live });
    h.fns.grantKeyToSpreadsheet(true);
    const before = await balance(slow.keys.live!, slow);
    expect(h.fns.VERIFYPOLICY([['UKM-9999-0002'], ['UKM-9999-0003']], 'UK', 'motor')).toEqual([
      ['Still verifying (already submitted, no second charge): in a minute, choose Extensions > Covercheck > Update pending results.'],
      ['Still verifying (already submitted, no second charge): in a minute, choose Extensions > Covercheck > Update pending results.'],
    ]);
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('cc.p.'))).toHaveLength(1);
    // The cache may drop anything at any time (Cache reference); the pending records are not in it.
    h.docCache.entries.clear();
    // A single cell of a policy already in a recorded batch waits for that batch: it sends nothing.
    let single: unknown;
    for (let i = 0; i < 40; i++) {
      single = h.fns.VERIFYPOLICY('UKM-9999-0002', 'UK', 'motor');
      if (
        single !==
        'Still verifying (already submitted, no second charge): in a minute, choose Extensions > Covercheck > Update pending results.'
      )
        break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(single).toBe('inconclusive');
    expect(h.fns.VERIFYPOLICY([['UKM-9999-0002'], ['UKM-9999-0003']], 'UK', 'motor')).toEqual([['inconclusive'], ['inconclusive']]);
    expect(posts(h)).toBe(1);
    expect(Object.keys(h.docProps.data).filter((k) => k.startsWith('cc.p.'))).toEqual([]);
    expect(await balance(slow.keys.live!, slow)).toBe(before);
    // ~5 s alone; its connector waits out real registry timeouts, which a loaded 2-core machine stretches.
  }, 150_000);

  it('readable cell errors: unsupported country, bad output, no key granted, out of credits, unreachable', () => {
    const h = granted(conn.keys.sandbox!);
    const n = h.stats.requests;
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'ES', 'motor')).toThrow(/^Unsupported country: ES/);
    expect(h.stats.requests).toBe(n);
    expect(h.fns.VERIFYPOLICY([['UKM-1000-0001'], ['X-1']], [['UK'], ['ES']], 'motor')).toEqual([
      ['verified'],
      [expect.stringMatching(/^Error: Unsupported country: ES/)],
    ]);
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor', '', 'everything')).toThrow(/output must be "status" or "full"/);
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'boat')).toThrow(/^Unsupported insurance type: boat/);
    expect(h.fns.VERIFYPOLICY([['UKM-1000-0001'], ['12']], 'UK', 'motor')[1][0]).toMatch(/^Error: .*format/i);

    const none = addon();
    none.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    expect(() => none.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^No API key granted to this spreadsheet/);

    const broke = granted(conn.keys.broke!);
    expect(() => broke.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^Out of credits: balance 0$/);
    expect(() => broke.fns.VERIFYPOLICY([['UKM-1000-0001'], ['UKM-1000-0002']], 'UK', 'motor')).toThrow(/^Out of credits: balance 0$/);

    const off = granted(conn.keys.live!);
    off.world.offline = true;
    expect(() => off.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toThrow(/^Connector unreachable/);
  });
});

describe('sidebar: verify selected rows', () => {
  function sheetWith(h: Harness, headers: string[], rows: string[][]) {
    const s = h.ss.active;
    s.getRange(1, 1, 1, headers.length).setValues([headers]);
    s.getRange(2, 1, rows.length, headers.length).setValues(rows);
    return s;
  }

  it('detects German headers, runs 150 rows in 2 batches with progress, writes results, and re-runs without new columns', async () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const data = rows250()
      .slice(0, 149)
      .map((r) => [r[0]!, r[1]!, r[2]!, '']);
    data.splice(5, 0, ['UKM-1000-0001', 'ES', 'motor', '']);
    const s = sheetWith(h, ['Versicherungsschein-Nr.', 'Land', 'Versicherungsart', 'Versicherer'], data);
    const m = h.fns.detectRowMapping();
    expect(m.mapping).toEqual({ policy_number: 1, country: 2, insurance_type: 3, provider: 4 });
    expect(m).toMatchObject({ firstRow: 2, lastRow: 151, missing: [] });

    let p = h.fns.startRowsRun(m.mapping);
    expect(p).toMatchObject({ total: 150, done: 1, errors: 1, finished: false, resultColumns: [5, 6, 7, 8, 9, 10] });
    for (let i = 0; i < 30 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
    expect(p).toMatchObject({ total: 150, done: 150, errors: 1, finished: true });
    expect(s.row(1).slice(4)).toEqual([
      'Covercheck status',
      'Covercheck confidence',
      'Covercheck insurer',
      'Covercheck flags',
      'Covercheck checked at',
      'Covercheck input hash',
    ]);
    expect(s.get(7, 5)).toMatch(/^Error: Unsupported country: ES/);
    expect(s.get(2, 5)).toBe('verified');
    expect(s.get(2, 6)).toBe(0.85);
    expect(s.get(2, 9)).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    for (const r of [3, 10, 60, 151]) {
      const d = await api('POST', '/api/v1/verify', conn.keys.sandbox!, {
        policy_number: s.get(r, 1),
        country: s.get(r, 2),
        insurance_type: s.get(r, 3),
      });
      expect(s.get(r, 5)).toBe(d.body.status);
    }
    expect(posts(h)).toBe(2);

    s.set(2, 5, 'stale');
    p = h.fns.startRowsRun(m.mapping);
    while (!p.finished) p = h.fns.pollRowsRun(p.runId);
    expect(s.lastColumn()).toBe(10);
    expect(s.get(2, 5)).toBe('verified');
  });

  it('says which columns are missing, and maps French and English headers', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    sheetWith(h, ['Numéro de police', 'Assureur', 'Notes'], [['UKM-1000-0001', 'Aviva', '']]);
    const m = h.fns.detectRowMapping();
    expect(m.mapping).toEqual({ policy_number: 1, country: null, insurance_type: null, provider: 2 });
    expect(m.missing).toEqual(['country', 'insurance type']);
    expect(() => h.fns.startRowsRun(m.mapping)).toThrow(/no column for country, insurance type/);
    const en = addon();
    sheetWith(en, ['Policy No', 'Insurance type', 'Country', 'Insurer'], [['a', 'b', 'c', 'd']]);
    expect(en.fns.detectRowMapping().mapping).toEqual({ policy_number: 1, insurance_type: 2, country: 3, provider: 4 });
  });

  it('no key set and out of credits are reported', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR });
    sheetWith(h, ['Policy number', 'Country', 'Type'], [['UKM-1000-0001', 'UK', 'motor']]);
    const m = h.fns.detectRowMapping().mapping;
    expect(() => h.fns.startRowsRun(m)).toThrow(/^No API key set: open Covercheck > Settings/);
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.broke });
    expect(h.fns.startRowsRun(m)).toMatchObject({ total: 1, done: 1, errors: 1, finished: true, message: 'Out of credits: balance 0' });
    expect(h.ss.active.get(2, 4)).toBe('Error: Out of credits: balance 0');
  });
});

describe("datasets: imports, two users' schedules, removal", () => {
  const SLUG = 'uk-rpi-vehicles-tax-insurance-yoy';
  it('search, preview, import with a chart and a daily schedule; a second schedule reuses the one hourly trigger', async () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.verifyOnly });
    expect(h.fns.searchDatasets('insurance').map((d: any) => d.slug)).toContain(SLUG);
    expect(h.fns.previewDataset(SLUG).points).toHaveLength(10);

    const r = h.fns.importDataset({ slug: SLUG, sheetName: 'Motor RPI', limit: 24, chart: true, schedule: 'daily' });
    expect(r).toMatchObject({
      sheetName: 'Motor RPI',
      rows: 24,
      chart: true,
      schedule: { slug: SLUG, sheetName: 'Motor RPI', schedule: 'daily', mine: true },
    });
    const sheet = h.ss.sheets.find((s) => s.name === 'Motor RPI')!;
    const series = (await fetch(`${conn.url}/api/v1/datasets/${SLUG}/series?limit=24`).then((x) => x.json())) as {
      points: { date: string; value: number }[];
    };
    expect(sheet.row(1)).toEqual(['Date', expect.stringMatching(/^UK RPI: vehicles tax and insurance.*\(% change over 12 months\)$/)]);
    // As shown: Sheets typed the dates and values (getValues has Dates and numbers).
    expect(sheet.getRange(2, 1, 24, 2).getDisplayValues()).toEqual(series.points.map((p) => [p.date, String(p.value)]));
    expect(sheet.charts).toHaveLength(1);
    expect(sheet.charts[0]).toMatchObject({ type: 'LINE', ranges: ['A1:B25'] });
    expect(h.triggers).toMatchObject([{ handler: 'refreshScheduledImports', everyMs: 3600_000 }]);

    // The old add-on created a second trigger here, which Apps Script refuses after the import was written.
    h.fns.importDataset({ slug: 'uk-gdp-abmi', sheetName: 'GDP', limit: 8, schedule: 'weekly' });
    expect(h.triggers).toHaveLength(1);
    expect(h.fns.listSchedules().schedules.map((s: any) => [s.sheetName, s.schedule, s.mine])).toEqual([
      ['Motor RPI', 'daily', true],
      ['GDP', 'weekly', true],
    ]);
    // Importing again replaces the sheet's schedule; the chart is not duplicated.
    h.fns.importDataset({ slug: SLUG, sheetName: 'Motor RPI', limit: 24, chart: true, schedule: 'hourly' });
    expect(sheet.charts).toHaveLength(1);
    expect(h.fns.listSchedules().schedules.map((s: any) => [s.sheetName, s.schedule])).toEqual([
      ['GDP', 'weekly'],
      ['Motor RPI', 'hourly'],
    ]);
  });

  it("two users: each has one trigger that refreshes only their due schedules; removing the other's schedule stops their trigger at its next run; removal", () => {
    const alice = addon();
    alice.fns.saveSettings({ url: CONNECTOR, key: conn.keys.verifyOnly });
    alice.fns.importDataset({ slug: SLUG, sheetName: 'A daily', limit: 12, schedule: 'daily' });
    const bob = alice.as('bob@example.com');
    bob.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    bob.fns.importDataset({ slug: 'uk-gdp-abmi', sheetName: 'B hourly', limit: 6, schedule: 'hourly' });
    expect(alice.world.triggers.map((t) => t.user)).toEqual(['alice@example.com', 'bob@example.com']);
    expect(bob.fns.listSchedules().schedules.map((s: any) => [s.sheetName, s.mine])).toEqual([
      ['A daily', false],
      ['B hourly', true],
    ]);

    const sheet = (n: string) => alice.ss.sheets.find((s) => s.name === n)!;
    sheet('A daily').set(40, 1, 'junk');
    sheet('B hourly').set(40, 1, 'junk');
    alice.advance(61 * 60_000);
    expect(sheet('B hourly').lastRow()).toBe(7);
    expect(sheet('A daily').lastRow()).toBe(40);
    alice.advance(24 * 3600_000);
    expect(sheet('A daily').lastRow()).toBe(13);
    expect(alice.world.triggers.every((t) => t.failures.length === 0)).toBe(true);

    // Bob removes Alice's schedule: he can't see or delete her trigger; it removes itself on its next run.
    const aliceId = bob.fns.listSchedules().schedules.find((s: any) => !s.mine).id;
    expect(bob.fns.removeSchedule(aliceId).schedules.map((s: any) => s.sheetName)).toEqual(['B hourly']);
    expect(alice.triggers).toHaveLength(1);
    alice.advance(3600_000);
    expect(alice.triggers).toHaveLength(0);
    expect(bob.triggers).toHaveLength(1);

    // Removal: Bob's last schedule goes with his trigger; a removed add-on's triggers stop.
    bob.fns.removeSchedule(bob.fns.listSchedules().schedules[0].id);
    expect(alice.world.triggers).toHaveLength(0);
    bob.fns.importDataset({ slug: 'uk-gdp-abmi', sheetName: 'B hourly', limit: 6, schedule: 'hourly' });
    alice.world.user('bob@example.com').installed = false;
    sheet('B hourly').set(40, 1, 'junk');
    alice.advance(3 * 3600_000);
    expect(sheet('B hourly').lastRow()).toBe(40);
  });

  it('a time-driven run without the spreadsheet refreshes nothing, says why in the sidebar, and "Refresh now" still works', () => {
    const h = addon({ triggerDocumentContext: false });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.verifyOnly });
    h.fns.importDataset({ slug: SLUG, sheetName: 'Motor RPI', limit: 12, schedule: 'hourly' });
    const sheet = h.ss.sheets.find((s) => s.name === 'Motor RPI')!;
    sheet.set(40, 1, 'junk');
    h.advance(61 * 60_000);
    expect(h.triggers[0]).toMatchObject({ runs: 1, failures: [] });
    expect(sheet.lastRow()).toBe(40);
    const v = h.fns.listSchedules();
    expect(v.triggerError).toMatch(/^The hourly refresh ran without access to this spreadsheet/);
    h.fns.refreshScheduleNow(v.schedules[0].id);
    expect(sheet.lastRow()).toBe(13);
  });

  it('an unknown slug is a readable error', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR });
    expect(() => h.fns.previewDataset('no-such-dataset')).toThrow(/no-such-dataset/);
  });
});
