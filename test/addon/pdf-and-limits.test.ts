/**
 * The PDF flow against a connector that runs extraction (a real worker pool), and 429 handling
 * against one with a tiny per-key rate limit. Each connector runs in its own child process.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAddon, loadAddon, ROOT, startConnectorChild, SyncHttp, type ChildConnector } from './harness.js';

let extracting: ChildConnector;
let limited: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  buildAddon();
  http = new SyncHttp();
  [extracting, limited] = await Promise.all([
    startConnectorChild({ extraction: true, keys: { live: { mode: 'live', credits: 100 }, noExtract: { mode: 'live', credits: 100, scopes: ['verify'] } } }),
    startConnectorChild({ env: { COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '2' }, keys: { live: { mode: 'live', credits: 100 } } }),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([extracting?.stop(), limited?.stop()]);
  await http?.close();
});

const drive = { '1AbCdEfGhIjKlMnOp002': path.join(ROOT, 'test/fixtures/policies/002.pdf'), '1AbCdEfGhIjKlMnOpTXT': path.join(ROOT, 'package.json') };

describe('sidebar: extract from Drive PDF', () => {
  it('uploads a corpus PDF from Drive, polls the job and appends a row under matching headers', () => {
    const h = loadAddon(http, { drive });
    h.fns.saveSettings({ url: extracting.url, key: extracting.keys.live });
    const s = h.ss.getActiveSheet();
    s.getRange(1, 1, 1, 5).setValues([['Insurer', 'Policy number', 'Notes', 'Start date', 'End date']]);
    s.getRange(2, 1, 1, 5).setValues([['existing', 'row', '', '', '']]);
    const sub = h.fns.submitPdfExtraction('https://drive.google.com/file/d/1AbCdEfGhIjKlMnOp002/view?usp=sharing');
    expect(sub.fileName).toBe('002.pdf');
    expect(h.stats.log[0]).toMatchObject({ method: 'POST', status: 202 });
    let v = h.fns.pollPdfExtraction(sub.jobId);
    for (let i = 0; i < 60 && v.status === 'pending'; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      v = h.fns.pollPdfExtraction(sub.jobId);
    }
    expect(v).toMatchObject({ status: 'complete', row: 3 });
    // 002.json is the ground truth of the corpus document.
    expect(s.row(3).slice(0, 5)).toEqual(['HUK-COBURG-Allgemeine Versicherung AG', 'AS 249 998162', '', '2025-05-01', '2026-04-30']);
    expect(s.row(1).slice(5)).toEqual(['Insurance type', 'Vehicle registration']);
    expect(s.row(3).slice(5)).toEqual(['motor', 'BN-HB 6347']);
    expect(s.row(2)[0]).toBe('existing');
  }, 60_000);

  it('refuses a non-PDF, an unknown file, a bad link and a key without the extract scope', () => {
    const h = loadAddon(http, { drive });
    h.fns.saveSettings({ url: extracting.url, key: extracting.keys.live });
    expect(() => h.fns.submitPdfExtraction('1AbCdEfGhIjKlMnOpTXT')).toThrow(/package\.json is not a PDF/);
    expect(() => h.fns.submitPdfExtraction('1AbCdEfGhIjKlMnOpXXX')).toThrow(/No Drive file 1AbCdEfGhIjKlMnOpXXX/);
    expect(() => h.fns.submitPdfExtraction('not a link')).toThrow(/Paste a Drive file URL/);
    expect(h.stats.requests).toBe(0);
    h.fns.saveSettings({ url: extracting.url, key: extracting.keys.noExtract });
    expect(() => h.fns.submitPdfExtraction('1AbCdEfGhIjKlMnOp002')).toThrow(/^This API key may not do that \(403\)/);
  });
});

describe('429', () => {
  it('a custom function that would have to wait past its 30 s budget does not wait: it says when to retry', () => {
    const h = loadAddon(http);
    h.fns.saveSettings({ url: limited.url, key: limited.keys.live });
    h.fns.grantKeyToSpreadsheet(true);
    expect(h.fns.VERIFYPOLICY('UKM-1000-0001', 'UK', 'motor')).toBe('verified');
    expect(h.fns.VERIFYPOLICY('UKM-1000-0002', 'UK', 'motor')).toBe('unverified');
    expect(() => h.fns.VERIFYPOLICY('UKM-1000-0003', 'UK', 'motor')).toThrow(/^Rate limited by the connector: try again in \d+ s\.$/);
    expect(h.stats.log.map((l) => l.status)).toEqual([200, 200, 429]);
    expect(h.stats.sleptMs).toBe(0);
  });
});
