/**
 * The PDF flow under the drive.file scope (Google Picker grants the file, the Drive API reads it
 * with ScriptApp.getOAuthToken()) against a connector that runs extraction (a real worker pool),
 * and 429 handling against one with a tiny per-key rate limit. Each connector runs in its own
 * child process. The Picker's browser side is tested in sidebar-browser.test.ts, several files at
 * once in pdf-bulk.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, ROOT, type SyncHttp, type ChildConnector, type Harness, type HarnessOptions } from './harness.js';

let rig: AddonRig<'extracting' | 'limited'>;
let extracting: ChildConnector;
let limited: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    extracting: {
      extraction: true,
      keys: { live: { mode: 'live', credits: 100 }, noExtract: { mode: 'live', credits: 100, scopes: ['verify'] } },
    },
    limited: { env: { COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '3' }, keys: { live: { mode: 'live', credits: 100 } } },
  });
  ({ http, extracting, limited } = rig);
}, 90_000);

afterAll(async () => {
  await rig?.stop();
});

const PDF = '1AbCdEfGhIjKlMnOp002';
const TXT = '1AbCdEfGhIjKlMnOpTXT';
const BIG = '1AbCdEfGhIjKlMnOpBIG';
const OTHER = '1AbCdEfGhIjKlMnOpOTH';
const drive = {
  [PDF]: { path: path.join(ROOT, 'test/fixtures/policies/003.pdf') },
  [TXT]: { path: path.join(ROOT, 'package.json'), mimeType: 'text/plain' },
  [BIG]: { bytes: new Uint8Array(15 * 1024 * 1024), name: 'scan.pdf', mimeType: 'application/pdf' },
  [OTHER]: { path: path.join(ROOT, 'test/fixtures/policies/003.pdf'), name: 'not-picked.pdf' },
};
const PICKER = { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' };
const addon = (opts: HarnessOptions = {}) =>
  loadAddon(http, { connector: extracting.url, drive, scriptProperties: PICKER, cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER, ...opts });
type V = any;
/** The add-on's entry points by name, including those harness.ts does not list. */
const fn = (h: Harness, name: string, ...args: unknown[]): V =>
  (h.fns as unknown as Record<string, (...a: unknown[]) => V>)[name]!(...args);
/** The sidebar's loop for a queue of one file: upload it, then poll until the connector has read it. */
function extractOne(h: Harness): V {
  let v = fn(h, 'pollPdfQueue');
  if (v.next !== null) v = fn(h, 'uploadNextPdf', v.next);
  // Up to 60 s: the first extraction starts the extraction process, slow on a loaded machine.
  for (let i = 0; i < 240 && !v.finished; i++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    v = fn(h, 'pollPdfQueue');
  }
  return v.files[0];
}

describe('extract from a Drive PDF chosen in Google Picker', () => {
  it('the sidebar opens the Picker dialog; the picked file is queued, read through the Drive API, uploaded, polled, and appended under matching headers with its link', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: extracting.keys.live });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 5).setValues([['Insurer', 'Policy number', 'Notes', 'Start date', 'End date']]);
    s.getRange(2, 1, 1, 5).setValues([['existing', 'row', '', '', '']]);

    const { pickId } = h.fns.showPdfPicker();
    expect(h.ui.dialogs.at(-1)).toMatchObject({ title: 'Choose a policy PDF', modal: true });
    expect(h.ui.dialogs.at(-1)!.out.getContent()).toContain(`data-pick="${pickId}"`);
    // The Picker is built with multi-select and setMaxItems(50).
    expect(h.ui.dialogs.at(-1)!.out.getContent()).toContain('data-max="50"');
    expect(h.fns.getPick(pickId)).toEqual({ state: 'waiting', beats: 0 });
    // The dialog's heartbeats, counted while the pick waits: the sidebar stops waiting when they stop (a dialog closed with its x runs no code).
    h.fns.pickerAlive(pickId);
    expect(h.fns.pickerAlive(pickId)).toEqual({ state: 'waiting', beats: 1 });
    expect(h.fns.getPick(pickId)).toEqual({ state: 'waiting', beats: 2 });
    const config = h.fns.getPickerConfig();
    expect(config).toEqual({ token: expect.stringMatching(/^ya29\./), developerKey: 'AIza-test-key', appId: '123456789012' });

    // What Google Picker does when the user picks the file (with setAppId: the project number).
    expect(h.world.drive.grantPick(h.user, PDF, config.appId)).toBe(true);
    const picked = h.fns.pickedPdf(pickId, [{ id: PDF, name: '003.pdf' }]);
    expect(picked).toEqual({ state: 'picked', files: 1 });
    expect(h.fns.getPick(pickId)).toEqual(picked);
    // Queued only: the dialog closes at once, the sidebar's next call uploads.
    expect(h.world.drive.calls).toEqual([]);
    const f = extractOne(h);
    expect(h.world.drive.calls).toEqual([
      `GET /drive/v3/files/${PDF}?fields=id,name,mimeType,size&supportsAllDrives=true`,
      `GET /drive/v3/files/${PDF}?alt=media&supportsAllDrives=true`,
    ]);
    expect(f).toMatchObject({ state: 'done', row: 3, message: 'Row 3: 7 fields found.' });
    // 003.json is the ground truth of the corpus document.
    expect(s.row(3).slice(0, 5)).toEqual(['MATMUT ASSURANCES', 'PO-730265-62', '', '2025-12-01', '2026-11-30']);
    // Every value is at or above the review threshold: written at once, the cover level in a column of its own, in words; the file linked.
    expect(s.row(1).slice(5)).toEqual(['Insurance type', 'Vehicle registration', 'Cover level', 'Drive file']);
    expect(s.row(3).slice(5)).toEqual(['motor', 'HB-929-HH', 'Third party, fire and theft', '003.pdf']);
    expect(s.link(3, 9)).toBe(`https://drive.google.com/file/d/${PDF}/view`);
    expect(s.row(2)[0]).toBe('existing');

    // A link to the same file works from now on: a new list, the file queued; cancelling a pick says so.
    expect(fn(h, 'addPdfLinks', `https://drive.google.com/file/d/${PDF}/view?usp=sharing`).files).toMatchObject([
      { name: '003.pdf', state: 'queued' },
    ]);
    const second = h.fns.showPdfPicker().pickId;
    h.fns.pickCancelled(second);
    expect(h.fns.getPick(second)).toEqual({ state: 'cancelled' });
    // A pick the sidebar stopped waiting for: the dialog's next heartbeat learns it (and closes), a late pick is not queued.
    expect(h.fns.pickerAlive(second)).toEqual({ state: 'cancelled' });
    expect(h.fns.pickedPdf(second, [{ id: PDF, name: '003.pdf' }])).toEqual({
      state: 'failed',
      error: 'The sidebar stopped waiting for this dialog: choose the files again from the sidebar.',
    });
    expect(fn(h, 'pollPdfQueue').files).toHaveLength(1);
  }, 90_000);

  it('drive.file: a pasted link to a file never picked is refused with advice; a wrong app id grants nothing, so its upload fails', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: extracting.keys.live });
    const advice =
      'Covercheck can open only the files you choose with "Choose from Drive" (it has no access to the rest of your Drive). Choose the file there.';
    expect(() => fn(h, 'addPdfLinks', OTHER)).toThrow(advice);
    expect(h.world.drive.grantPick(h.user, OTHER, '999')).toBe(false);
    expect(h.fns.pickedPdf(h.fns.showPdfPicker().pickId, [{ id: OTHER, name: 'not-picked.pdf' }])).toEqual({ state: 'picked', files: 1 });
    expect(extractOne(h)).toMatchObject({ state: 'failed', message: advice });
    expect(h.stats.log.filter((l) => l.url.startsWith(CONNECTOR))).toEqual([]);
  });

  it('refuses a non-PDF, a PDF over 14 MB before downloading it, a bad link, a key without extract, and an unconfigured Picker', () => {
    const h = addon();
    h.fns.saveSettings({ url: CONNECTOR, key: extracting.keys.live });
    for (const id of [TXT, BIG, PDF]) h.world.drive.grantPick(h.user, id, PICKER.CLOUD_PROJECT_NUMBER);
    expect(() => fn(h, 'addPdfLinks', TXT)).toThrow(/package\.json is not a PDF \(text\/plain\)/);
    expect(() => fn(h, 'addPdfLinks', BIG)).toThrow('scan.pdf is 15.0 MB; the connector reads PDFs up to 14 MB.');
    expect(h.world.drive.calls.filter((c) => c.includes('alt=media'))).toEqual([]);
    expect(() => fn(h, 'addPdfLinks', 'not a link')).toThrow(/Paste a Drive file URL/);
    expect(h.stats.log.filter((l) => l.url.startsWith(CONNECTOR))).toEqual([]);
    h.fns.saveSettings({ url: CONNECTOR, key: extracting.keys.noExtract });
    fn(h, 'addPdfLinks', PDF);
    expect(extractOne(h)).toMatchObject({ state: 'failed', message: expect.stringMatching(/^This API key may not do that \(403\)/) });
    const bare = addon({ scriptProperties: {} });
    expect(() => bare.fns.getPickerConfig()).toThrow(/script properties PICKER_DEVELOPER_KEY and CLOUD_PROJECT_NUMBER are missing/);
  });
});

describe('429', () => {
  it('a custom function that would have to wait past its 30 s budget does not wait: it says when to retry', () => {
    const h = loadAddon(http, { connector: limited.url });
    h.fns.saveSettings({ url: CONNECTOR, key: limited.keys.live });
    h.fns.grantKeyToSpreadsheet(true);
    // Three calls a minute: the grant's account check, then one call per single cell.
    expect(h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toBe('verified');
    expect(h.fns.VERIFYPOLICY('UKM-1000-0002', 'UK', 'motor')).toBe('unverified');
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0003', 'UK', 'motor')).toThrow(/^Rate limited by the connector: try again in \d+ s\.$/);
    expect(h.stats.log.map((l) => l.status)).toEqual([200, 200, 200, 429]);
    expect(h.stats.sleptMs).toBeLessThan(1000);
  });
});
