/**
 * Bulk extraction through the add-on on the Apps Script stand-ins, against real connectors in child
 * processes that run extraction: files picked at once go into the user's queue (pickedPdf), and the
 * sidebar's loop is played here call by call (pollPdfQueue, uploadNextPdf), as the sidebar makes them.
 * One connector keeps the default per-key bound on documents waiting (5), the other allows 2, so its
 * 429 with Retry-After is met. The Chromium side is pdf-bulk-browser.test.ts.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGE_PACKS, LANGUAGES } from '../../shared/packs/index.js';
import { asImageFile, drawPlain } from '../../scripts/procedural/technicalities/index.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { UK_MOTOR } from '../helpers/simple-policies.js';
import { CONNECTOR, loadAddon, ROOT, type ChildConnector, type Harness, type HarnessOptions, type SyncHttp } from './harness.js';
import type { DriveFileSpec } from './standin/drive.js';

type V = any;
let rig: AddonRig<'conn' | 'tight'>;
let conn: ChildConnector;
let tight: ChildConnector;
let http: SyncHttp;
let png: Uint8Array;

beforeAll(async () => {
  rig = await startAddonRig({
    conn: { extraction: true, keys: { live: { mode: 'live', credits: 200 }, broke: { mode: 'live', credits: 0 } } },
    tight: { extraction: true, env: { COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY: '2' }, keys: { live: { mode: 'live', credits: 200 } } },
  });
  ({ http, conn, tight } = rig);
  png = new Uint8Array(await asImageFile(await drawPlain(UK_MOTOR.drawing), 'png'));
}, 120_000);
afterAll(async () => {
  await rig?.stop();
});

const PICKER = { PICKER_DEVELOPER_KEY: 'AIza-test-key', CLOUD_PROJECT_NUMBER: '123456789012' };
const fixture = (n: string): DriveFileSpec => ({ path: path.join(ROOT, `test/fixtures/policies/${n}.pdf`), name: `${n}.pdf` });
const idOf = (n: string) => `1AbCdEfGhIjKlMnOp${n.padStart(3, '0')}`;

/** The add-on's entry points by name, including those harness.ts does not list. */
const fn = (h: Harness, name: string, ...args: unknown[]): V =>
  (h.fns as unknown as Record<string, (...a: unknown[]) => V>)[name]!(...args);

function addon(c: ChildConnector, drive: Record<string, DriveFileSpec>, opts: HarnessOptions = {}): Harness {
  const h = loadAddon(http, {
    connector: c.url,
    drive,
    scriptProperties: PICKER,
    cloudProjectNumber: PICKER.CLOUD_PROJECT_NUMBER,
    ...opts,
  });
  h.fns.saveSettings({ url: CONNECTOR, key: c.keys.live });
  return h;
}

/** What the Picker dialog does: grants drive.file for each file picked, then hands them to pickedPdf. */
function pick(h: Harness, ids: string[]): V {
  const { pickId } = h.fns.showPdfPicker();
  for (const id of ids) expect(h.world.drive.grantPick(h.user, id, PICKER.CLOUD_PROJECT_NUMBER)).toBe(true);
  return h.fns.pickedPdf(
    pickId,
    ids.map((id) => ({ id, name: h.world.drive.files.get(id)!.name })),
  );
}

const sleep = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

interface Drained {
  views: V[];
  /** The most files uploading or being read at once, over every view. */
  maxInFlight: number;
  /** Retry-After waits the queue asked for, in ms. */
  waits: number[];
}

/** The sidebar's loop: poll; upload the file the queue names; wait out a Retry-After (by moving the clock); else poll again. */
function drain(h: Harness, opts: { steps?: number; untilMs?: number } = {}): Drained {
  const out: Drained = { views: [], maxInFlight: 0, waits: [] };
  const seen = (v: V) => {
    out.views.push(v);
    out.maxInFlight = Math.max(out.maxInFlight, v.files.filter((f: V) => f.state === 'uploading' || f.state === 'reading').length);
    return v;
  };
  const until = Date.now() + (opts.untilMs ?? 150_000);
  for (let step = 0; step < (opts.steps ?? Infinity); step++) {
    const v = seen(fn(h, 'pollPdfQueue'));
    if (v.finished) return out;
    if (v.next !== null) seen(fn(h, 'uploadNextPdf', v.next));
    else if (v.waitMs) (out.waits.push(v.waitMs), h.advance(v.waitMs));
    // Once a second, as the sidebar polls: five jobs asked after each time stay well under the key's 600 requests a minute.
    else sleep(1000);
    if (Date.now() > until) throw new Error(`queue not finished: ${JSON.stringify(v.files.map((f: V) => [f.name, f.state]))}`);
  }
  return out;
}

const uploads = (h: Harness) => h.stats.log.filter((l) => l.method === 'POST' && l.url.endsWith('/api/v1/documents/extract'));
const states = (v: V) => Object.fromEntries(v.files.map((f: V) => [f.name, f.state]));

describe('bulk extraction: several files picked at once', () => {
  it('three files picked at once: every one is uploaded once and gets its own row, linked to its Drive file', () => {
    const names = ['003', '001', '004'];
    const h = addon(conn, Object.fromEntries(names.map((n) => [idOf(n), fixture(n)])));
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Source file']]);
    expect(pick(h, names.map(idOf))).toEqual({ state: 'picked', files: 3 });
    const first = fn(h, 'pollPdfQueue');
    expect(first.files.map((f: V) => [f.name, f.state])).toEqual(names.map((n) => [`${n}.pdf`, 'queued']));
    expect(first.next).toBe(first.files[0].entry);

    const { views } = drain(h);
    const last = views.at(-1);
    // Every file is written or waits for a check: none lost, none sent twice.
    expect(last.files.every((f: V) => f.state === 'done' || f.state === 'review')).toBe(true);
    for (const f of last.files.filter((x: V) => x.state === 'review')) {
      const r = fn(h, 'reviewPdfFile', f.entry);
      const answers = Object.fromEntries(
        r.items.filter((i: V) => i.needsReview).map((i: V) => [i.key, { value: i.value, confirmed: true }]),
      );
      expect(fn(h, 'confirmExtraction', f.entry, answers)).toMatchObject({ status: 'complete', row: expect.any(Number) });
    }
    expect(uploads(h).map((l) => l.status)).toEqual([202, 202, 202]);
    expect(s.getLastRow()).toBe(4);
    // The existing "Source file" header takes the link: the file's name, linked to it in Drive.
    expect(s.row(1)[2]).toBe('Source file');
    const linked = [2, 3, 4].map((r) => [s.get(r, 3), s.link(r, 3)]);
    expect(linked.sort()).toEqual(names.map((n) => [`${n}.pdf`, `https://drive.google.com/file/d/${idOf(n)}/view`]).sort());
    const matmut = linked.findIndex(([name]) => name === '003.pdf');
    expect(s.row([2, 3, 4].find((r) => s.get(r, 3) === '003.pdf')!).slice(0, 2)).toEqual(['PO-730265-62', 'MATMUT ASSURANCES']);
    expect(matmut).toBeGreaterThanOrEqual(0);
  }, 180_000);

  it('seven files (six PDFs and a PNG photo): at most 5 uploading or being read at once, no 429; a row per file', () => {
    const names = ['003', '001', '002', '004', '005', '007'];
    const drive: Record<string, DriveFileSpec> = Object.fromEntries(names.map((n) => [idOf(n), fixture(n)]));
    drive[idOf('png')] = { bytes: png, name: 'photo.png', mimeType: 'image/png' };
    const h = addon(conn, drive);
    pick(h, [...names.map(idOf), idOf('png')]);
    const d = drain(h);
    // Uploads outpace reading (two of a key's documents are read at once), so the queue runs up to its cap.
    expect(d.maxInFlight).toBeGreaterThanOrEqual(3);
    expect(d.maxInFlight).toBeLessThanOrEqual(5);
    expect(d.views.every((v) => v.files.filter((f: V) => f.state === 'uploading' || f.state === 'reading').length <= 5)).toBe(true);
    expect(uploads(h).map((l) => l.status)).toEqual(Array(7).fill(202));
    const last = d.views.at(-1);
    expect(last.finished).toBe(true);
    const done = last.files.filter((f: V) => f.state === 'done');
    const review = last.files.filter((f: V) => f.state === 'review');
    expect(done.length + review.length).toBe(7);
    // Rows only for files written; one each, at the rows the list names.
    expect(h.ss.active.getLastRow()).toBe(1 + done.length);
    expect(done.map((f: V) => f.row).sort((a: number, b: number) => a - b)).toEqual(done.map((_: V, i: number) => i + 2));
    expect(last.message).toMatch(/^7 files: \d+ written(, \d+ to check)?\.$/);
  }, 180_000);
});

describe('the per-key bound on documents waiting (429 with Retry-After)', () => {
  it('a connector taking 2 per key: the queue keeps at most 2 in flight after the first 429, waits its Retry-After, loses and repeats nothing', () => {
    // Two photos first: read by OCR, they take seconds, so the third upload finds the key's two places taken.
    const drive: Record<string, DriveFileSpec> = {
      [idOf('p1')]: { bytes: png, name: 'photo-1.png', mimeType: 'image/png' },
      [idOf('p2')]: { bytes: png, name: 'photo-2.png', mimeType: 'image/png' },
      [idOf('003')]: fixture('003'),
      [idOf('001')]: fixture('001'),
      [idOf('004')]: fixture('004'),
    };
    const h = addon(tight, drive);
    pick(h, Object.keys(drive));
    const d = drain(h);
    // One 429, when the third went out while two waited: its file was queued again, not failed.
    const statuses = uploads(h).map((l) => l.status);
    expect(statuses.slice(0, 3)).toEqual([202, 202, 429]);
    expect(statuses.filter((st) => st === 429)).toHaveLength(1);
    expect(statuses.filter((st) => st === 202)).toHaveLength(5);
    // DOCUMENT_RETRY_AFTER_S: the queue waited the connector's 10 s, not less.
    expect(d.waits.length).toBeGreaterThanOrEqual(1);
    expect(d.waits[0]).toBeGreaterThan(9_000);
    const after429 = d.views.slice(d.views.findIndex((v) => v.cap === 2));
    expect(after429.length).toBeGreaterThan(0);
    expect(after429.every((v) => v.files.filter((f: V) => f.state === 'uploading' || f.state === 'reading').length <= 2)).toBe(true);
    const last = d.views.at(-1);
    expect(last.files.every((f: V) => f.state === 'done' || f.state === 'review')).toBe(true);
    expect(last.files.map((f: V) => f.name)).toEqual(['photo-1.png', 'photo-2.png', '003.pdf', '001.pdf', '004.pdf']);
  }, 240_000);
});

describe('resumable: the sidebar closed and opened again', () => {
  it('the queue carries on from the user cache; a file left uploading by a dead execution is sent again only if it was not sent', () => {
    const names = ['003', '001', '002', '004'];
    const h = addon(conn, Object.fromEntries(names.map((n) => [idOf(n), fixture(n)])));
    pick(h, names.map(idOf));
    // Two steps, then the sidebar is closed.
    drain(h, { steps: 2 });
    const key = [...h.userCache.entries.keys()].find((k) => k.startsWith('pdfq:'))!;
    expect(key).toBe(`pdfq:${h.ss.id}`);
    // What an execution that died mid-upload leaves: the third file marked uploading and not sent, the fourth sent.
    const q = JSON.parse(h.userCache.entries.get(key)!.v);
    expect(q.files.map((f: V) => f.s)).toEqual(['reading', 'reading', 'queued', 'queued']);
    q.files[2].s = 'uploading';
    q.files[3].s = 'uploading';
    q.files[3].sent = 1;
    h.userCache.entries.get(key)!.v = JSON.stringify(q);

    // Another user of the spreadsheet has no queue of their own.
    expect(fn(h.as('bob@example.com'), 'pollPdfQueue')).toBeNull();
    // Opened again: the first poll finds the dead execution's files.
    h.fns.showPdfSidebar();
    const reopened = fn(h, 'pollPdfQueue');
    expect(states(reopened)['002.pdf']).toBe('queued');
    expect(states(reopened)['004.pdf']).toBe('failed');
    expect(reopened.files[3].message).toMatch(
      /^The upload of 004\.pdf was cut off after it was sent: the connector may have it, and it is not sent again/,
    );
    const d = drain(h);
    expect(uploads(h).map((l) => l.status)).toEqual([202, 202, 202]);
    expect(h.world.drive.calls.filter((c) => c.includes(idOf('004')))).toEqual([]);
    const last = d.views.at(-1);
    expect(states(last)).toMatchObject({ '004.pdf': 'failed' });
    expect(last.files.slice(0, 3).every((f: V) => f.state === 'done' || f.state === 'review')).toBe(true);
  }, 180_000);

  it("two sidebars of one user: while one uploads, the other's calls wait for the user's lock and upload nothing", () => {
    const h = addon(conn, { [idOf('003')]: fixture('003') });
    pick(h, [idOf('003')]);
    const v = fn(h, 'pollPdfQueue');
    let during: V[] = [];
    // The second sidebar calls while the first is sending the file to the connector.
    h.world.interleave(
      (method, exec) => method === 'UrlFetchApp.fetch' && exec.calls.filter((c) => c === 'UrlFetchApp.fetch').length === 3,
      () => (during = [fn(h, 'pollPdfQueue'), fn(h, 'uploadNextPdf', v.next)]),
    );
    const after = fn(h, 'uploadNextPdf', v.next);
    expect(during.map((x) => x.notice)).toEqual([
      'Another of your Covercheck sidebars is uploading a file. Nothing was changed; try again in a moment.',
      'Another of your Covercheck sidebars is uploading a file. Nothing was changed; try again in a moment.',
    ]);
    expect(during.map((x) => x.files[0].state)).toEqual(['uploading', 'uploading']);
    expect(after.files[0].state).toBe('reading');
    expect(uploads(h)).toHaveLength(1);
  }, 60_000);
});

describe('failures, each with its reason; review per file', () => {
  it('a file never picked, a text file, a 15 MB scan: each fails with why, without a call to the connector; the rest go on', () => {
    const h = addon(conn, {
      [idOf('003')]: fixture('003'),
      [idOf('txt')]: { path: path.join(ROOT, 'package.json'), mimeType: 'text/plain' },
      [idOf('big')]: { bytes: new Uint8Array(15 * 1024 * 1024), name: 'scan.pdf', mimeType: 'application/pdf' },
      [idOf('oth')]: { ...fixture('003'), name: 'not-picked.pdf' },
    });
    const { pickId } = h.fns.showPdfPicker();
    for (const id of [idOf('003'), idOf('txt'), idOf('big')]) h.world.drive.grantPick(h.user, id, PICKER.CLOUD_PROJECT_NUMBER);
    // A dialog (or anything calling pickedPdf) naming a file the Picker did not grant: Drive refuses it at upload.
    h.fns.pickedPdf(
      pickId,
      [idOf('003'), idOf('txt'), idOf('big'), idOf('oth')].map((id) => ({ id, name: h.world.drive.files.get(id)!.name })),
    );
    const last = drain(h).views.at(-1);
    const why = Object.fromEntries(last.files.map((f: V) => [f.name, [f.state, f.message]]));
    expect(why['package.json']).toEqual(['failed', 'package.json is not a PDF (text/plain); a photo as JPEG or PNG is read too.']);
    expect(why['scan.pdf']).toEqual(['failed', 'scan.pdf is 15.0 MB; the connector reads PDFs up to 14 MB.']);
    expect(why['not-picked.pdf']).toEqual([
      'failed',
      'Covercheck can open only the files you choose with "Choose from Drive" (it has no access to the rest of your Drive). Choose the file there.',
    ]);
    expect(why['003.pdf']![0]).toBe('done');
    expect(uploads(h)).toHaveLength(1);
    expect(h.world.drive.calls.filter((c) => c.includes('alt=media')).map((c) => c.split('?')[0])).toEqual([
      `GET /drive/v3/files/${idOf('003')}`,
    ]);
    expect(last.message).toBe('4 files: 1 written, 3 failed.');
  }, 90_000);

  it('out of credits: the refused file says so, and the files still queued are not sent', () => {
    const names = ['003', '001', '002'];
    const h = addon(conn, Object.fromEntries(names.map((n) => [idOf(n), fixture(n)])));
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.broke });
    pick(h, names.map(idOf));
    const last = drain(h).views.at(-1);
    expect(last.files.map((f: V) => [f.state, f.message])).toEqual([
      ['failed', 'Out of credits: balance 0'],
      ['failed', 'Not sent: Out of credits: balance 0'],
      ['failed', 'Not sent: Out of credits: balance 0'],
    ]);
    expect(uploads(h).map((l) => l.status)).toEqual([402]);
  }, 60_000);

  it('values below 0.9 wait per file: nothing written until confirmed; written once, with its link; a second confirm is refused; discard writes nothing', () => {
    const h = addon(conn, { [idOf('006')]: fixture('006'), [idOf('a06')]: { ...fixture('006'), name: 'copy.pdf' } });
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Insurer', 'Start date']]);
    pick(h, [idOf('006'), idOf('a06')]);
    const last = drain(h).views.at(-1);
    expect(last.files.map((f: V) => f.state)).toEqual(['review', 'review']);
    expect(last.files[0].message).toMatch(/^\d+ of \d+ values need a check before they go into the sheet\.$/);
    expect(s.getLastRow()).toBe(1);
    const [one, two] = last.files;
    const r = fn(h, 'reviewPdfFile', one.entry);
    expect(r).toMatchObject({ status: 'review', name: '006.pdf', url: `https://drive.google.com/file/d/${idOf('006')}/view` });
    // 006: its start date has a close rival date, read below 0.9 (other values may be too, as the extractor is calibrated).
    const low = r.items.filter((i: V) => i.needsReview);
    expect(low.map((i: V) => i.key)).toContain('start_date');
    expect(() => fn(h, 'confirmExtraction', one.entry, {})).toThrow(
      /^Check .+ first: confirm or correct each before it goes into the sheet\.$/,
    );
    expect(s.getLastRow()).toBe(1);
    const answers = Object.fromEntries(low.map((i: V) => [i.key, { value: i.value, confirmed: true }]));
    answers.start_date = { value: '2025-11-02', confirmed: true };
    const done = fn(h, 'confirmExtraction', one.entry, answers);
    expect(done.message).toBe(`Row 2: ${r.items.length} fields found. ${low.length} checked by you.`);
    const header = s.row(1);
    expect(s.row(2)[header.indexOf('Start date')]).toBe('2025-11-02');
    const fileCol = header.indexOf('Drive file') + 1;
    expect(fileCol).toBeGreaterThan(3);
    expect([s.get(2, fileCol), s.link(2, fileCol)]).toEqual(['006.pdf', `https://drive.google.com/file/d/${idOf('006')}/view`]);
    expect(() => fn(h, 'confirmExtraction', one.entry, answers)).toThrow('006.pdf is already written (row 2).');
    expect(fn(h, 'discardPdfFile', two.entry).files.map((f: V) => f.state)).toEqual(['done', 'discarded']);
    expect(() => fn(h, 'reviewPdfFile', two.entry)).toThrow('copy.pdf is discarded.');
    expect(s.getLastRow()).toBe(2);
  }, 90_000);
});

describe("in the user's language", () => {
  it('German: each reason a file fails with, the list in a sentence, and the refusals of a pick or a link', () => {
    const h = addon(conn, {
      [idOf('003')]: fixture('003'),
      [idOf('txt')]: { path: path.join(ROOT, 'package.json'), mimeType: 'text/plain' },
      [idOf('big')]: { bytes: new Uint8Array(15 * 1024 * 1024), name: 'scan.pdf', mimeType: 'application/pdf' },
      [idOf('oth')]: { ...fixture('003'), name: 'not-picked.pdf' },
    });
    h.world.user(h.user).locale = 'de';
    const { pickId } = h.fns.showPdfPicker();
    for (const id of [idOf('003'), idOf('txt'), idOf('big')]) h.world.drive.grantPick(h.user, id, PICKER.CLOUD_PROJECT_NUMBER);
    h.fns.pickedPdf(
      pickId,
      [idOf('003'), idOf('txt'), idOf('big'), idOf('oth')].map((id) => ({ id, name: h.world.drive.files.get(id)!.name })),
    );
    const views = drain(h).views;
    expect(views[0].message).toBe('4 Dateien: 4 warten.');
    expect(views[0].files[0].message).toBe('In der Warteschlange');
    const last = views.at(-1);
    const why = Object.fromEntries(last.files.map((f: V) => [f.name, [f.state, f.message]]));
    expect(why['003.pdf']![1]).toMatch(/^Zeile 2: \d+ Felder gefunden\.$/);
    expect(why['package.json']).toEqual([
      'failed',
      'package.json ist kein PDF (text/plain); ein Foto als JPEG oder PNG wird ebenfalls gelesen.',
    ]);
    expect(why['scan.pdf']).toEqual(['failed', 'scan.pdf ist 15,0 MB groß; der Connector liest PDFs bis 14 MB.']);
    expect(why['not-picked.pdf']).toEqual(['failed', LANGUAGE_PACKS.de.addon.bulkPdf.notPicked]);
    expect(last.message).toBe('4 Dateien: 1 geschrieben, 3 fehlgeschlagen.');
    // Refused before anything is queued.
    expect(h.fns.pickedPdf(h.fns.showPdfPicker().pickId, Array(51).fill({ id: idOf('003'), name: '003.pdf' }))).toEqual({
      state: 'failed',
      error: 'Höchstens 50 Dateien auf einmal: 51 wurden ausgewählt.',
    });
    expect(() => fn(h, 'addPdfLinks', 'kein Link')).toThrow(LANGUAGE_PACKS.de.addon.bulkPdf.pasteLink);
    expect(() => fn(h, 'addPdfLinks', `https://drive.google.com/file/d/${idOf('oth')}/view`)).toThrow(
      LANGUAGE_PACKS.de.addon.bulkPdf.notPicked,
    );
    expect(() => fn(h, 'reviewPdfFile', 99)).toThrow(LANGUAGE_PACKS.de.addon.bulkPdf.listExpired);
  }, 90_000);

  it("every language's bulk and sidebar texts name the same {values} as the English ones", () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const section of ['sidebar', 'bulkPdf'] as const) {
      const en = LANGUAGE_PACKS.en.addon[section] as Record<string, string>;
      for (const lang of LANGUAGES) {
        const texts = LANGUAGE_PACKS[lang].addon[section] as Record<string, string>;
        for (const key of Object.keys(en)) expect(names(texts[key]!), `${lang} ${section}.${key}`).toEqual(names(en[key]!));
      }
    }
  });
});

describe('limits of the queue (Picker setMaxItems 50; CacheService 100 KB a value)', () => {
  it('50 files with the longest names and reasons fit one cache item under half of 100 KB; a 51st is refused; a file still queued is not added twice', () => {
    const long = (i: number) => `${'𝔓'.repeat(200)}-${i}.txt`;
    const ids = Array.from({ length: 50 }, (_, i) => `1AbCdEfGhIjKlMnOpL${String(i).padStart(2, '0')}`);
    // Text files: each fails at upload with a reason that holds its whole name.
    const h = addon(
      conn,
      Object.fromEntries(ids.map((id, i) => [id, { bytes: new Uint8Array([1]), name: long(i), mimeType: 'text/plain' }])),
    );
    const item = () => [...h.userCache.entries].find(([k]) => k.startsWith('pdfq:'))![1].v;
    expect(pick(h, ids)).toEqual({ state: 'picked', files: 50 });
    expect(Buffer.byteLength(item())).toBeLessThan(50 * 1024);
    const v = fn(h, 'pollPdfQueue');
    expect(v.files).toHaveLength(50);
    expect(v.files[0].name.endsWith('…')).toBe(true);
    const more = '1AbCdEfGhIjKlMnOpM00';
    h.world.drive.files.set(more, { name: 'more.pdf', mimeType: 'application/pdf', bytes: () => new Uint8Array([1]), readers: null });
    expect(pick(h, [more])).toEqual({
      state: 'failed',
      error: 'At most 50 files at once: 50 files are still being read or waiting for a check, so 0 more can be added now.',
    });
    // Picked again while still queued: not added a second time (it would be paid for twice).
    expect(pick(h, [ids[0]!])).toEqual({ state: 'picked', files: 0 });
    expect(pick(h, [...ids, more])).toEqual({ state: 'failed', error: 'At most 50 files at once: 51 were chosen.' });
    const last = drain(h).views.at(-1);
    expect(last.files.every((f: V) => f.state === 'failed' && f.message.endsWith('…'))).toBe(true);
    expect(Buffer.byteLength(item())).toBeLessThan(50 * 1024);
    expect(uploads(h)).toEqual([]);
    // Nothing left open: the next pick starts a new list.
    expect(pick(h, [more])).toEqual({ state: 'picked', files: 1 });
    expect(fn(h, 'pollPdfQueue').files.map((f: V) => f.name)).toEqual(['more.pdf']);
  }, 60_000);
});
