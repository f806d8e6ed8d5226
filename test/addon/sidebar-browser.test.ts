/**
 * The sidebar and settings HTML in headless Chromium with a google.script.run bridge
 * (exposeFunction) to the add-on running in the vm harness against real connectors:
 * - rows with "write results back when done" (the connector writes into the Sheets stand-in),
 *   the progress bar recorded by a MutationObserver, against a connector whose UK registry
 *   upstream never answers (so each unknown policy waits 300 ms and progress is visible);
 * - PDF extraction from a Drive file id; dataset search → preview → import with a chart, an
 *   Apps Script trigger schedule and a connector schedule, removed again; settings test connection;
 * - 429: a connector allowing 3 requests a minute; the add-on waits retry_after (the harness moves
 *   the connector's clock by the wait instead of sleeping a minute), retries and tells the user.
 * Screenshots go to test/artifacts/. Skipped when /usr/bin/chromium is absent (outside CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, DIST, loadAddon, ROOT, startConnectorChild, SyncHttp, type ChildConnector, type EntryPoint, type Harness } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const have = fs.existsSync(CHROMIUM);
const ARTIFACTS = path.join(ROOT, 'test/artifacts');
let conn: ChildConnector;
let limited: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (!have) return;
  buildAddon();
  http = new SyncHttp();
  [conn, limited] = await Promise.all([
    startConnectorChild({
      google: true,
      extraction: true,
      slowRegistry: true,
      env: { COVERCHECK_WORKERS: '1', COVERCHECK_BATCH_CONCURRENCY: '10', COVERCHECK_REGISTRY_TIMEOUT_MS: '300' },
      keys: { sandbox: { mode: 'test' }, live: { mode: 'live', credits: 500 } },
    }),
    startConnectorChild({ env: { COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '3', COVERCHECK_JOB_LEASE_MS: '600000' }, keys: { live: { mode: 'live', credits: 1000 } } }),
  ]);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([conn?.stop(), limited?.stop()]);
  await http?.close();
});

const BRIDGE = `
window.google = { script: { get run() {
  const handlers = { ok: () => {}, fail: () => {} };
  const chain = new Proxy({}, { get(_t, name) {
    if (name === 'withSuccessHandler') return (f) => ((handlers.ok = f), chain);
    if (name === 'withFailureHandler') return (f) => ((handlers.fail = f), chain);
    return (...args) => { window.__gasRun(String(name), JSON.stringify(args)).then((r) => {
      const v = JSON.parse(r); if (v.ok) handlers.ok(v.value); else handlers.fail(new Error(v.error)); }); };
  } });
  return chain;
} } };
window.confirm = () => true;
// Every width the progress bar is given, as the page renders it.
window.__widths = [];
document.addEventListener('DOMContentLoaded', () => {
  const bar = document.getElementById('rows-bar');
  if (bar) new MutationObserver(() => window.__widths.push(bar.style.width)).observe(bar, { attributes: true, attributeFilter: ['style'] });
});`;

async function open(h: Harness, file: 'sidebar' | 'settings', view = 'rows'): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 320, height: 720 } });
  await page.exposeFunction('__gasRun', (name: string, args: string) => {
    try {
      return JSON.stringify({ ok: true, value: h.fns[name as EntryPoint](...(JSON.parse(args) as unknown[])) ?? null });
    } catch (e) {
      return JSON.stringify({ ok: false, error: e instanceof Error ? e.message : String(e) });
    }
  });
  const html = fs.readFileSync(path.join(DIST, `${file}.html`), 'utf8').replace('<?= view ?>', view).replace('<script>', `<script>${BRIDGE}</script><script>`);
  await page.setContent(html);
  return page;
}

const control = async (c: ChildConnector, p: string, init?: RequestInit) => fetch(`${c.control}${p}`, init);
async function gridUntil(id: string, title: string, done: (g: string[][]) => boolean, ms = 20_000): Promise<string[][]> {
  const until = Date.now() + ms;
  for (;;) {
    const g = (await (await control(conn, `/grid?id=${id}&title=${encodeURIComponent(title)}`)).json()) as string[][];
    if (done(g)) return g;
    if (Date.now() > until) throw new Error(`grid ${id}/${title} not done: ${JSON.stringify(g).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Skipped only outside CI: .ci/run installs Chromium, so a missing browser there fails instead.
describe.skipIf(!have && !process.env.CI)('sidebar in Chromium', () => {
  it('rows with write-back: mapping shown, share address, progress bar passes intermediate values, the connector writes the results', async () => {
    const SID = 'browser-rows-sheet-001';
    const h = loadAddon(http, { spreadsheetId: SID });
    h.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    const s = h.ss.getActiveSheet();
    const policies = ['UKM-1000-0001', ...Array.from({ length: 149 }, (_, i) => `UKM-9999-${String(i).padStart(4, '0')}`)];
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Pays', 'Type']]);
    s.getRange(2, 1, 150, 3).setValues(policies.map((p) => [p, 'UK', 'motor']));
    const put = await control(conn, `/sheet?id=${SID}&title=Sheet1`, { method: 'PUT', body: JSON.stringify([['Policy number', 'Pays', 'Type'], ...policies.map((p) => [p, 'UK', 'motor'])]) });
    expect(put.status).toBe(204);

    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    expect(await page.inputValue('#map-country')).toBe('2');
    expect(await page.inputValue('#map-insurance_type')).toBe('3');
    expect(await page.inputValue('#map-provider')).toBe('');
    await expect.poll(() => page.isDisabled('#rows-writeback')).toBe(false);
    expect(await page.textContent('#rows-share')).toBe(`Share this spreadsheet with ${conn.google!.serviceEmail} as an editor so the connector can write into it.`);

    await page.check('#rows-writeback');
    await page.click('#rows-run');
    await expect.poll(() => page.textContent('#rows-msg'), { timeout: 40_000 }).toMatch(/^150 of 150 rows\nThe connector wrote 150 results into the sheet\.$/);
    expect(await page.isDisabled('#rows-run')).toBe(false);
    const widths = (await page.evaluate('window.__widths')) as string[];
    const pcts = widths.map((w) => Number.parseFloat(w));
    console.log('progress widths seen:', widths.join(' -> '));
    expect(pcts[0]).toBe(0);
    expect(pcts.at(-1)).toBe(100);
    expect(pcts.some((p) => p > 0 && p < 100)).toBe(true);
    for (let i = 1; i < pcts.length; i++) expect(pcts[i]!).toBeGreaterThanOrEqual(pcts[i - 1]!);

    const grid = await gridUntil(SID, 'Sheet1', (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
    expect(grid[1]!.slice(0, 4)).toEqual(['UKM-1000-0001', 'UK', 'motor', 'verified']);
    // Unknown UK numbers: the registry upstream timed out, so they are inconclusive (as a direct call says).
    const d = await fetch(`${conn.url}/api/v1/verify`, { method: 'POST', headers: { authorization: `Bearer ${conn.keys.sandbox}`, 'content-type': 'application/json' }, body: JSON.stringify({ policy_number: 'UKM-9999-0148', country: 'UK', insurance_type: 'motor' }) });
    expect(((await d.json()) as { status: string }).status).toBe('inconclusive');
    expect(grid[150]!.slice(0, 4)).toEqual(['UKM-9999-0148', 'UK', 'motor', 'inconclusive']);
    expect(s.get(2, 4)).toBe('');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-rows.png') });
    console.log('progress widths seen:', widths.join(' -> '));
    await page.close();
  }, 60_000);

  it('PDF from a Drive file id: uploaded, polled, a row appended', async () => {
    const h = loadAddon(http, { drive: { '1AbCdEfGhIjKlMnOp002': path.join(ROOT, 'test/fixtures/policies/002.pdf') } });
    h.fns.saveSettings({ url: conn.url, key: conn.keys.live });
    const s = h.ss.getActiveSheet();
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Start date']]);
    const page = await open(h, 'sidebar', 'pdf');
    expect(await page.isVisible('#rows')).toBe(false);
    await page.fill('#pdf-file', '1AbCdEfGhIjKlMnOp002');
    await page.click('#pdf-run');
    await expect.poll(() => page.textContent('#pdf-msg'), { timeout: 30_000 }).toMatch(/^Row 2: \d fields? found\.$/);
    expect(await page.getAttribute('#pdf-msg', 'class')).toBe('msg');
    expect(s.row(2).slice(0, 3)).toEqual(['AS 249 998162', 'HUK-COBURG-Allgemeine Versicherung AG', '2025-05-01']);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-pdf.png') });
    await page.fill('#pdf-file', 'not a link');
    await page.click('#pdf-run');
    await expect.poll(() => page.textContent('#pdf-msg')).toBe('Paste a Drive file URL (https://drive.google.com/file/d/…) or a file ID.');
    expect(await page.getAttribute('#pdf-msg', 'class')).toBe('msg err');
    await page.close();
  }, 60_000);

  it('datasets: search → preview → import with a chart and a connector schedule; a trigger schedule; both listed and removed', async () => {
    const SID = 'browser-datasets-sheet1';
    const h = loadAddon(http, { spreadsheetId: SID });
    h.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    await control(conn, `/sheet?id=${SID}&title=${encodeURIComponent('Motor RPI')}`, { method: 'PUT', body: '[]' });
    const page = await open(h, 'sidebar', 'datasets');
    await expect.poll(() => page.textContent('#ds-cschedules')).toBe('None');
    expect(await page.textContent('#ds-schedules')).toBe('None');
    expect(await page.textContent('#ds-share')).toContain(conn.google!.serviceEmail);
    await page.fill('#ds-q', 'insurance');
    await page.click('#ds-search');
    await expect.poll(() => page.textContent('#ds-msg')).toMatch(/^\d+ found$/);
    await page.selectOption('#ds-pick', 'uk-rpi-vehicles-tax-insurance-yoy');
    await expect.poll(() => page.textContent('#ds-preview')).toMatch(/^Office for National Statistics, % change over 12 months\n(\d{4}-\d\d-\d\d  -?[\d.]+\n){9}\d{4}-\d\d-\d\d  -?[\d.]+$/);
    await page.fill('#ds-sheet', 'Motor RPI');
    await page.fill('#ds-limit', '24');
    await page.selectOption('#ds-schedule', 'daily');
    await page.selectOption('#ds-by', 'connector');
    await page.click('#ds-import');
    await expect.poll(() => page.textContent('#ds-msg')).toBe('24 rows written to "Motor RPI" with a chart, refreshed daily by the connector');
    await expect.poll(() => page.textContent('#ds-cschedules')).toMatch(/^Motor RPI ← uk-rpi-vehicles-tax-insurance-yoy \(daily, next \d{4}-\d\d-\d\d \d\d:\d\d UTC, (not run yet|last run (running|ok))\) Remove$/);
    expect(h.ss.getSheetByName('Motor RPI')!.charts).toHaveLength(1);
    expect(h.triggers).toHaveLength(0);
    const grid = await gridUntil(SID, 'Motor RPI', (g) => g.length >= 25);
    expect(grid[0]).toEqual(['date', expect.stringMatching(/^UK RPI: vehicles tax and insurance/)]);
    expect(grid.slice(1, 25).map((r) => r[0])).toEqual(h.ss.getSheetByName('Motor RPI')!.getRange(2, 1, 24, 1).getValues().map((r) => r[0]));

    // The same sheet again, refreshed weekly by an Apps Script trigger instead.
    await page.fill('#ds-sheet', 'Motor RPI (trigger)');
    await page.selectOption('#ds-schedule', 'weekly');
    await page.selectOption('#ds-by', 'trigger');
    await page.uncheck('#ds-chart');
    await page.click('#ds-import');
    await expect.poll(() => page.textContent('#ds-msg')).toBe('24 rows written to "Motor RPI (trigger)", refreshed weekly');
    await expect.poll(() => page.textContent('#ds-schedules')).toBe('Motor RPI (trigger) ← uk-rpi-vehicles-tax-insurance-yoy (weekly) Remove');
    expect(h.triggers.map((t) => t.every)).toEqual([{ weeks: 1 }]);
    await expect.poll(() => page.textContent('#ds-cschedules')).toMatch(/last run ok\) Remove$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-datasets.png'), fullPage: true });

    await page.click('#ds-cschedules button');
    await expect.poll(() => page.textContent('#ds-cschedules')).toBe('None');
    expect(h.fns.listConnectorSchedules()).toEqual([]);
    await page.click('#ds-schedules button');
    await expect.poll(() => page.textContent('#ds-schedules')).toBe('None');
    expect(h.triggers).toHaveLength(0);
    await page.close();
  }, 60_000);

  it('settings: save, test connection (ok and 401)', async () => {
    const h = loadAddon(http);
    const page = await open(h, 'settings');
    await page.fill('#url', conn.url);
    await page.fill('#key', conn.keys.live!);
    await page.click('#save');
    await expect.poll(() => page.textContent('#msg')).toBe('Saved.');
    expect(await page.inputValue('#key')).toBe('');
    await page.click('#test');
    await expect.poll(() => page.textContent('#msg')).toMatch(/^Connected as "live" \(live, plan \w+, scopes verify, extract, datasets\): \d+ of \d+ credits left/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings.png') });
    await page.fill('#key', 'pk_live_notarealkey');
    await page.click('#save');
    await expect.poll(() => page.textContent('#msg')).toBe('Saved.');
    await page.click('#test');
    await expect.poll(() => page.textContent('#msg')).toMatch(/^API key refused \(401\)/);
    await page.close();
  }, 30_000);

  it('429: waits retry_after, retries and tells the user; write-back is off without a service account', async () => {
    const waits: number[] = [];
    // A 429 wait (>= 1 s) moves the connector's clock instead of blocking for up to a minute.
    const h = loadAddon(http, {
      sleep: (ms) => {
        if (ms < 1000) return void Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
        waits.push(ms);
        const [r] = http.send([{ url: `${limited.control}/advance?ms=${ms}`, method: 'POST', headers: {} }]);
        if (r!.status !== 200) throw new Error('advance failed');
      },
    });
    h.fns.saveSettings({ url: limited.url, key: limited.keys.live });
    const s = h.ss.getActiveSheet();
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Type']]);
    s.getRange(2, 1, 150, 3).setValues(Array.from({ length: 150 }, (_, i) => [i === 0 ? 'UKM-1000-0001' : `UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']));
    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.textContent('#rows-share')).toMatch(/^The connector has no Google service account/);
    expect(await page.isDisabled('#rows-writeback')).toBe(true);
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    // 1 request used (service account, 503); the two batch POSTs make 3: the window is full for what follows.
    await page.click('#rows-run');
    await expect.poll(() => page.textContent('#rows-msg'), { timeout: 30_000 }).toMatch(/^150 of 150 rows\n(Rate limited: waited \d+ s and retried\. ?)+$/);
    const msg = (await page.textContent('#rows-msg'))!;
    const told = [...msg.matchAll(/waited (\d+) s/g)].map((m) => Number(m[1]) * 1000);
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(waits).toEqual(told);
    for (const w of waits) expect(w).toBeGreaterThanOrEqual(1000), expect(w).toBeLessThanOrEqual(60_000);
    const statuses = h.stats.log.map((l) => `${l.method} ${l.status}`);
    expect(statuses.slice(0, 2)).toEqual(['GET 503', 'POST 202']);
    expect(statuses).toContain('GET 429');
    expect(statuses.filter((x) => x === 'POST 202')).toHaveLength(2);
    expect(s.get(2, 4)).toBe('verified');
    expect(s.get(151, 4)).toBe('unverified');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-429.png') });
    await page.close();
  }, 60_000);
});
