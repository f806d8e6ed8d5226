/**
 * The sidebar's "Watch" tab in headless Chromium, with a google.script.run bridge to the add-on on the Apps
 * Script stand-ins against a real connector child whose clock is moved rather than waited for: the tab beside
 * Verify, the rows' mapping with the end-date column, "this spreadsheet" connected on the way, the watch made;
 * its list following the first run, then showing the next run's changes on their rows; pause, resume, delete;
 * the selected row's history; every text in DE and FR; contrast and keyboard reach. The screenshots the docs
 * show are written to test/artifacts/, and to docs/images/ with COVERCHECK_DOC_SCREENSHOTS=1 (sidebar-watches.png,
 * sidebar-watch-list.png, sidebar-row-history.png).
 * Skipped when /usr/bin/chromium is absent (outside CI).
 */
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_PACKS } from '../../shared/packs/index.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { HAVE_CHROMIUM, docScreenshotPaths, launchChromium, SKIP_BROWSER } from '../helpers/browser.js';
import { lowContrast, tabThrough } from './a11y-audit.js';
import { exposeGasRun, GAS_RUN_BRIDGE } from './browser-bridge.js';
import { CONNECTOR, loadAddon, metadataMirror, ROOT, type ChildConnector, type Harness, type SyncHttp } from './harness.js';

let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  rig = await startAddonRig({ conn: { google: true, keys: { live: { mode: 'live', credits: 10_000 }, sandbox: { mode: 'test' } } } });
  ({ http, conn } = rig);
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await rig?.stop();
});

const BRIDGE = `${GAS_RUN_BRIDGE}
window.google.script.host = { origin: location.origin, close: () => {} };
window.__asked = [];
window.confirm = (m) => (window.__asked.push(m), true);`;

/** The sidebar the add-on showed, wired to the add-on as `h`'s user; 300 px wide as in Sheets, with room for the whole section. */
async function sidebar(h: Harness, height = 900): Promise<Page> {
  h.fns.showVerifySidebar();
  const page = await browser.newPage({ viewport: { width: 300, height } });
  await page.route('https://ssl.gstatic.com/**', (r) => r.fulfill({ contentType: 'text/css', body: '' }));
  await exposeGasRun(page, h);
  await page.setContent(h.ui.sidebars.at(-1)!.getContent().replace('<script>', `<script>${BRIDGE}</script><script>`));
  return page;
}

const addon = (spreadsheetId: string, key: string) => {
  const h = loadAddon(http, { connector: conn.url, spreadsheetId, onMetadata: metadataMirror(http, conn) });
  h.fns.saveSettings({ url: CONNECTOR, key });
  return h;
};
async function setChildClock(iso: string): Promise<void> {
  const { skew } = (await (await fetch(`${conn.control}/advance?ms=0`, { method: 'POST' })).json()) as { skew: number };
  const ms = Date.parse(iso) - (Date.now() + skew);
  expect(ms).toBeGreaterThanOrEqual(0);
  await fetch(`${conn.control}/advance?ms=${ms}`, { method: 'POST' });
}
/** Scrolls the sidebar so `selector` is at its top, as a user would to see it. */
const scrollTo = (page: Page, selector: string) => page.evaluate(`document.querySelector(${JSON.stringify(selector)}).scrollIntoView()`);

const FLEET = [
  ['Policy number', 'Country', 'Insurance type', 'Insurer', 'End date'],
  ['UKM-1000-0001', 'UK', 'motor', '', ''],
  ['UKM-1000-0004', 'UK', 'motor', '', ''],
  ['KFZ-5441-000004', 'DE', 'motor', '', ''],
  ['UKM-9999-0101', 'UK', 'motor', '', '2031-01-20'],
];

describe.skipIf(SKIP_BROWSER)('the Watch tab in Chromium', () => {
  it('watch the selected rows into this spreadsheet; the list follows the runs and their changes; pause, resume; the row history; delete', async () => {
    await setChildClock('2030-12-10T09:00:00Z');
    const SID = 'browser-watch-sheet-001';
    const h = addon(SID, conn.keys.live!);
    h.ss.active.name = 'Fleet';
    h.ss.active.getRange(1, 1, FLEET.length, 5).setValues(FLEET);
    const put = await fetch(`${conn.google!.control}/sheet?id=${SID}&title=Fleet`, { method: 'PUT', body: JSON.stringify(FLEET) });
    expect(put.status).toBe(204);
    h.ss.active.getRange(2, 1, 4, 5).activate();

    const page = await sidebar(h);
    expect(await page.isVisible('#tabs')).toBe(true);
    expect(await page.getAttribute('#tab-rows', 'aria-selected')).toBe('true');
    expect(await page.isVisible('#watches')).toBe(false);
    await page.click('#tab-watches');
    expect(await page.isVisible('#rows')).toBe(false);
    expect(await page.getAttribute('#tab-watches', 'aria-selected')).toBe('true');
    await expect.poll(() => page.inputValue('#watch-map-end_date')).toBe('5');
    expect(await page.inputValue('#watch-map-policy_number')).toBe('1');
    expect(await page.inputValue('#watch-map-provider')).toBe('4');
    expect(await page.textContent('#watch-range')).toBe('Sheet "Fleet", rows 2–5');
    await expect.poll(() => page.isDisabled('#watch-sheet')).toBe(false);
    expect(await page.textContent('#watch-list')).toBe('None');

    await page.check('#watch-sheet');
    await expect
      .poll(() => page.textContent('#watch-binding'))
      .toBe(`Connected to this key (…${conn.keys.live!.slice(-4)}): the connector may write into this spreadsheet.`);
    await page.fill('#watch-window', '30');
    await page.evaluate('document.activeElement.blur()');
    await scrollTo(page, '#tabs');
    for (const file of docScreenshotPaths(ROOT, 'sidebar-watches.png')) await page.screenshot({ path: file });
    await page.click('#watch-create');
    await expect
      .poll(() => page.textContent('#watch-msg'))
      .toBe('Watching 4 policies, daily. The first run records where each stands; later runs report what changed.');
    // The list follows the first run by itself, until it is done.
    const item = page.locator('#watch-list li[data-watch]');
    await expect.poll(() => item.count()).toBe(1);
    await expect
      .poll(() => item.locator('.secondary.msg').textContent(), { timeout: 20_000 })
      .toMatch(/Last run \S+ \S+ UTC: 4 of 4 checked, 0 changed/);
    const head = await item.locator('.watch-head').textContent();
    expect(head).toBe('4 policies, daily · Sheet "Fleet", rows 2–5');
    const info = (await item.locator('.secondary.msg').textContent())!.split('\n');
    expect(info.slice(0, 3)).toEqual([
      expect.stringMatching(/^Next run 2030-12-11 09:\d\d UTC$/),
      'Up to 124 credits a month',
      'Reports to sheet "Fleet"',
    ]);
    expect(await item.locator('ul.watch-changes').textContent()).toBe('No changes.');

    // 25 days on: the next run's changes, each on its row (a link to it).
    await setChildClock('2031-01-04T09:00:00Z');
    await expect
      .poll(
        async () => {
          await page.click('#watch-refresh');
          return item.locator('ul.watch-changes li').count();
        },
        { timeout: 20_000, interval: 500 },
      )
      .toBe(3);
    expect(await item.locator('ul.watch-changes li').allTextContents()).toEqual([
      expect.stringMatching(/^Row 2, UKM-1000-0001: verified -> unverified, status verified -> unverified; cover ended 2030-12-31/),
      'Row 4, KFZ-5441-000004: verified -> verified, cover ends 2031-01-31, within 30 days',
      'Row 5, UKM-9999-0101: unverified -> unverified, cover ends 2031-01-20, within 30 days',
    ]);
    await item.locator('ul.watch-changes a').nth(1).click();
    await expect.poll(() => h.ss.activeRange?.row).toBe(4);
    await scrollTo(page, '#watch-list-title');
    for (const file of docScreenshotPaths(ROOT, 'sidebar-watch-list.png')) await page.screenshot({ path: file });

    await item.locator('button.watch-pause').click();
    await expect.poll(() => item.locator('.badge').textContent()).toBe('paused');
    expect(await item.locator('.secondary.msg').textContent()).toMatch(/^Paused: no run starts until you resume it\./);
    await item.locator('button.watch-resume').click();
    await expect.poll(() => item.locator('.badge').count()).toBe(0);

    // The row history of row 2: the watch's two results, and what changed between them.
    h.ss.active.getRange(2, 3).activate();
    await page.click('#row-history-run');
    await expect.poll(() => page.textContent('#row-history-msg')).toBe('Row 2, UKM-1000-0001: the last 2 results');
    const cells = await page
      .locator('#row-history tr')
      .evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (c) => (c as unknown as { innerText: string }).innerText)));
    expect(cells.map((r) => r.slice(1))).toEqual([
      ['Status', 'What changed'],
      ['unverified', 'status verified -> unverified; now expired'],
      ['verified', '(the oldest shown)'],
    ]);
    expect(cells[1]![0]).toMatch(/^2031-01-04 \d\d:\d\d\nwatch$/);
    await scrollTo(page, '#row-history-title');
    for (const file of docScreenshotPaths(ROOT, 'sidebar-row-history.png')) await page.screenshot({ path: file });

    await item.locator('button.watch-delete').click();
    await expect.poll(() => page.textContent('#watch-list')).toBe('None');
    expect(await page.evaluate('window.__asked')).toEqual(['Delete this watch with its runs and changes? This cannot be undone.']);
    expect(
      (
        (await (await fetch(`${conn.url}/api/v1/watches`, { headers: { authorization: `Bearer ${conn.keys.live}` } })).json()) as {
          watches: unknown[];
        }
      ).watches,
    ).toEqual([]);
    await page.close();
  }, 90_000);

  it('more than 10,000 rows: the message, and nothing sent', async () => {
    const h = addon('browser-watch-sheet-002', conn.keys.sandbox!);
    h.ss.active.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    h.ss.active
      .getRange(2, 1, 10_001, 3)
      .setValues(
        Array.from({ length: 10_001 }, (_, i) => [
          `UKM-${1000 + Math.floor(i / 10_000)}-${String(i % 10_000).padStart(4, '0')}`,
          'UK',
          'motor',
        ]),
      );
    const page = await sidebar(h);
    await page.click('#tab-watches');
    await expect.poll(() => page.inputValue('#watch-map-policy_number')).toBe('1');
    const n = h.stats.log.length;
    await page.click('#watch-create');
    await expect
      .poll(() => page.textContent('#watch-msg'), { timeout: 20_000 })
      .toBe(
        '10,001 policies are selected; a watch holds at most 10,000. Select fewer rows and watch the rest as a second watch. Nothing was sent.',
      );
    expect(await page.getAttribute('#watch-msg', 'class')).toBe('msg error');
    expect(h.stats.log.slice(n).filter((l) => l.url.includes('/watches') && l.method === 'POST')).toEqual([]);
    expect(await page.isDisabled('#watch-create')).toBe(false);
    await page.close();
  }, 60_000);

  it("every text of the tabs and the Watch section in the user's language (DE, FR)", async () => {
    const h = addon('browser-watch-sheet-003', conn.keys.sandbox!);
    h.ss.active.getRange(1, 1, 2, 3).setValues([
      ['Policy number', 'Country', 'Type'],
      ['UKM-1000-0001', 'UK', 'motor'],
    ]);
    for (const lang of ['de', 'fr'] as const) {
      h.world.user(h.user).locale = lang;
      const texts = LANGUAGE_PACKS[lang].addon.sidebar as Record<string, string>;
      const page = await sidebar(h);
      await page.click('#tab-watches');
      const marked = (await page.$$eval('#tabs [data-t], #watches [data-t]', (els) =>
        els.map((e) => [e.getAttribute('data-t'), e.textContent]),
      )) as [string, string][];
      expect(marked.length).toBeGreaterThan(20);
      for (const [key, text] of marked) expect(text, key).toBe(texts[key]);
      const labels = (await page.$$eval('#tabs[data-t-label], #watches [data-t-label]', (els) =>
        els.map((e) => [e.getAttribute('data-t-label'), e.getAttribute('aria-label')]),
      )) as [string, string][];
      expect(labels.map(([k]) => k).sort()).toEqual(['tabsLabel', 'watchWebhookUrl']);
      for (const [key, text] of labels) expect(text, key).toBe(texts[key]);
      await expect
        .poll(() => page.textContent('#watch-range'))
        .toBe(texts.rowsRange!.replace('{sheet}', 'Sheet1').replace('{first}', '2').replace('{last}', '2'));
      await page.close();
    }
  }, 60_000);

  it('accessibility: contrast >= 4.5:1 and every control reached by Tab with a visible ring, the list and the history shown', async () => {
    const h = addon('browser-watch-sheet-004', conn.keys.sandbox!);
    h.ss.active.getRange(1, 1, 2, 3).setValues([
      ['Policy number', 'Country', 'Type'],
      ['UKM-1000-0001', 'UK', 'motor'],
    ]);
    // The Verify view with the tabs above it.
    const rows = await sidebar(h);
    await expect.poll(() => rows.inputValue('#map-policy_number')).toBe('1');
    const rowsTexts = await lowContrast(rows);
    const rowsTab = await tabThrough(rows);
    expect(rowsTab.reached[0]!.el).toMatch(/^button#tab-rows@/);
    expect({
      low: rowsTexts.low,
      noRing: rowsTab.reached.filter((f) => f.style === 'none' || f.width < 2 || f.ring < 3).map((f) => f.el),
      missed: rowsTab.missed,
    }).toEqual({ low: [], noRing: [], missed: [] });
    await rows.close();

    const page = await sidebar(h, 1600);
    // Through the page's own functions, not clicks: a click would move where Tab starts from.
    await page.evaluate(`showTab('watches'); $('watch-hook').checked = true; $('watch-hook-url').hidden = false;`);
    await expect.poll(() => page.inputValue('#watch-map-policy_number')).toBe('1');
    await page.evaluate(`say($('watch-msg'), 'The webhook URL must start with https://. Nothing was sent.', true);
      $('watch-connect').hidden = false; $('watch-binding').className = 'error'; $('watch-binding').textContent = 'Connect this spreadsheet first.';
      showWatches([{ id: 'wat_1', status: 'paused', cadence: 'weekly', windowDays: 30, policies: 12, origin: { sheet: 'Fleet', first: 2, last: 14 },
        report: { sheet: 'Fleet', thisSpreadsheet: true, email: true, webhook: 'https://ops.example.com/h' }, nextRunAt: null, projectedCredits: 60, rechecksPending: 2,
        lastRun: { runId: 'r', at: '2031-01-04T09:00:00Z', status: 'stopped', stopReason: 'credits exhausted for this billing period', policies: 12, checked: 7, changed: 6, credits: 7 },
        changes: [{ row: 3, policy: 'UKM-1000-0001', before: 'verified', after: 'unverified', why: 'cover ended 2030-12-31' }, { row: null, policy: 'KFZ-5441-000004', before: 'verified', after: 'verified', why: 'cover ends 2031-01-31, within 30 days' }], moreChanges: 4 }]);
      showRowHistory({ sheet: 'Fleet', row: 3, policy: 'UKM-1000-0001', more: true, flagLabels: { expired: 'expired' }, entries: [
        { at: '2031-01-04T09:00:00Z', source: 'watch', status: 'unverified', confidence: 0.4, insurer: 'Aviva', changes: [{ what: 'status', from: 'verified', to: 'unverified' }, { what: 'flag_added', from: null, to: 'expired' }] },
        { at: '2030-12-10T09:00:00Z', source: 'batch', status: 'verified', confidence: 0.95, insurer: 'Aviva', changes: [] },
        { at: '2030-12-01T09:00:00Z', source: 'sync', status: 'inconclusive', confidence: 0.5, insurer: null, changes: null }] });`);
    const texts = await lowContrast(page);
    expect(texts.checked).toBeGreaterThan(20);
    const tab = await tabThrough(page);
    const noRing = tab.reached
      .filter((f) => f.style === 'none' || f.width < 2 || f.ring < 3)
      .map((f) => `${f.el} (${f.style} ${f.width}px, ${f.ring.toFixed(2)}:1)`);
    expect({ low: texts.low, noRing, missed: tab.missed }).toEqual({ low: [], noRing: [], missed: [] });
    // The tabs: arrow keys move between them, and only the selected one is in the Tab order.
    await page.focus('#tab-watches');
    await page.keyboard.press('ArrowLeft');
    expect(await page.evaluate('document.activeElement.id')).toBe('tab-rows');
    expect(await page.isVisible('#rows')).toBe(true);
    expect(await page.getAttribute('#tab-watches', 'tabindex')).toBe('-1');
    await page.close();
  }, 60_000);
});
