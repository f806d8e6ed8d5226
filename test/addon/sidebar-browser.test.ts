/**
 * The sidebar HTML in headless Chromium with a google.script.run bridge (exposeFunction) to the
 * add-on running in the vm harness against the real connector: the rows flow, the progress bar
 * moving, a screenshot in test/artifacts/. Skipped when /usr/bin/chromium is absent.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, DIST, loadAddon, ROOT, startConnectorChild, SyncHttp, type ChildConnector, type EntryPoint } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';
const have = fs.existsSync(CHROMIUM);
let conn: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (!have) return;
  buildAddon();
  http = new SyncHttp();
  conn = await startConnectorChild({ keys: { sandbox: { mode: 'test' } } });
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await conn?.stop();
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
} } };`;

// Skipped only outside CI: .ci/run installs Chromium, so a missing browser there fails instead.
describe.skipIf(!have && !process.env.CI)('sidebar in Chromium', () => {
  it('verifies 300 rows: mapping shown, progress bar moves to 100%, results in the sheet', async () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    const s = h.ss.getActiveSheet();
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Pays', 'Type']]);
    s.getRange(2, 1, 300, 3).setValues(Array.from({ length: 300 }, (_, i) => [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']));
    s.set(2, 1, 'UKM-1000-0001');

    const page = await browser.newPage({ viewport: { width: 320, height: 640 } });
    await page.exposeFunction('__gasRun', (name: string, args: string) => {
      try {
        return JSON.stringify({ ok: true, value: h.fns[name as EntryPoint](...(JSON.parse(args) as unknown[])) ?? null });
      } catch (e) {
        return JSON.stringify({ ok: false, error: e instanceof Error ? e.message : String(e) });
      }
    });
    const html = fs.readFileSync(path.join(DIST, 'sidebar.html'), 'utf8').replace('<?= view ?>', 'rows').replace('<script>', `<script>${BRIDGE}</script><script>`);
    await page.setContent(html);
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    expect(await page.inputValue('#map-country')).toBe('2');
    expect(await page.inputValue('#map-insurance_type')).toBe('3');
    expect(await page.inputValue('#map-provider')).toBe('');

    const widths: string[] = [];
    await page.click('#rows-run');
    for (let i = 0; i < 100; i++) {
      const w = await page.$eval('#rows-bar', (el) => (el as unknown as { style: { width: string } }).style.width);
      if (widths[widths.length - 1] !== w) widths.push(w);
      if (w === '100%') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(widths[widths.length - 1]).toBe('100%');
    expect(widths.length).toBeGreaterThanOrEqual(2);
    await expect.poll(() => page.textContent('#rows-msg')).toMatch(/^300 of 300 rows/);
    expect(s.get(2, 4)).toBe('verified');
    expect(s.get(301, 4)).toBe('unverified');
    fs.mkdirSync(path.join(ROOT, 'test/artifacts'), { recursive: true });
    await page.screenshot({ path: path.join(ROOT, 'test/artifacts/sidebar-rows.png') });
    console.log('progress widths seen:', widths.join(' -> '));
  }, 60_000);
});
