/**
 * The sidebar, the settings dialog and the Picker dialog, as HtmlService renders them, in headless
 * Chromium with a google.script.run bridge (exposeFunction) to the add-on running on the Apps
 * Script stand-ins against real connectors. Google's CSS package can't be fetched here (it is
 * answered empty, so the screenshots show the add-on's own styles.css); apis.google.com/js/api.js
 * is answered with standin/picker-standin.js:
 * - rows with "write results back when done" (the sidebar connects the spreadsheet to the key,
 *   then the connector writes into the Sheets stand-in), the progress bar recorded by a
 *   MutationObserver, with a live key against a connector whose UK registry upstream never
 *   answers (so each unknown policy waits 300 ms and progress is visible; a sandbox key never
 *   calls an upstream, docs/data-sources.md);
 * - PDF: "Choose from Drive…" opens the Picker dialog; the pick grants drive.file access, the
 *   sidebar follows it and the extraction; dataset search → preview → import with a chart, an
 *   Apps Script trigger schedule and a connector schedule, removed again; settings: test
 *   connection, connect this spreadsheet to the key and disconnect it;
 * - 429: a connector allowing 3 requests a minute; the add-on waits retry_after (the harness moves
 *   the connector's clock by the wait instead of sleeping a minute), retries and tells the user.
 * Screenshots go to test/artifacts/. Skipped when /usr/bin/chromium is absent (outside CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_BROWSER } from '../helpers/browser.js';
import {
  CONNECTOR,
  loadAddon,
  metadataMirror,
  ROOT,
  type SyncHttp,
  type ChildConnector,
  type Harness,
  type HarnessOptions,
} from './harness.js';
import { GAS_RUN_BRIDGE, openAddonHtml } from './browser-bridge.js';
import { lowContrast, tabThrough } from './a11y-audit.js';
import { LANGUAGE_PACKS } from '../../shared/packs/index.js';

const ARTIFACTS = path.join(ROOT, 'test/artifacts');
let rig: AddonRig<'conn' | 'limited'>;
let conn: ChildConnector;
let limited: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  rig = await startAddonRig({
    conn: {
      google: true,
      extraction: true,
      slowRegistry: true,
      // Connector schedules pause after one failed run, so the paused one is shown without waiting out retries.
      env: {
        COVERCHECK_WORKERS: '1',
        COVERCHECK_BATCH_CONCURRENCY: '10',
        COVERCHECK_REGISTRY_TIMEOUT_MS: '300',
        COVERCHECK_SCHEDULE_PAUSE_AFTER: '1',
      },
      keys: { sandbox: { mode: 'test' }, live: { mode: 'live', credits: 500 }, writer: { mode: 'live', credits: 1000 } },
    },
    limited: {
      env: { COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '3', COVERCHECK_JOB_LEASE_MS: '600000' },
      keys: { live: { mode: 'live', credits: 1000 } },
    },
  });
  ({ http, conn, limited } = rig);
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await rig?.stop();
});

const BRIDGE = `${GAS_RUN_BRIDGE}
window.google.script.host = { origin: location.origin, close: () => window.__hostClose() };
window.confirm = () => true;
// Every width the progress bar is given, as the page renders it.
window.__widths = [];
document.addEventListener('DOMContentLoaded', () => {
  const bar = document.getElementById('rows-bar');
  if (bar) new MutationObserver(() => window.__widths.push(bar.style.width)).observe(bar, { attributes: true, attributeFilter: ['style'] });
  // Every state each progress bar passes through: "<class>|<aria-valuenow>|<hidden>".
  window.__progress = {};
  document.querySelectorAll('[role=progressbar]').forEach((el) => {
    const seen = (window.__progress[el.id] = []);
    new MutationObserver(() => seen.push(el.className + '|' + el.getAttribute('aria-valuenow') + '|' + el.hidden)).observe(el, { attributes: true, attributeFilter: ['class', 'aria-valuenow', 'hidden'] });
  });
});`;

/** HTML the add-on showed (the sidebar or the Picker dialog), wired to the add-on as `h`'s user. */
const openHtml = (h: Harness, html: string, size?: { width: number; height: number }) => openAddonHtml(browser, h, html, BRIDGE, size);

async function open(h: Harness, file: 'sidebar' | 'settings', view: 'rows' | 'pdf' | 'datasets' = 'rows') {
  if (file === 'settings') {
    h.fns.showSettings();
    const d = h.ui.dialogs.at(-1)!;
    return openHtml(h, d.out.getContent(), { width: d.out.width, height: d.out.height });
  }
  h.fns[view === 'rows' ? 'showVerifySidebar' : view === 'pdf' ? 'showPdfSidebar' : 'showDatasetSidebar']();
  return openHtml(h, h.ui.sidebars.at(-1)!.getContent());
}

/** The add-on against `conn`, whose Sheets stand-in sees the developer metadata the add-on writes. */
const addon = (opts: HarnessOptions = {}) => loadAddon(http, { connector: conn.url, onMetadata: metadataMirror(http, conn), ...opts });
const connected = (key: string) => `Connected to this key (…${key.slice(-4)}): the connector may write into this spreadsheet.`;
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
describe.skipIf(SKIP_BROWSER)('sidebar in Chromium', () => {
  it('rows with write-back: mapping shown, share address, progress bar passes intermediate values, the connector writes the results', async () => {
    const SID = 'browser-rows-sheet-001';
    const h = addon({ spreadsheetId: SID });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.writer });
    const s = h.ss.active;
    const policies = ['UKM-1000-0001', ...Array.from({ length: 149 }, (_, i) => `UKM-9999-${String(i).padStart(4, '0')}`)];
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Pays', 'Type']]);
    s.getRange(2, 1, 150, 3).setValues(policies.map((p) => [p, 'UK', 'motor']));
    const put = await control(conn, `/sheet?id=${SID}&title=Sheet1`, {
      method: 'PUT',
      body: JSON.stringify([['Policy number', 'Pays', 'Type'], ...policies.map((p) => [p, 'UK', 'motor'])]),
    });
    expect(put.status).toBe(204);

    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    expect(await page.inputValue('#map-country')).toBe('2');
    expect(await page.inputValue('#map-insurance_type')).toBe('3');
    expect(await page.inputValue('#map-provider')).toBe('');
    await expect.poll(() => page.isDisabled('#rows-writeback')).toBe(false);
    expect(await page.textContent('#rows-share')).toBe(
      `Share this spreadsheet with ${conn.google!.serviceEmail} as an editor so the connector can write into it.`,
    );
    // Font and primary button as the add-on CSS conventions have them.
    expect(await page.evaluate('getComputedStyle(document.body).fontFamily')).toMatch(/^Arial/);
    expect(await page.evaluate('getComputedStyle(document.getElementById("rows-run")).backgroundImage')).toContain('rgb(25, 103, 210)');

    await page.check('#rows-writeback');
    // Turning write-back on connects the spreadsheet to the key.
    await expect.poll(() => page.textContent('#rows-binding')).toBe(connected(conn.keys.writer!));
    expect(await page.isVisible('#rows-connect')).toBe(false);
    await page.click('#rows-run');
    await expect
      .poll(() => page.textContent('#rows-msg'), { timeout: 40_000 })
      .toMatch(/^150 of 150 rows\nThe connector wrote 150 results into the sheet\.$/);
    expect(await page.isDisabled('#rows-run')).toBe(false);
    const widths = (await page.evaluate('window.__widths')) as string[];
    const pcts = widths.map((w) => Number.parseFloat(w));
    expect(pcts[0]).toBe(0);
    expect(pcts.at(-1)).toBe(100);
    expect(pcts.some((p) => p > 0 && p < 100)).toBe(true);
    for (let i = 1; i < pcts.length; i++) expect(pcts[i]!).toBeGreaterThanOrEqual(pcts[i - 1]!);

    const grid = await gridUntil(SID, 'Sheet1', (g) => g.slice(1).every((r) => (r[3] ?? '') !== ''));
    expect(grid[1]!.slice(0, 4)).toEqual(['UKM-1000-0001', 'UK', 'motor', 'verified']);
    const d = await fetch(`${conn.url}/api/v1/verify`, {
      method: 'POST',
      headers: { authorization: `Bearer ${conn.keys.writer}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'UKM-9999-0148', country: 'UK', insurance_type: 'motor' }),
    });
    expect(((await d.json()) as { status: string }).status).toBe('inconclusive');
    expect(grid[150]!.slice(0, 4)).toEqual(['UKM-9999-0148', 'UK', 'motor', 'inconclusive']);
    expect(s.get(2, 4)).toBe('');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-rows.png') });
    console.log('progress widths seen:', widths.join(' -> '));
    await page.close();
  }, 60_000);

  it('PDF through Google Picker: the sidebar opens the dialog, the pick grants drive.file, the dialog closes, the sidebar follows the extraction', async () => {
    const PDF = '1AbCdEfGhIjKlMnOp002';
    const h = addon({
      drive: {
        [PDF]: { path: path.join(ROOT, 'test/fixtures/policies/003.pdf') },
        '1AbCdEfGhIjKlMnOpOTH': { path: path.join(ROOT, 'test/fixtures/policies/003.pdf'), name: 'other.pdf' },
        '1AbCdEfGhIjKlMnOpTXT': { path: path.join(ROOT, 'package.json'), mimeType: 'text/plain' },
      },
      scriptProperties: { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' },
      cloudProjectNumber: '123456789012',
    });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    h.ss.active.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Start date']]);
    const sidebar = await open(h, 'sidebar', 'pdf');
    expect(await sidebar.isVisible('#rows')).toBe(false);
    // A link to a file never picked: drive.file gives no access to it.
    await sidebar.fill('#pdf-file', '1AbCdEfGhIjKlMnOpOTH');
    await sidebar.click('#pdf-run');
    await expect
      .poll(() => sidebar.textContent('#pdf-msg'))
      .toMatch(/^Covercheck can open only the files you choose with "Choose from Drive"/);
    expect(await sidebar.getAttribute('#pdf-msg', 'class')).toBe('msg error');

    await sidebar.click('#pdf-pick');
    await expect.poll(() => h.ui.dialogs.length).toBe(1);
    expect(h.ui.dialogs[0]).toMatchObject({ title: 'Choose a policy PDF', modal: true });
    const dialog = await openHtml(h, h.ui.dialogs[0]!.out.getContent(), { width: 760, height: 520 });
    await dialog.waitForSelector('#picker-files a');
    // The view lists PDFs and photos (JPEG, PNG) only: not the text file.
    expect(await dialog.locator('#picker-files a').allTextContents()).toEqual(['003.pdf', 'other.pdf']);
    await dialog.screenshot({ path: path.join(ARTIFACTS, 'picker-dialog.png') });
    await dialog.click(`#picker-files a[data-id="${PDF}"]`);
    await dialog.click('#picker-standin-select');
    await expect.poll(() => dialog.closed()).toBe(true);
    expect(h.world.drive.grants.has(`${h.user} ${PDF}`)).toBe(true);
    expect(h.world.drive.grants.has(`${h.user} 1AbCdEfGhIjKlMnOpOTH`)).toBe(false);
    await expect.poll(() => sidebar.textContent('#pdf-msg'), { timeout: 30_000 }).toMatch(/^Row 2: \d fields? found\.$/);
    // The extraction showed progress while it ran (a moving bar), and a full bar when done.
    const pdfProgress = (await sidebar.evaluate('window.__progress["pdf-progress"]')) as string[];
    expect(pdfProgress).toContain('bar busy|null|false');
    expect(pdfProgress.at(-1)).toBe('bar|100|false');
    expect(h.ss.active.row(2).slice(0, 3)).toEqual(['PO-730265-62', 'MATMUT ASSURANCES', '2025-12-01']);
    await sidebar.screenshot({ path: path.join(ARTIFACTS, 'sidebar-pdf.png') });

    // Cancelling the Picker: the sidebar says so.
    await sidebar.click('#pdf-pick');
    await expect.poll(() => h.ui.dialogs.length).toBe(2);
    const again = await openHtml(h, h.ui.dialogs[1]!.out.getContent(), { width: 760, height: 520 });
    await again.click('#picker-standin-cancel');
    await expect.poll(() => again.closed()).toBe(true);
    await expect.poll(() => sidebar.textContent('#pdf-msg')).toBe('No file chosen.');
    await Promise.all([dialog.close(), again.close(), sidebar.close()]);
  }, 60_000);

  it('Picker dialog closed with its title-bar x (no code runs in it): the sidebar stops waiting within seconds, once the heartbeats stop', async () => {
    const h = addon({
      scriptProperties: { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' },
      cloudProjectNumber: '123456789012',
    });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    const sidebar = await open(h, 'sidebar', 'pdf');
    await sidebar.click('#pdf-pick');
    await expect.poll(() => h.ui.dialogs.length).toBe(1);
    const dialog = await openHtml(h, h.ui.dialogs[0]!.out.getContent(), { width: 760, height: 520 });
    await dialog.waitForSelector('#picker-standin');
    // Open for a while: the sidebar keeps waiting as long as the dialog beats.
    await new Promise((r) => setTimeout(r, 12_000));
    expect(await sidebar.textContent('#pdf-msg')).toBe('Choose a PDF in the dialog…');
    expect(await sidebar.isDisabled('#pdf-pick')).toBe(true);
    // The x: the dialog's frame goes away without calling anything.
    const closedAt = Date.now();
    await dialog.close();
    await expect.poll(() => sidebar.isDisabled('#pdf-pick'), { timeout: 20_000 }).toBe(false);
    expect(Date.now() - closedAt).toBeLessThan(15_000);
    expect(await sidebar.textContent('#pdf-msg')).toBe('The file dialog was closed without a file.');
    await sidebar.close();
  }, 60_000);

  it('datasets: search → preview → import with a chart and a connector schedule; a trigger schedule; both listed and removed', async () => {
    const SID = 'browser-datasets-sheet1';
    const h = addon({ spreadsheetId: SID });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    await control(conn, `/sheet?id=${SID}&title=${encodeURIComponent('Motor RPI')}`, { method: 'PUT', body: '[]' });
    const page = await open(h, 'sidebar', 'datasets');
    await expect.poll(() => page.textContent('#ds-cschedules')).toBe('None');
    expect(await page.textContent('#ds-schedules')).toBe('None');
    expect(await page.textContent('#ds-share')).toContain(conn.google!.serviceEmail);
    await page.fill('#ds-q', 'insurance');
    await page.click('#ds-search');
    await expect.poll(() => page.textContent('#ds-msg')).toMatch(/^\d+ found$/);
    await page.selectOption('#ds-pick', 'uk-rpi-vehicles-tax-insurance-yoy');
    await expect
      .poll(() => page.textContent('#ds-preview'))
      .toMatch(/^Office for National Statistics, % change over 12 months\n(\d{4}-\d\d-\d\d  -?[\d.]+\n){9}\d{4}-\d\d-\d\d  -?[\d.]+$/);
    await page.fill('#ds-sheet', 'Motor RPI');
    await page.fill('#ds-limit', '24');
    await page.selectOption('#ds-schedule', 'daily');
    await page.selectOption('#ds-by', 'connector');
    await expect.poll(() => page.textContent('#ds-binding')).toBe(connected(conn.keys.sandbox!));
    await page.click('#ds-import');
    await expect
      .poll(() => page.textContent('#ds-msg'))
      .toBe('24 rows written to "Motor RPI" with a chart, refreshed daily by the connector');
    await expect
      .poll(() => page.textContent('#ds-cschedules li'))
      .toMatch(
        /^Motor RPI ← uk-rpi-vehicles-tax-insurance-yoydaily, next \d{4}-\d\d-\d\d \d\d:\d\d UTC, (not run yet|last run (running|ok))RemoveHistory: \d+ runs?.*$/,
      );
    const sheet = () => h.ss.sheets.find((x) => x.name === 'Motor RPI')!;
    expect(sheet().charts).toHaveLength(1);
    expect(h.world.triggers).toHaveLength(0);
    const grid = await gridUntil(SID, 'Motor RPI', (g) => g.length >= 25);
    expect(grid[0]).toEqual(['date', expect.stringMatching(/^UK RPI: vehicles tax and insurance/)]);
    expect(grid.slice(1, 25).map((r) => r[0])).toEqual(
      sheet()
        .getRange(2, 1, 24, 1)
        .getDisplayValues()
        .map((r) => r[0]),
    );

    await page.fill('#ds-sheet', 'Motor RPI (trigger)');
    await page.selectOption('#ds-schedule', 'weekly');
    await page.selectOption('#ds-by', 'trigger');
    await page.uncheck('#ds-chart');
    await page.click('#ds-import');
    await expect.poll(() => page.textContent('#ds-msg')).toBe('24 rows written to "Motor RPI (trigger)", refreshed weekly');
    await expect
      .poll(() => page.textContent('#ds-schedules li'))
      .toMatch(
        /^Motor RPI \(trigger\) ← uk-rpi-vehicles-tax-insurance-yoyweekly, yours, refreshed \d{4}-\d\d-\d\d \d\d:\d\d UTCRefresh nowRemoveHistory: 1 run\d{4}-.*24 rows.*$/,
      );
    expect(h.world.triggers.map((t) => t.everyMs)).toEqual([3600_000]);
    await expect.poll(() => page.textContent('#ds-cschedules')).toMatch(/last run ok.*RemoveHistory: 1 run\d{4}-.*24 rows.*$/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-datasets.png'), fullPage: true });
    // Run history: a failed "Refresh now" (connector unreachable), then a good one; both in the schedule's history.
    h.world.offline = true;
    await page.click('#ds-schedules button:has-text("Refresh now")');
    await expect.poll(() => page.textContent('#ds-schedules details summary')).toBe('History: 2 runs, 1 failed');
    expect(await page.textContent('#ds-badge')).toBe('1 failing');
    h.world.offline = false;
    await page.click('#ds-schedules button:has-text("Refresh now")');
    await expect.poll(() => page.textContent('#ds-schedules details summary')).toBe('History: 3 runs, 1 failed');
    await page.click('#ds-schedules details summary');
    const rowsShown = await page.$$eval('#ds-schedules details tr', (trs) => trs.map((tr) => tr.className));
    expect(rowsShown).toEqual(['ok', 'failed', 'failed', 'ok']);
    expect(await page.textContent('#ds-schedules details tr.failed td[colspan]')).toMatch(/^Connector unreachable/);
    await page.click('#ds-cschedules details summary');
    await page.setViewportSize({ width: 300, height: 1400 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-run-history.png') });
    expect(await page.isVisible('#ds-badge')).toBe(false);

    // Three failures in a row pause it: the reason, a badge, and Resume.
    h.world.offline = true;
    for (const n of [4, 5, 6]) {
      await page.click('#ds-schedules button:has-text("Refresh now")');
      await expect.poll(() => page.textContent('#ds-schedules details summary')).toBe(`History: ${n} runs, ${n - 2} failed`);
    }
    await expect
      .poll(() => page.textContent('#ds-schedules .paused'))
      .toMatch(/^Paused after 3 failed refreshes in a row\. The last: Connector unreachable/);
    expect(await page.textContent('#ds-badge')).toBe('1 failing');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-paused.png') });
    h.world.offline = false;
    await page.click('#ds-schedules button:has-text("Resume")');
    await expect.poll(() => page.textContent('#ds-schedules details summary')).toBe('History: 7 runs, 4 failed');
    expect(await page.isVisible('#ds-schedules .paused')).toBe(false);
    expect(await page.isVisible('#ds-badge')).toBe(false);

    await page.click('#ds-cschedules button');
    await expect.poll(() => page.textContent('#ds-cschedules')).toBe('None');
    expect(h.fns.listConnectorSchedules()).toEqual([]);
    await page.click('#ds-schedules button:has-text("Remove")');
    await expect.poll(() => page.textContent('#ds-schedules')).toBe('None');
    expect(h.world.triggers).toHaveLength(0);
    await page.close();
  }, 60_000);

  it('datasets: a connector schedule the connector paused shows why and Resume, which runs it again', async () => {
    const SID = 'browser-paused-sheet01';
    const h = addon({ spreadsheetId: SID });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    await control(conn, `/sheet?id=${SID}&title=Other`, { method: 'PUT', body: '[]' });
    const s = h.fns.createConnectorSchedule({ slug: 'uk-gdp-abmi', sheetName: 'GDP', cadence: 'daily', limit: 3 });
    for (let i = 0; i < 100 && !h.fns.listConnectorSchedules()[0]?.paused; i++) await new Promise((r) => setTimeout(r, 50));
    const page = await open(h, 'sidebar', 'datasets');
    await expect
      .poll(() => page.textContent('#ds-cschedules li .paused'))
      .toBe('Paused after 1 failed runs in a row. The last: the spreadsheet has no sheet named "GDP"');
    expect(await page.textContent('#ds-cschedules li')).not.toContain('next ');
    await page.setViewportSize({ width: 300, height: 1400 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-connector-paused.png') });
    await control(conn, `/sheet?id=${SID}&title=GDP`, { method: 'PUT', body: '[]' });
    await page.click('#ds-cschedules button:has-text("Resume")');
    await expect.poll(() => page.locator('#ds-cschedules li .paused').count()).toBe(0);
    expect(await page.textContent('#ds-cschedules li')).toMatch(/daily, next \d{4}-/);
    const grid = await gridUntil(SID, 'GDP', (g) => g.length >= 4);
    expect(grid[0]![0]).toBe('date');
    h.fns.removeConnectorSchedule(s.id);
    await page.close();
  }, 60_000);

  it('settings: the allowed URL pre-filled, save, test connection (ok and 401), connect this spreadsheet and disconnect, a refused URL', async () => {
    const SID = 'browser-settings-sheet1';
    const h = addon({ spreadsheetId: SID });
    expect((await control(conn, `/sheet?id=${SID}&title=Sheet1`, { method: 'PUT', body: '[]' })).status).toBe(204);
    const page = await open(h, 'settings');
    await expect.poll(() => page.inputValue('#url')).toBe(CONNECTOR);
    await page.fill('#key', conn.keys.live!);
    await page.click('#save');
    await expect.poll(() => page.textContent('#msg')).toBe('Saved.');
    expect(await page.inputValue('#key')).toBe('');
    await page.click('#test');
    await expect
      .poll(() => page.textContent('#msg'))
      .toMatch(/^Connected as "live" \(live, plan \w+, scopes verify, extract, datasets\): \d+ of \d+ credits left/);
    await page.click('#grant');
    await expect.poll(() => page.textContent('#grantinfo')).toMatch(/^Granted: key …\w{4} of "live" on \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/);
    await expect
      .poll(() => page.textContent('#binding'))
      .toBe('Not connected: the connector may not write into this spreadsheet with this key.');
    expect(await page.isVisible('#disconnect')).toBe(false);
    await page.click('#connect');
    await expect.poll(() => page.textContent('#binding')).toBe(connected(conn.keys.live!));
    expect(await page.isVisible('#connect')).toBe(false);
    expect(h.ss.metadata.map((m) => [m.key, m.visibility])).toEqual([['covercheck.binding', 'DOCUMENT']]);
    await page.screenshot({ path: path.join(ARTIFACTS, 'settings.png'), fullPage: true });
    await page.click('#disconnect');
    await expect
      .poll(() => page.textContent('#binding'))
      .toBe('Not connected: the connector may not write into this spreadsheet with this key.');
    expect(h.ss.metadata).toEqual([]);
    await page.fill('#key', 'pk_live_notarealkey');
    await page.click('#save');
    await expect.poll(() => page.textContent('#msg')).toBe('Saved.');
    await page.click('#test');
    await expect.poll(() => page.textContent('#msg')).toMatch(/^API key refused \(401\)/);
    await page.fill('#url', 'https://evil.example.net');
    await page.click('#save');
    await expect.poll(() => page.textContent('#msg')).toMatch(/may only call https:\/\/covercheck\.example\.com/);
    expect(await page.getAttribute('#msg', 'class')).toBe('msg error');
    await page.close();
  }, 30_000);

  it('429: waits retry_after, retries and tells the user; write-back is off without a service account', async () => {
    const waits: number[] = [];
    // A 429 wait (>= 1 s) moves the connector's clock instead of blocking for up to a minute.
    const h = loadAddon(http, {
      connector: limited.url,
      sleep: (ms) => {
        if (ms < 1000) return;
        waits.push(ms);
        const [r] = http.send([{ url: `${limited.control}/advance?ms=${ms}`, method: 'POST', headers: {} }]);
        if (r!.status !== 200) throw new Error('advance failed');
      },
    });
    h.fns.saveSettings({ url: CONNECTOR, key: limited.keys.live });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Type']]);
    s.getRange(2, 1, 150, 3).setValues(
      Array.from({ length: 150 }, (_, i) => [i === 0 ? 'UKM-1000-0001' : `UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']),
    );
    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.textContent('#rows-share')).toMatch(/^The connector has no Google service account/);
    expect(await page.isDisabled('#rows-writeback')).toBe(true);
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    // 1 request used (service account, 503); the two batch POSTs make 3: the window is full for what follows.
    await page.click('#rows-run');
    await expect
      .poll(() => page.textContent('#rows-msg'), { timeout: 30_000 })
      .toMatch(/^150 of 150 rows\n(Rate limited: waited \d+ s and retried\. ?)+$/);
    const msg = (await page.textContent('#rows-msg'))!;
    const told = [...msg.matchAll(/waited (\d+) s/g)].map((m) => Number(m[1]) * 1000);
    expect(told.length).toBeGreaterThanOrEqual(1);
    expect(waits).toEqual(told);
    for (const w of waits) (expect(w).toBeGreaterThanOrEqual(1000), expect(w).toBeLessThanOrEqual(60_000));
    const statuses = h.stats.log.map((l) => `${l.method} ${l.status}`);
    expect(statuses.slice(0, 2)).toEqual(['GET 503', 'POST 202']);
    expect(statuses).toContain('GET 429');
    expect(statuses.filter((x) => x === 'POST 202')).toHaveLength(2);
    expect(s.get(2, 4)).toBe('verified');
    expect(s.get(151, 4)).toBe('unverified');
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-429.png') });
    await page.close();
  }, 60_000);

  it('results summary and delta re-check: counts, credits, rows needing a look that select their row; a re-run after two edits checks two rows', async () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Type']]);
    const data = Array.from({ length: 30 }, (_, i) =>
      i === 0
        ? ['UKM-1000-0001', 'UK', 'motor']
        : i % 5 === 4
          ? [`MUT-${100000 + i}`, 'FR', 'health']
          : [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor'],
    );
    s.getRange(2, 1, 30, 3).setValues(data);
    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    expect(await page.inputValue('#rows-recheck')).toBe('changed');
    expect(await page.inputValue('#rows-age')).toBe('30');
    await page.click('#rows-run');
    await expect.poll(() => page.isVisible('#rows-summary'), { timeout: 30_000 }).toBe(true);
    const status = Array.from({ length: 30 }, (_, i) => String(s.get(i + 2, 4)));
    const n = (x: string) => status.filter((v) => v === x).length;
    const counts = await page.$$eval('#rows-counts tr', (trs) =>
      trs.map((tr) => (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
    );
    expect(counts).toEqual([
      `verified ${n('verified')}`,
      `unverified ${n('unverified')}`,
      `inconclusive ${n('inconclusive')}`,
      'errors 0',
      'checked now 30',
      'unchanged, skipped 0',
    ]);
    expect(await page.textContent('#rows-credits')).toMatch(/^Credits spent: 0, left: \d+$/);
    const look = 30 - n('verified');
    expect(await page.textContent('#rows-look-title')).toBe(`${look} rows need a look`);
    const links = await page.$$eval('#rows-look a', (as) => as.map((a) => a.textContent));
    expect(links).toHaveLength(look);
    expect(links[0]).toBe(`Row 3: ${s.get(3, 1)}`);
    await page.setViewportSize({ width: 300, height: 1100 });
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-rows-summary.png') });
    await page.click('#rows-look li:nth-child(3) a');
    await expect.poll(() => h.ss.activeRange?.row).toBe(Number(links[2]!.match(/^Row (\d+)/)![1]));

    // Two rows edited: only they are sent again.
    s.set(5, 1, 'UKM-1000-0002');
    s.set(9, 2, 'DE');
    s.set(9, 1, 'KFZ-5096-000001');
    const posts = h.stats.log.filter((l) => l.method === 'POST').length;
    await page.click('#rows-run');
    await expect
      .poll(() => page.textContent('#rows-msg'), { timeout: 30_000 })
      .toBe('2 of 2 rows\n28 rows unchanged since the last check: skipped, no credits spent.');
    await expect.poll(() => page.isVisible('#rows-summary')).toBe(true);
    expect(
      await page.$$eval('#rows-counts tr', (trs) =>
        trs.slice(4).map((tr) => (tr as unknown as { innerText: string }).innerText.replace(/\s+/g, ' ').trim()),
      ),
    ).toEqual(['checked now 2', 'unchanged, skipped 28']);
    expect(h.stats.log.filter((l) => l.method === 'POST').length - posts).toBe(1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-rows-delta.png'), fullPage: true });
    await page.close();
  }, 60_000);
  it('rows: a run that would check more rows than selected (one cell selected: every row) asks first, and nothing is sent on Cancel; datasets: Enter searches', async () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Type']]);
    s.getRange(2, 1, 6, 3).setValues(Array.from({ length: 6 }, (_, i) => [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']));
    s.getRange(4, 2).activate();
    const page = await open(h, 'sidebar', 'rows');
    await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
    await page.evaluate('window.__asked = []; window.__answer = false; window.confirm = (m) => (window.__asked.push(m), window.__answer);');
    const posts = () => h.stats.log.filter((l) => l.method === 'POST').length;

    await page.click('#rows-run');
    await expect.poll(() => page.textContent('#rows-msg')).toBe('Nothing sent: select the rows to verify, then choose Verify.');
    expect(await page.evaluate('window.__asked')).toEqual([
      'Verify all 6 rows of "Sheet1"?\n\nYou selected 1 row. Rows checked cost credits (rows unchanged since their last check are skipped). To verify only some rows, cancel and select them first.',
    ]);
    expect(posts()).toBe(0);
    expect(s.get(1, 4)).toBe('');
    expect(await page.isDisabled('#rows-run')).toBe(false);

    // Three rows selected: those three run, without a question.
    s.getRange(3, 1, 3, 3).activate();
    await page.click('#rows-run');
    await expect.poll(() => page.textContent('#rows-msg'), { timeout: 20_000 }).toMatch(/^3 of 3 rows/);
    expect(await page.evaluate('window.__asked.length')).toBe(1);
    expect([2, 3, 4, 5, 6, 7].map((r) => s.get(r, 4) !== '')).toEqual([false, true, true, true, false, false]);

    // One cell again, and the user agrees: every row, the three already checked skipped.
    s.getRange(2, 1).activate();
    await page.evaluate('window.__answer = true');
    await page.click('#rows-run');
    await expect
      .poll(() => page.textContent('#rows-msg'), { timeout: 20_000 })
      .toBe('3 of 3 rows\n3 rows unchanged since the last check: skipped, no credits spent.');
    expect(await page.evaluate('window.__asked.length')).toBe(2);
    await page.close();

    const ds = await open(h, 'sidebar', 'datasets');
    await ds.fill('#ds-q', 'insurance');
    await ds.press('#ds-q', 'Enter');
    await expect.poll(() => ds.textContent('#ds-msg')).toMatch(/^[1-9]\d* found$/);
    expect(await ds.inputValue('#ds-pick')).not.toBe('');
    // Import shows progress as verification does: a moving bar while the add-on works, full when done.
    await ds.selectOption('#ds-pick', 'uk-rpi-vehicles-tax-insurance-yoy');
    await ds.fill('#ds-sheet', 'RPI');
    await ds.fill('#ds-limit', '12');
    await ds.click('#ds-import');
    await expect.poll(() => ds.textContent('#ds-msg')).toBe('12 rows written to "RPI" with a chart');
    const dsProgress = (await ds.evaluate('window.__progress["ds-progress"]')) as string[];
    expect(dsProgress).toContain('bar busy|null|false');
    expect(dsProgress.at(-1)).toBe('bar|100|false');
    expect(await ds.isDisabled('#ds-import')).toBe(false);
    await ds.close();
  }, 60_000);

  it("the sidebar in the user's language: every text of the language pack's sidebar section in DE and FR, <html lang>, the confirmation and messages too", async () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    h.ss.active.getRange(1, 1, 3, 3).setValues([
      ['Policy number', 'Country', 'Type'],
      ['UKM-9999-0001', 'UK', 'motor'],
      ['UKM-9999-0002', 'UK', 'motor'],
    ]);
    for (const lang of ['de', 'fr'] as const) {
      h.world.user(h.user).locale = lang;
      const texts = LANGUAGE_PACKS[lang].addon.sidebar as Record<string, string>;
      for (const view of ['rows', 'pdf', 'datasets'] as const) {
        const page = await open(h, 'sidebar', view);
        expect(await page.evaluate('document.documentElement.lang')).toBe(lang);
        const marked = (await page.$$eval('[data-t]', (els) => els.map((e) => [e.getAttribute('data-t'), e.textContent]))) as [
          string,
          string,
        ][];
        expect(marked.length).toBeGreaterThan(10);
        // Less the write-back help, which the connector's answer replaces (its texts are English).
        for (const [key, text] of marked.filter(([k]) => k !== 'writeBackHelp')) expect(text, key).toBe(texts[key]);
        const labels = (await page.$$eval('[data-t-label]', (els) =>
          els.map((e) => [e.getAttribute('data-t-label'), e.getAttribute('aria-label')]),
        )) as [string, string][];
        for (const [key, text] of labels) expect(text, key).toBe(texts[key]);
        expect(await page.getAttribute('#ds-q', 'placeholder')).toBe(texts.dsSearchPlaceholder);
        if (view === 'rows' && lang === 'de') {
          await expect.poll(() => page.textContent('#rows-range')).toBe('Tabelle „Sheet1“, Zeilen 2–3');
          await page.evaluate('window.__asked = []; window.confirm = (m) => (window.__asked.push(m), false);');
          await page.click('#rows-run');
          await expect.poll(() => page.textContent('#rows-msg')).toBe(texts.nothingSent);
          expect(await page.evaluate('window.__asked[0]')).toMatch(
            /^Alle 2 Zeilen von „Sheet1“ prüfen\?\n\nSie haben keine Datenzeilen ausgewählt\./,
          );
          await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-rows-de.png') });
        }
        if (view === 'datasets') {
          await page.fill('#ds-q', 'insurance');
          await page.press('#ds-q', 'Enter');
          await expect
            .poll(() => page.textContent('#ds-msg'))
            .toMatch(new RegExp(`^[1-9]\\d* ${lang === 'de' ? 'gefunden' : 'trouvé\\(s\\)'}$`));
        }
        await page.close();
      }
    }
  }, 60_000);

  // Every kind of text each view can show, put on screen at once through the sidebar's own functions.
  const STATES: Record<'rows' | 'pdf' | 'datasets', string> = {
    rows: `say($('rows-msg'), 'No column found for country: pick it above.', true);
      $('rows-connect').hidden = false; $('rows-binding').className = 'error'; $('rows-binding').textContent = 'Connect this spreadsheet first.';
      showSummary({ counts: { verified: 3, unverified: 1, inconclusive: 1, error: 1 }, checked: 6, skipped: 0, creditsSpent: 4, creditsLeft: 96,
        needsLookTotal: 52, needsLook: [{ row: 3, policy: 'UKM-9999-0001', why: ['unverified'] }, { row: 5, policy: '', why: ['Error: no country'] }] });`,
    pdf: `say($('pdf-msg'), 'The PDF has no text layer and OCR found nothing.', true);
      showReview('job-1', { status: 'review', items: [
        { key: 'policy_number', label: 'Policy number', value: 'UKM-1000-0001', confidence: 0.97, needsReview: false },
        { key: 'insurer', label: 'Insurer', value: 'Aviva', printed: 'AVIVA INS. LTD', confidence: 0.62, needsReview: true }] });`,
    datasets: `$('ds-preview').textContent = 'Office for National Statistics, %\\n2026-01-01  3.1';
      say($('ds-msg'), 'Connector unreachable', true); $('ds-connect').hidden = false;
      showSchedules({ triggerError: 'The hourly trigger could not be created.', schedules: [{ id: 's1', sheetName: 'GDP', slug: 'uk-gdp-abmi', schedule: 'daily', mode: 'append', mine: true,
        lastRefresh: '2026-11-20T10:00:00Z', lastError: 'Connector unreachable', paused: 'Paused after 3 failed refreshes in a row.', failures: 3,
        runs: [{ at: '2026-11-20T10:00:00Z', ok: false, running: false, rows: null, durationMs: 1200, error: 'Connector unreachable' }, { at: '2026-11-19T10:00:00Z', ok: true, running: false, rows: 24, durationMs: 800 }] }] });
      showConnectorSchedules([{ id: 'c1', sheetName: 'RPI', dataset: 'uk-rpi', cadence: 'weekly', mode: 'merge', paused: 'Paused after 1 failed runs in a row.', nextRunAt: '2026-11-27T00:00:00Z',
        lastRun: { status: 'failed', error: 'no sheet named "RPI"' }, runs: [{ at: '2026-11-20T10:00:00Z', ok: false, running: false, rows: null, durationMs: 10, error: 'no sheet' }] }]);
      document.querySelectorAll('details').forEach(function (d) { d.open = true; });`,
  };

  it('accessibility: every visible text has contrast >= 4.5:1, and tabbing reaches every control with a visible focus ring (sidebar views and settings)', async () => {
    const h = addon({ spreadsheetId: 'browser-a11y-sheet1' });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    h.ss.active.getRange(1, 1, 2, 3).setValues([
      ['Policy number', 'Country', 'Type'],
      ['UKM-1000-0001', 'UK', 'motor'],
    ]);
    const low: string[] = [];
    const noRing: string[] = [];
    const missed: string[] = [];
    for (const view of ['rows', 'pdf', 'datasets', 'settings'] as const) {
      const page = view === 'settings' ? await open(h, 'settings') : await open(h, 'sidebar', view);
      if (view === 'rows') await expect.poll(() => page.inputValue('#map-policy_number')).toBe('1');
      if (view === 'datasets') await expect.poll(() => page.textContent('#ds-cschedules')).toBe('None');
      if (view === 'settings') await expect.poll(() => page.inputValue('#url')).toBe(CONNECTOR);
      if (view !== 'settings') await page.evaluate(STATES[view]);
      const texts = await lowContrast(page);
      expect(texts.checked).toBeGreaterThan(10);
      low.push(...texts.low.map((t) => `${view}: ${t.el} "${t.text}" ${t.ratio}`));
      const tab = await tabThrough(page);
      expect(tab.reached.length).toBeGreaterThan(3);
      // A ring: an outline at least 2 px wide whose colour stands 3:1 against what surrounds the control.
      noRing.push(
        ...tab.reached
          .filter((f) => f.style === 'none' || f.width < 2 || f.ring < 3)
          .map((f) => `${view}: ${f.el} (${f.style} ${f.width}px, ${f.ring.toFixed(2)}:1)`),
      );
      missed.push(...tab.missed.map((m) => `${view}: ${m}`));
      if (view === 'pdf') {
        await page.focus('#pdf-review-discard');
        await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-a11y-pdf-review.png') });
      }
      if (view === 'datasets') {
        await page.setViewportSize({ width: 300, height: 1500 });
        await page.focus('#ds-search');
        await page.keyboard.press('Tab');
        await page.keyboard.press('Shift+Tab');
        await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-a11y-datasets.png') });
      }
      await page.close();
    }
    expect({ low, noRing, missed }).toEqual({ low: [], noRing: [], missed: [] });
  }, 60_000);
});
