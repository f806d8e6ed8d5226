/**
 * The PDF sidebar's review step in headless Chromium: the sidebar as HtmlService renders it, with a
 * google.script.run bridge to the add-on on the Apps Script stand-ins against a connector that runs
 * extraction. A pasted link makes a queue of one file, whose review opens by itself. Every value is shown with its confidence; those below 90% are marked, and "Write to sheet"
 * stays disabled until each is ticked or corrected. Screenshot in test/artifacts/sidebar-pdf-review.png.
 * Skipped when /usr/bin/chromium is absent (outside CI), as sidebar-browser.test.ts is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, SKIP_BROWSER } from '../helpers/browser.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, ROOT, type SyncHttp, type ChildConnector, type Harness } from './harness.js';
import { exposeGasRun, GAS_RUN_BRIDGE } from './browser-bridge.js';

const ARTIFACTS = path.join(ROOT, 'test/artifacts');
let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  rig = await startAddonRig({ conn: { extraction: true, keys: { live: { mode: 'live', credits: 100 } } } });
  ({ http, conn } = rig);
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await rig?.stop();
});

async function openSidebar(h: Harness): Promise<Page> {
  h.fns.showPdfSidebar();
  const page = await browser.newPage({ viewport: { width: 320, height: 720 } });
  await page.route('https://ssl.gstatic.com/**', (r) => r.fulfill({ contentType: 'text/css', body: '' }));
  await exposeGasRun(page, h);
  await page.setContent(h.ui.sidebars.at(-1)!.getContent().replace('<script>', `<script>${GAS_RUN_BRIDGE}</script><script>`));
  return page;
}

const PDF = '1AbCdEfGhIjKlMnOp012';
const PICKER = { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' };

describe.skipIf(SKIP_BROWSER)('PDF review in Chromium', () => {
  it('shows every value with its confidence, marks those below 90%, writes nothing until each is ticked or corrected', async () => {
    const h = loadAddon(http, {
      connector: conn.url,
      drive: { [PDF]: { path: path.join(ROOT, 'test/fixtures/policies/006.pdf') } },
      scriptProperties: PICKER,
      cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER,
    });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    h.ss.active.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Start date']]);
    h.world.drive.grantPick(h.user, PDF, PICKER.CLOUD_PROJECT_NUMBER);
    const page = await openSidebar(h);
    await page.fill('#pdf-file', PDF);
    await page.click('#pdf-run');
    await expect
      .poll(() => page.textContent('#pdf-msg'), { timeout: 60_000 })
      .toMatch(/^\d+ of \d+ values need a check before they go into the sheet\.$/);
    await expect.poll(() => page.isVisible('#pdf-review')).toBe(true);
    expect(await page.textContent('#pdf-review-file')).toBe('006.pdf');

    const rows = await page.$$eval('#pdf-review-items tr[data-key]', (trs) =>
      trs.map((tr) => ({
        key: tr.getAttribute('data-key'),
        low: tr.className === 'low',
        conf: Number.parseInt(tr.children[2]!.textContent!, 10),
        input: !!tr.querySelector('input[type=text]'),
      })),
    );
    // 006, a French travel schedule: its start date is read below 0.9 (a close rival date), its number, insurer and type at or above.
    expect(rows.map((r) => r.key).slice(0, 5)).toEqual(['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date']);
    expect(rows.filter((r) => r.low).map((r) => r.key)).toContain('start_date');
    for (const r of rows) (expect(r.low, `${r.key} at ${r.conf}%`).toBe(r.conf < 90), expect(r.input).toBe(r.low));
    const low = rows.filter((r) => r.low);
    // Low rows are highlighted and badged.
    expect(await page.evaluate('getComputedStyle(document.querySelector("#pdf-review-items tr.low td")).backgroundColor')).toBe(
      'rgb(254, 247, 224)',
    );
    expect(await page.locator('#pdf-review-items tr.low .badge').count()).toBe(low.length);
    expect(await page.isDisabled('#pdf-review-write')).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-pdf-review.png'), fullPage: true });

    // The other low values ticked by hand: while the start date is unticked, nothing can be written; its correction ticks it.
    for (const r of low.filter((x) => x.key !== 'start_date'))
      await page.check(`#pdf-review-items tr[data-key="${r.key}"] input[type=checkbox]`);
    expect(await page.isDisabled('#pdf-review-write')).toBe(true);
    expect(h.ss.active.getLastRow()).toBe(1);
    await page.fill('#pdf-review-items tr[data-key="start_date"] input[type=text]', '2025-11-02');
    expect(await page.isChecked('#pdf-review-items tr[data-key="start_date"] input[type=checkbox]')).toBe(true);
    expect(await page.isDisabled('#pdf-review-write')).toBe(false);
    await page.click('#pdf-review-write');
    await expect
      .poll(() => page.textContent('#pdf-msg'))
      .toMatch(new RegExp(`^Row 2: ${rows.length} fields found\\. ${low.length} checked by you\\.$`));
    expect(h.ss.active.row(2)[0]).toBe('608478190');
    expect(h.ss.active.row(2)[2]).toBe('2025-11-02');
    // Written: the table stays as a record, without inputs.
    expect(await page.locator('#pdf-review-items input').count()).toBe(0);
    expect(await page.isVisible('#pdf-review-write')).toBe(false);
    await page.screenshot({ path: path.join(ARTIFACTS, 'sidebar-pdf-review-written.png'), fullPage: true });
    await page.close();
  }, 120_000);
});
