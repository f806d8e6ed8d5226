/**
 * The review step of "Extract from Drive PDF" through the add-on on the Apps Script stand-ins, against a
 * connector that runs extraction: values below REVIEW_CONFIDENCE wait for a person; nothing of the
 * extraction is written until each is confirmed or corrected. The sidebar side is in sidebar-review-browser.test.ts;
 * several files, each with its own review, in pdf-bulk.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_CONFIDENCE, reviewedValues, reviewItems } from '../../shared/review.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, ROOT, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

type V = any;
/** The add-on's entry points by name, including those harness.ts does not list. */
const fn = (h: Harness, name: string, ...args: unknown[]): V =>
  (h.fns as unknown as Record<string, (...a: unknown[]) => V>)[name]!(...args);

let rig: AddonRig<'extracting'>;
let extracting: ChildConnector;
let http: SyncHttp;
beforeAll(async () => {
  rig = await startAddonRig({ extracting: { extraction: true, keys: { live: { mode: 'live', credits: 100 } } } });
  ({ http, extracting } = rig);
}, 90_000);
afterAll(async () => {
  await rig?.stop();
});

// 006: a French travel schedule whose start date is read with a close rival date (under 0.9), while its
// number, insurer and type are read at or above 0.9. Which other values are low follows the extractor's
// calibration: if the start date is read at 0.9 or above, pick a fixture with a low value again.
const PDF = '1AbCdEfGhIjKlMnOp012';
const PICKER = { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' };

describe('review before writing', () => {
  it('low-confidence values are not written until confirmed; a correction is written as corrected, confident values as read', () => {
    const h = loadAddon(http, {
      connector: extracting.url,
      drive: { [PDF]: { path: path.join(ROOT, 'test/fixtures/policies/006.pdf') } },
      scriptProperties: PICKER,
      cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER,
    });
    h.fns.saveSettings({ url: CONNECTOR, key: extracting.keys.live });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Start date']]);
    h.world.drive.grantPick(h.user, PDF, PICKER.CLOUD_PROJECT_NUMBER);
    const { entry } = fn(h, 'addPdfLinks', PDF).files[0];
    fn(h, 'uploadNextPdf', entry);
    let q = fn(h, 'pollPdfQueue');
    for (let i = 0; i < 120 && !q.finished; i++) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
      q = fn(h, 'pollPdfQueue');
    }
    expect(q.files[0].state).toBe('review');
    const v = fn(h, 'reviewPdfFile', entry);
    expect(v.status).toBe('review');
    const low = v.items.filter((i: { needsReview: boolean }) => i.needsReview);
    expect(low.map((i: { key: string }) => i.key)).toContain('start_date');
    for (const i of v.items) expect(i.needsReview).toBe(i.confidence < REVIEW_CONFIDENCE);
    expect(v.message).toBe(`${low.length} of ${v.items.length} values need a check before they go into the sheet.`);
    // Nothing written yet.
    expect(s.getLastRow()).toBe(1);

    // Every low value but the start date confirmed (a value typed but not confirmed): nothing is written, and the message names it.
    const answers: Record<string, { value: string; confirmed: boolean }> = Object.fromEntries(
      low.map((i: { key: string; value: string }) => [i.key, { value: i.value, confirmed: true }]),
    );
    answers.start_date = { value: '2025-11-01', confirmed: false };
    expect(() => fn(h, 'confirmExtraction', entry, answers)).toThrow(
      'Check Start date first: confirm or correct each before it goes into the sheet.',
    );
    expect(s.getLastRow()).toBe(1);

    // All confirmed, the start date corrected; a value the sidebar sends for a confident field is ignored.
    for (const i of low) answers[i.key] = { value: i.value, confirmed: true };
    answers.start_date = { value: '2025-11-02', confirmed: true };
    answers.insurer = { value: 'Someone else', confirmed: true };
    const done = fn(h, 'confirmExtraction', entry, answers);
    expect(done).toMatchObject({ status: 'complete', row: 2 });
    expect(done.message).toBe(`Row 2: ${v.items.length} fields found. ${low.length} checked by you.`);
    const header = s.row(1);
    const at = (label: string): unknown => s.row(2)[header.indexOf(label)];
    expect(header.slice(0, 3)).toEqual(['Policy number', 'Insurer', 'Start date']);
    expect(at('Policy number')).toBe('608478190');
    expect(at('Start date')).toBe('2025-11-02');
    expect(at('End date')).toBe('2025-11-12');
    expect(at('Insurance type')).toBe('travel');
    expect(at('Insurer')).toBe(v.items.find((i: { key: string }) => i.key === 'insurer').value);
    expect(at('Insurer')).not.toBe('Someone else');
  }, 90_000);
});

describe('reviewItems and reviewedValues', () => {
  const fields = {
    policy_number: 'AB123',
    insurer: 'X Insurance',
    start_date: '2026-01-01',
    confidence: { policy_number: 0.97, insurer: 0.89, start_date: 0.9 },
    coverage: {
      motor_cover: { value: 'comprehensive' as const, printed: 'Vollkasko', confidence: 0.85 },
      health_plan: { value: 'Gold', confidence: 0.95 },
    },
  };
  it('lists every value with its confidence, coverage details by their value and printed wording; below 0.9 needs review, 0.9 does not', () => {
    expect(reviewItems(fields)).toEqual([
      { key: 'policy_number', label: 'Policy number', value: 'AB123', confidence: 0.97, needsReview: false },
      { key: 'insurer', label: 'Insurer', value: 'X Insurance', confidence: 0.89, needsReview: true },
      { key: 'start_date', label: 'Start date', value: '2026-01-01', confidence: 0.9, needsReview: false },
      {
        key: 'coverage.motor_cover',
        label: 'Cover level',
        value: 'comprehensive',
        printed: 'Vollkasko',
        confidence: 0.85,
        needsReview: true,
      },
      { key: 'coverage.health_plan', label: 'Plan', value: 'Gold', confidence: 0.95, needsReview: false },
    ]);
  });
  it('refuses until every low value is confirmed', () => {
    const items = reviewItems(fields);
    expect(() => reviewedValues(items, {})).toThrow('Check Insurer, Cover level first');
    expect(() => reviewedValues(items, { insurer: { value: 'X', confirmed: true } })).toThrow('Check Cover level first');
    expect(
      reviewedValues(items, {
        insurer: { value: ' Y Insurance ', confirmed: true },
        'coverage.motor_cover': { value: '', confirmed: true },
      }),
    ).toEqual({
      policy_number: 'AB123',
      insurer: 'Y Insurance',
      start_date: '2026-01-01',
      'coverage.health_plan': 'Gold',
    });
  });
});
