/**
 * Bulk extraction in headless Chromium: the PDF sidebar and the Picker dialog as HtmlService renders them,
 * wired by a google.script.run bridge to the add-on on the Apps Script stand-ins, against a connector child
 * that runs extraction; apis.google.com/js/api.js is answered with standin/picker-standin.js. Three files are
 * picked at once; the sidebar shows each one's progress, writes one row per file with a link to its Drive
 * file, and offers the review of the file read below 0.9. Screenshot: sidebar-bulk-pdf.png (docs/images/ with COVERCHECK_DOC_SCREENSHOTS=1).
 * The Picker stand-in's own rules (one file without MULTISELECT_ENABLED, at most setMaxItems, only picked
 * files granted) are broken on purpose here too, on a probe page.
 */
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_PACKS } from '../../shared/packs/index.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { docScreenshotPaths, launchChromium, SKIP_BROWSER } from '../helpers/browser.js';
import { GAS_RUN_BRIDGE, openAddonHtml, PICKER_STANDIN } from './browser-bridge.js';
import { lowContrast, tabThrough } from './a11y-audit.js';
import { CONNECTOR, loadAddon, ROOT, type ChildConnector, type Harness, type SyncHttp } from './harness.js';
import { DriveStandin } from './standin/drive.js';

const PICKER = { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' };
let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;
let browser: Browser;

beforeAll(async () => {
  if (SKIP_BROWSER) return;
  rig = await startAddonRig({ conn: { extraction: true, keys: { live: { mode: 'live', credits: 100 } } } });
  ({ http, conn } = rig);
  browser = await launchChromium();
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await rig?.stop();
});

const BRIDGE = `${GAS_RUN_BRIDGE}
window.google.script.host = { origin: location.origin, close: () => window.__hostClose() };
// Every state each file of the list passes through, in order, by entry.
window.__states = {};
document.addEventListener('DOMContentLoaded', () => {
  const seen = (li) => { const e = li.getAttribute('data-entry'), s = li.getAttribute('data-state'); const l = (window.__states[e] = window.__states[e] || []); if (l[l.length - 1] !== s) l.push(s); };
  const list = document.getElementById('pdf-files');
  if (list) new MutationObserver(() => list.querySelectorAll('li[data-entry]').forEach(seen)).observe(list, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-state'] });
});`;

/** HTML the add-on showed (the sidebar or the Picker dialog), wired to the add-on as `h`'s user. */
const openHtml = (h: Harness, html: string, size?: { width: number; height: number }) => openAddonHtml(browser, h, html, BRIDGE, size);

const FIXTURE = (n: string) => path.join(ROOT, `test/fixtures/policies/${n}.pdf`);
const IDS = {
  a: '1AbCdEfGhIjKlMnOpA03',
  b: '1AbCdEfGhIjKlMnOpB06',
  c: '1AbCdEfGhIjKlMnOpC01',
  big: '1AbCdEfGhIjKlMnOpBIG',
  other: '1AbCdEfGhIjKlMnOpOTH',
};

describe.skipIf(SKIP_BROWSER)('bulk PDF extraction in Chromium', () => {
  it('four files picked at once: each shows its progress, each read gets one row linked to its Drive file, the one read below 0.9 waits for review, one too large fails saying why', async () => {
    const h = loadAddon(http, {
      connector: conn.url,
      drive: {
        [IDS.a]: { path: FIXTURE('003'), name: 'matmut-motor.pdf' },
        [IDS.b]: { path: FIXTURE('006'), name: 'travel-schedule.pdf' },
        [IDS.c]: { path: FIXTURE('001'), name: 'certificate-001.pdf' },
        [IDS.big]: { bytes: new Uint8Array(15 * 1024 * 1024), name: 'scan-too-big.pdf', mimeType: 'application/pdf' },
        [IDS.other]: { path: FIXTURE('003'), name: 'not-picked.pdf' },
      },
      scriptProperties: PICKER,
      cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER,
    });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 5).setValues([['Policy number', 'Insurer', 'Start date', 'End date', 'Drive file']]);
    h.fns.showPdfSidebar();
    const sidebar = await openHtml(h, h.ui.sidebars.at(-1)!.getContent());
    await sidebar.click('#pdf-pick');
    await expect.poll(() => h.ui.dialogs.length).toBe(1);
    const dialog = await openHtml(h, h.ui.dialogs[0]!.out.getContent(), { width: 760, height: 520 });
    await dialog.waitForSelector('#picker-files a');
    for (const id of [IDS.a, IDS.b, IDS.c, IDS.big]) {
      // A Picker without multi-select picks the first file clicked and goes: the others can't be clicked.
      if (await dialog.isVisible('#picker-standin')) await dialog.click(`#picker-files a[data-id="${id}"]`);
    }
    if (await dialog.isVisible('#picker-standin-select')) await dialog.click('#picker-standin-select');
    await expect.poll(() => dialog.closed()).toBe(true);

    // One row per file: two read at or above 0.9 are written as they come; 006 waits for its review.
    await expect.poll(() => s.getLastRow(), { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
    await expect
      .poll(() => sidebar.$$eval('#pdf-files li[data-entry]', (lis) => lis.map((li) => li.getAttribute('data-state'))), { timeout: 90_000 })
      .toEqual(expect.arrayContaining(['done', 'review']));
    const states = (await sidebar.$$eval('#pdf-files li[data-entry]', (lis) =>
      lis.map((li) => [li.querySelector('.file-name')!.textContent, li.getAttribute('data-state')]),
    )) as [string, string][];
    expect(states.map(([n]) => n)).toEqual(['matmut-motor.pdf', 'travel-schedule.pdf', 'certificate-001.pdf', 'scan-too-big.pdf']);
    expect(Object.fromEntries(states)['travel-schedule.pdf']).toBe('review');
    // Failed, with the reason under its name; nothing of it was downloaded or sent.
    await expect.poll(() => sidebar.getAttribute(`#pdf-files li[data-entry="4"]`, 'data-state')).toBe('failed');
    expect(await sidebar.textContent('#pdf-files li[data-entry="4"] .file-status')).toBe(
      'scan-too-big.pdf is 15.0 MB; the connector reads PDFs up to 14 MB.',
    );
    expect(await sidebar.getAttribute('#pdf-files li[data-entry="4"] .file-status', 'class')).toBe('file-status error');
    // The review opens by itself for the first file waiting for one.
    await expect.poll(() => sidebar.isVisible('#pdf-review')).toBe(true);
    expect(await sidebar.textContent('#pdf-review-file')).toBe('travel-schedule.pdf');
    // Progress per file: every file was queued or went straight to uploading, then reading, then done or review.
    const seen = (await sidebar.evaluate('window.__states')) as Record<string, string[]>;
    expect(Object.keys(seen)).toHaveLength(4);
    expect(seen['4']!.at(-1)).toBe('failed');
    for (const trail of Object.values(seen).slice(0, 3)) {
      expect(trail).toEqual(expect.arrayContaining(['uploading', 'reading']));
      expect(trail.indexOf('uploading')).toBeLessThan(trail.indexOf('reading'));
      expect(['done', 'review']).toContain(trail.at(-1));
    }
    expect(Object.values(seen).some((t) => t[0] === 'queued')).toBe(true);
    await expect.poll(() => sidebar.getAttribute('#pdf-progress', 'aria-valuenow')).toBe('100');
    expect(await sidebar.textContent('#pdf-msg')).toBe('4 files: 2 written, 1 to check, 1 failed.');
    // Readable and reachable: every text 4.5:1, every control (the file links, "Check values", the review) by Tab with a ring.
    const texts = await lowContrast(sidebar);
    expect(texts.low).toEqual([]);
    // Tabbing starts from the top (the last click left the starting point at "Choose from Drive…").
    await sidebar.click('#pdf h1');
    const tab = await tabThrough(sidebar);
    expect(tab.missed).toEqual([]);
    expect(tab.reached.filter((f) => f.style === 'none' || f.width < 2 || f.ring < 3)).toEqual([]);
    await sidebar.setViewportSize({ width: 320, height: 1040 });
    // The bar's width eases over 0.2 s (styles.css): the picture waits for it.
    await sidebar.waitForTimeout(300);
    for (const file of docScreenshotPaths(ROOT, 'sidebar-bulk-pdf.png')) await sidebar.screenshot({ path: file });

    // The review, for this file: tick every low value, write; then every file has its row.
    for (const box of await sidebar.$$('#pdf-review-items tr.low input[type=checkbox]')) await box.check();
    await sidebar.click('#pdf-review-write');
    await expect
      .poll(() => sidebar.$$eval('#pdf-files li[data-entry]', (lis) => lis.map((li) => li.getAttribute('data-state'))), { timeout: 30_000 })
      .toEqual(['done', 'done', 'done', 'failed']);
    expect(s.getLastRow()).toBe(4);
    const header = s.row(1);
    const fileCol = header.indexOf('Drive file') + 1;
    const byFile = new Map<string, string>();
    for (let r = 2; r <= 4; r++) byFile.set(String(s.get(r, fileCol)), s.link(r, fileCol) ?? '');
    expect(Object.fromEntries(byFile)).toEqual({
      'matmut-motor.pdf': `https://drive.google.com/file/d/${IDS.a}/view`,
      'travel-schedule.pdf': `https://drive.google.com/file/d/${IDS.b}/view`,
      'certificate-001.pdf': `https://drive.google.com/file/d/${IDS.c}/view`,
    });
    const matmut = [...byFile.keys()].indexOf('matmut-motor.pdf') + 2;
    expect(s.row(matmut).slice(0, 4)).toEqual(['PO-730265-62', 'MATMUT ASSURANCES', '2025-12-01', '2026-11-30']);
    // Each file's list entry links to its row's file in Drive too; the file not picked was never read.
    expect(await sidebar.getAttribute(`#pdf-files li[data-entry] a.file-name`, 'href')).toBe(
      `https://drive.google.com/file/d/${IDS.a}/view`,
    );
    expect(h.world.drive.calls.some((c) => c.includes(IDS.other))).toBe(false);
    expect(h.world.drive.calls.filter((c) => c.includes('alt=media') && c.includes(IDS.big))).toEqual([]);
    expect(h.stats.log.filter((l) => l.method === 'POST' && l.url.endsWith('/api/v1/documents/extract')).map((l) => l.status)).toEqual([
      202, 202, 202,
    ]);
    await Promise.all([dialog.close(), sidebar.close()]);
  }, 180_000);
});

/** Every text the list and the message line show over a run, recorded as it appears (states last a moment). */
const RECORD_TEXTS = `window.__texts = [];
new MutationObserver(() => {
  document.querySelectorAll('#pdf-msg, #pdf-files .file-status, #pdf-files button').forEach((el) => {
    const t = el.textContent;
    if (t && window.__texts.indexOf(t) < 0) window.__texts.push(t);
  });
}).observe(document.getElementById('pdf'), { subtree: true, childList: true, characterData: true, attributes: true });`;

/**
 * Words of the English texts of the list and its messages (and a pack key shown for a text missing in the
 * pack), to find any left in a German or French run once the file names are taken out.
 */
const ENGLISH =
  /\b(queued|uploading|reading|written|failed|discarded|check|checked|files?|rows?|fields?|found|values?|need|being|nothing|next|upload|by you|sheet)\b|\bpdf[A-Z]\w+/i;

describe.skipIf(SKIP_BROWSER)("bulk extraction in the user's language", () => {
  // What the run ends on, by language: the review's file written after its check, then the list in a sentence.
  const LAST: Record<'de' | 'fr', RegExp> = {
    de: /^police-b\.pdf: Zeile 3: \d+ Felder gefunden\. \d+ davon von Ihnen geprüft\.\n2 Dateien: 2 geschrieben\.$/,
    fr: /^police-b\.pdf : Ligne 3 : \d+ champs trouvés\. \d+ vérifiés? par vous\.\n2 fichiers : 2 écrits\.$/,
  };
  const CHECK: Record<'de' | 'fr', string> = { de: 'Werte prüfen', fr: 'Vérifier les valeurs' };

  for (const lang of ['de', 'fr'] as const) {
    it(`${lang.toUpperCase()}: two files picked at once show no English state or message, from queued to written after the check`, async () => {
      const ids = { a: `1AbCdEfGhIjKlMnOp${lang}A`, b: `1AbCdEfGhIjKlMnOp${lang}B` };
      const h = loadAddon(http, {
        connector: conn.url,
        drive: { [ids.a]: { path: FIXTURE('003'), name: 'police-a.pdf' }, [ids.b]: { path: FIXTURE('006'), name: 'police-b.pdf' } },
        scriptProperties: PICKER,
        cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER,
      });
      h.world.user(h.user).locale = lang;
      h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
      h.fns.showPdfSidebar();
      const sidebar = await openHtml(h, h.ui.sidebars.at(-1)!.getContent());
      await sidebar.evaluate(RECORD_TEXTS);
      await sidebar.click('#pdf-pick');
      await expect.poll(() => h.ui.dialogs.length).toBe(1);
      const dialog = await openHtml(h, h.ui.dialogs[0]!.out.getContent(), { width: 760, height: 520 });
      await dialog.waitForSelector('#picker-files a');
      for (const id of [ids.a, ids.b]) await dialog.click(`#picker-files a[data-id="${id}"]`);
      await dialog.click('#picker-standin-select');
      await expect.poll(() => dialog.closed()).toBe(true);

      // 003 is written as read; 006 waits for its check, which opens by itself.
      await expect
        .poll(() => sidebar.$$eval('#pdf-files li[data-entry]', (lis) => lis.map((li) => li.getAttribute('data-state'))), {
          timeout: 90_000,
        })
        .toEqual(['done', 'review']);
      expect.soft(await sidebar.textContent('#pdf-files li[data-entry="2"] button')).toBe(CHECK[lang]);
      expect.soft(await sidebar.getAttribute('#pdf-files', 'aria-label')).toBe(LANGUAGE_PACKS[lang].addon.sidebar.pdfFiles);
      await expect.poll(() => sidebar.isVisible('#pdf-review')).toBe(true);
      for (const box of await sidebar.$$('#pdf-review-items tr.low input[type=checkbox]')) await box.check();
      await sidebar.click('#pdf-review-write');
      await expect
        .poll(() => sidebar.$$eval('#pdf-files li[data-entry]', (lis) => lis.map((li) => li.getAttribute('data-state'))), {
          timeout: 30_000,
        })
        .toEqual(['done', 'done']);
      expect.soft(await sidebar.textContent('#pdf-msg')).toMatch(LAST[lang]);

      const seen = (await sidebar.evaluate('window.__texts')) as string[];
      // Every state the list passed through was seen: queued or uploading, reading, written, to check.
      expect(seen.length).toBeGreaterThan(5);
      expect(seen).toContain(LANGUAGE_PACKS[lang].addon.sidebar.pdfStateReading);
      const english = seen.filter((t) => ENGLISH.test(t.replace(/police-[ab]\.pdf/g, '')));
      expect(english).toEqual([]);
      await Promise.all([dialog.close(), sidebar.close()]);
    }, 120_000);
  }
});

describe.skipIf(SKIP_BROWSER)('the Picker stand-in keeps the Picker reference: a probe page breaks each rule on purpose', () => {
  const files = ['f1', 'f2', 'f3', 'f4'].map((id) => `1AbCdEfGhIjKlMnOp0${id}`) as [string, string, string, string];
  /** A page that builds a Picker with `builder` (code run on a PickerBuilder `b`) and records its callbacks. */
  async function probe(builder: string): Promise<{ page: Page; drive: DriveStandin; token: string }> {
    const drive = new DriveStandin(
      Object.fromEntries(files.map((id, i) => [id, { bytes: new Uint8Array([i]), name: `p${i + 1}.pdf` }])),
      '42',
    );
    const token = 'ya29.probe';
    drive.tokens.set(token, { user: 'alice@example.com', scopes: ['https://www.googleapis.com/auth/drive.file'] });
    const page = await browser.newPage();
    await page.route('https://apis.google.com/js/api.js**', (r) => r.fulfill({ contentType: 'text/javascript', body: PICKER_STANDIN }));
    await page.exposeFunction('__pickerFiles', (t: string, mime: string | null) =>
      drive.listFor(drive.tokens.get(t)!.user, mime ?? undefined),
    );
    await page.exposeFunction('__pickerGrant', (t: string, appId: string | null, id: string) =>
      drive.grantPick(drive.tokens.get(t)!.user, id, appId),
    );
    await page.setContent(
      `<body><script>window.__picked = []; function onApiLoad() { gapi.load('picker', { callback: function () {
        var b = new google.picker.PickerBuilder().addView(new google.picker.DocsView().setMimeTypes('application/pdf')).setOAuthToken('${token}').setDeveloperKey('k').setAppId('42')
          .setCallback(function (d) { window.__picked.push(d); });
        ${builder}
        b.build().setVisible(true); } }); }</script><script src="https://apis.google.com/js/api.js?onload=onApiLoad"></script></body>`,
    );
    await page.waitForSelector('#picker-files a');
    return { page, drive, token };
  }
  const picked = (page: Page) =>
    page.evaluate('window.__picked.map(function (d) { return (d.docs || []).map(function (x) { return x.id; }); })');

  it('without MULTISELECT_ENABLED a pick is one file: the first click picks it and the Picker goes', async () => {
    const { page, drive } = await probe('');
    await page.click(`#picker-files a[data-id="${files[0]}"]`);
    await expect.poll(() => picked(page)).toEqual([[files[0]]]);
    expect(await page.isVisible('#picker-standin')).toBe(false);
    expect([...drive.grants]).toEqual([`alice@example.com ${files[0]}`]);
    await page.close();
  });

  it('with MULTISELECT_ENABLED and setMaxItems(2): a third file is not selected, the callback carries two, only they are granted', async () => {
    const { page, drive } = await probe('b.enableFeature(google.picker.Feature.MULTISELECT_ENABLED).setMaxItems(2);');
    for (const id of files.slice(0, 3)) await page.click(`#picker-files a[data-id="${id}"]`);
    expect(await page.textContent('#picker-standin-note')).toBe('You can select up to 2 items.');
    expect(await page.getAttribute(`#picker-files a[data-id="${files[2]}"]`, 'aria-pressed')).toBe('false');
    // Unselecting one makes room again.
    await page.click(`#picker-files a[data-id="${files[1]}"]`);
    await page.click(`#picker-files a[data-id="${files[3]}"]`);
    await page.click('#picker-standin-select');
    await expect.poll(() => picked(page)).toEqual([[files[0], files[3]]]);
    expect([...drive.grants].sort()).toEqual([`alice@example.com ${files[0]}`, `alice@example.com ${files[3]}`]);
    // drive.file: a listed file that was not picked stays unreadable to the app.
    const token = [...drive.tokens.keys()][0]!;
    const get = (id: string) =>
      drive.handle({
        url: `https://www.googleapis.com/drive/v3/files/${id}?fields=id`,
        method: 'GET',
        headers: { Authorization: `Bearer ${token}` },
      }).status;
    expect([get(files[0]), get(files[1]), get(files[2]), get(files[3])]).toEqual([200, 404, 404, 200]);
    await page.close();
  });

  it('setMaxItems takes a whole number of at least 1', async () => {
    const { page } = await probe('');
    expect(
      await page.evaluate(
        '(function () { try { new google.picker.PickerBuilder().setMaxItems(0); return "built"; } catch (e) { return e.message; } })()',
      ),
    ).toBe('Picker: setMaxItems takes a whole number of at least 1');
    await page.close();
  });
});
