/**
 * Bulk extraction: the Drive files picked at once (up to MAX_FILES, PDFs and photos) uploaded to the
 * connector's extraction route, polled, and written one row per file, each row linked to its file. The
 * sidebar drives it in short calls (pollPdfQueue, uploadNextPdf: one upload each), so no call nears Apps
 * Script's 6 minutes; between them the queue lives in the user cache, so a sidebar closed and opened
 * again carries on where the queue stands.
 *
 * State: one cache item per user and spreadsheet (`pdfq:<spreadsheet id>`, kept 6 hours as a rows run
 * is), per file its Drive id, name, state, job id, row and why, clipped so that 50 files stay under
 * run-state's ITEM_MAX_BYTES (half of CacheService's 100 KB a value) whatever their names.
 *
 * Room at the connector: it refuses a key more than COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY documents
 * waiting to be read (docs/document-limits.md: 5 by default; 429 with Retry-After). The queue keeps at
 * most `cap` files uploading or being read, starting at that default. A 429 says the key has less room
 * (a lower setting, or the key's other clients): the cap drops to the files still in flight and the next
 * upload waits out the Retry-After. A refused upload was not accepted, so its file is queued again.
 *
 * Never twice: the extraction route takes no Idempotency-Key (a multipart stream is not replayed), so an
 * upload runs under the user's lock and its file is marked `sent` in the cache just before the request
 * goes out. A lock is freed when its execution ends, however it ends: a file still `uploading` when a
 * call gets the lock was left by an execution that died. Not yet sent, it is queued again; sent, the
 * connector may have it, and it fails saying so rather than be paid for twice.
 *
 * Words: what a file's line and the list's sentence say is in the user's language (the language packs'
 * addon.bulkPdf, and addon.sidebar for an open file's state); a reason the connector gave stays in its words.
 */
import type { TExtractedFields, TJob } from '../../shared/job.js';
import { LANGUAGE_PACKS, type TLanguage } from '../../shared/packs/index.js';
import type { BulkPdfTexts } from '../../shared/packs/types.js';
import { documentTooLarge, MAX_DOCUMENT_BYTES } from '../../shared/policy.js';
import { REVIEW_KEYS, reviewedValues, reviewItems, type ReviewItem, type TReviewKey } from '../../shared/review.js';
import { api, ConnectorError } from './connector.js';
import { labelledItems } from './coverage-labels.js';
import { DriveError, driveFileUrl, fileBlob, fileMeta, type DriveFile } from './drive.js';
import { FILE_LABELS, placeValues } from './extracted-columns.js';
import { LOCK_WAIT_MS, withDocumentLock, withUserLock } from './locks.js';
import { userLanguage } from './result-notes.js';
import { bounded, messageOf, RUN_TTL_SECONDS } from './run-state.js';
import { userConn } from './settings.js';

/** The Picker's setMaxItems, and the most files one queue holds. */
export const MAX_FILES = 50;
/** COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY's default: the connector's room for one key's documents waiting. */
export const MAX_IN_FLIGHT = 5;
/** What the connector reads: a PDF, or a photo of the document as JPEG or PNG (the Picker's view lists the same). */
export const EXTRACTABLE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
const NAME_BYTES = 160;
const WHY_BYTES = 320;

/** A file's progress: `review` waits for a person (values below 0.9), `discarded` was dropped by one. */
export type FileState = 'queued' | 'uploading' | 'reading' | 'review' | 'done' | 'failed' | 'discarded';
const IN_FLIGHT: FileState[] = ['uploading', 'reading'];
const OPEN: FileState[] = ['queued', 'uploading', 'reading', 'review'];

/** One file of the queue, with short keys: 50 of them make one cache item. */
export interface Entry {
  /** Entry number, unique within the queue: a file picked twice is two entries. */
  e: number;
  /** Drive file id. */
  id: string;
  /** Name, clipped. */
  n: string;
  s: FileState;
  /** The connector's job id, once accepted. */
  j?: string;
  /** Set just before the upload's request goes out (see "Never twice"). */
  sent?: 1;
  /** The row written. */
  r?: number;
  /** What the person reads: the row written, the values to check, or why it failed. Clipped. */
  w?: string;
}

export interface Queue {
  /** The sheet rows go to: the one active when the files were added. */
  sheet: string;
  /** The last entry number given. */
  seq: number;
  /** Files uploading or being read at most. */
  cap: number;
  /** Epoch ms before which no upload starts (a 429's or 503's Retry-After). */
  notBefore: number;
  files: Entry[];
}

export interface QueueFileView {
  entry: number;
  name: string;
  /** The file in Drive. */
  url: string;
  state: FileState;
  message: string;
  row: number | null;
}

export interface QueueView {
  files: QueueFileView[];
  sheet: string;
  /** The entry the sidebar may upload now (uploadNextPdf), or null: none queued, no room, or waiting. */
  next: number | null;
  /** Milliseconds until an upload may start again. */
  waitMs: number;
  cap: number;
  /** Nothing left to upload or read (files may still wait for a review). */
  finished: boolean;
  /** The whole queue in a sentence (for one file, that file's message). */
  message: string;
  /** Something the last call could not do, to say beside the list (the connector unreachable, say). */
  notice: string | null;
}

/** UTF-8 bytes of one UTF-16 unit (a surrogate pair counts 4, on its first half). */
const unitBytes = (c: number) => (c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3);

/** `text` cut to at most `max` UTF-8 bytes, marked with an ellipsis where cut. */
export function clip(text: string, max: number): string {
  let n = 0;
  for (let i = 0; i < text.length; i++) n += unitBytes(text.charCodeAt(i));
  if (n <= max) return text;
  // A pair's second half costs nothing, so the cut never falls inside a pair.
  let keep = 0;
  let j = 0;
  while (j < text.length && keep + unitBytes(text.charCodeAt(j)) <= max - 3) keep += unitBytes(text.charCodeAt(j++));
  return `${text.slice(0, j)}…`;
}

/** `{name}` in `text` replaced by `vars.name`; a name not given stays as written. */
export function fill(text: string, vars: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

/** A text of the bulk extraction in `lang`, its `{name}`s filled in. */
export function bulkText(lang: TLanguage, key: keyof BulkPdfTexts, vars?: Record<string, string | number>): string {
  return fill(LANGUAGE_PACKS[lang].addon.bulkPdf[key], vars);
}

/** The texts that come as a singular and a plural (`filesOne`, `filesMany`), by their common stem. */
type Counted = { [K in keyof BulkPdfTexts]: K extends `${infer Stem}One` ? Stem : never }[keyof BulkPdfTexts];

/** `n` in words: the stem's `One` text for 1, its `Many` text with `{n}` otherwise. */
export function bulkCount(lang: TLanguage, stem: Counted, n: number, vars: Record<string, string | number> = {}): string {
  return bulkText(lang, n === 1 ? `${stem}One` : `${stem}Many`, { ...vars, n });
}

/** Refuses a file the connector would refuse, before it is downloaded: not a PDF or photo, or over 14 MB. */
export function checkExtractable(meta: DriveFile, lang: TLanguage = userLanguage()): void {
  if (!EXTRACTABLE_TYPES.includes(meta.mimeType))
    throw new Error(bulkText(lang, 'notExtractable', { file: meta.name, type: meta.mimeType }));
  if (meta.size !== null && documentTooLarge(meta.size)) {
    const size = (meta.size / 1048576).toFixed(1).replace('.', bulkText(lang, 'decimalMark'));
    throw new Error(bulkText(lang, 'tooLarge', { file: meta.name, size, max: MAX_DOCUMENT_BYTES / 1048576 }));
  }
}

/**
 * A Drive file's details, checked as the connector would (checkExtractable). Drive's answer for a file
 * not picked is said in `lang`; its rarer refusals (access denied, a failure) keep drive.ts's words.
 */
export function extractableMeta(id: string, lang: TLanguage): DriveFile {
  let meta: DriveFile;
  try {
    meta = fileMeta(id);
  } catch (e) {
    if (e instanceof DriveError && e.kind === 'not_picked') throw new Error(bulkText(lang, 'notPicked'));
    throw e;
  }
  checkExtractable(meta, lang);
  return meta;
}

/** Every value of an extraction result with its confidence, named in the user's language. */
export function extractionItems(fields: TExtractedFields, lang: TLanguage): ReviewItem[] {
  return labelledItems(reviewItems(fields), lang);
}

const cache = () => CacheService.getUserCache()!;
const queueKey = () => `pdfq:${SpreadsheetApp.getActiveSpreadsheet()!.getId()}`;
function load(key: string): Queue | null {
  const raw = cache().get(key);
  return raw ? (JSON.parse(raw) as Queue) : null;
}

/** The text a call throws when another of this user's queue calls holds the lock (another sidebar's upload). */
export const busyQueue = (lang: TLanguage = userLanguage()): string => bulkText(lang, 'busy');

/**
 * Runs `section` on this user's queue for the active spreadsheet under the user's lock; `save` writes
 * it back. `busy` answers when the lock isn't had within the sidebar's wait.
 */
export function withQueue<T>(section: (q: Queue | null, save: (q: Queue) => void) => T, busy: () => T): T {
  const key = queueKey();
  return withUserLock(LOCK_WAIT_MS.sidebar, () => section(load(key), (q) => cache().put(key, bounded(key, q), RUN_TTL_SECONDS)), busy);
}

/** The queue as it stands, read without the lock (while another call holds it). */
function unlockedView(lang: TLanguage): QueueView | null {
  const q = load(queueKey());
  return q ? queueView(q, busyQueue(lang), lang) : null;
}

/** Files left `uploading` by an execution that died (the caller holds the lock): queued again, or failed if sent. */
function recoverStale(q: Queue, lang: TLanguage): boolean {
  let changed = false;
  for (const f of q.files) {
    if (f.s !== 'uploading') continue;
    changed = true;
    if (f.sent) {
      f.s = 'failed';
      f.w = clip(bulkText(lang, 'cutOff', { file: f.n }), WHY_BYTES);
    } else f.s = 'queued';
    delete f.sent;
  }
  return changed;
}

/** A file's line: its state while open, in the sidebar's words; once settled, what was recorded for it (`w`). */
function fileMessage(f: Entry, lang: TLanguage): string {
  const t = LANGUAGE_PACKS[lang].addon.sidebar;
  if (f.s === 'queued') return t.pdfStateQueued;
  if (f.s === 'uploading') return t.uploading;
  if (f.s === 'reading') return fill(t.reading, { file: f.n });
  if (f.s === 'discarded') return t.discarded;
  return f.w ?? '';
}

/** The sidebar's view of the queue, in `lang`. */
export function queueView(q: Queue, notice: string | null = null, lang: TLanguage = userLanguage()): QueueView {
  const count = (s: FileState[]) => q.files.filter((f) => s.includes(f.s)).length;
  const inFlight = count(IN_FLIGHT);
  const waitMs = Math.max(0, q.notBefore - Date.now());
  const queued = q.files.find((f) => f.s === 'queued');
  const next = queued && !waitMs && inFlight < q.cap ? queued.e : null;
  const files = q.files.map((f) => ({
    entry: f.e,
    name: f.n,
    url: driveFileUrl(f.id),
    state: f.s,
    message: fileMessage(f, lang),
    row: f.r ?? null,
  }));
  let message: string;
  if (files.length === 1) message = files[0]!.message;
  else {
    const parts: [number, Counted][] = [
      [count(['done']), 'countDone'],
      [count(['review']), 'countReview'],
      [inFlight, 'countReading'],
      [count(['queued']), 'countQueued'],
      [count(['failed']), 'countFailed'],
      [count(['discarded']), 'countDiscarded'],
    ];
    const counts = parts.filter(([n]) => n).map(([n, stem]) => bulkCount(lang, stem, n));
    message = bulkText(lang, 'summary', { files: bulkCount(lang, 'files', files.length), counts: counts.join(', ') });
  }
  if (queued && waitMs) message += `\n${bulkText(lang, 'nextUpload', { s: Math.ceil(waitMs / 1000) })}`;
  return { files, sheet: q.sheet, next, waitMs, cap: q.cap, finished: count(['queued', ...IN_FLIGHT]) === 0, message, notice };
}

/**
 * Adds picked files to this user's queue for the active spreadsheet (a new list when nothing is left
 * open); `added` counts those not already waiting in it.
 */
export function enqueue(picked: { id: string; name: string }[], lang: TLanguage = userLanguage()): QueueView & { added: number } {
  if (picked.length === 0) throw new Error(LANGUAGE_PACKS[lang].addon.sidebar.pdfNoFile);
  if (picked.length > MAX_FILES) throw new Error(bulkText(lang, 'tooManyChosen', { max: MAX_FILES, n: picked.length }));
  return withQueue(
    (prev, save) => {
      const open = prev?.files.some((f) => OPEN.includes(f.s));
      const q: Queue =
        prev && open
          ? prev
          : { sheet: SpreadsheetApp.getActiveSheet()!.getName(), seq: prev?.seq ?? 0, cap: MAX_IN_FLIGHT, notBefore: 0, files: [] };
      // A file still in the queue is not added again: picked twice, it would be paid for twice.
      const held = new Set(q.files.filter((f) => OPEN.includes(f.s)).map((f) => f.id));
      const add = picked.filter((p) => !held.has(p.id) && (held.add(p.id), true));
      const openCount = q.files.filter((f) => OPEN.includes(f.s)).length;
      if (openCount + add.length > MAX_FILES)
        throw new Error(bulkCount(lang, 'tooManyOpen', openCount, { max: MAX_FILES, room: MAX_FILES - openCount }));
      for (const p of add) q.files.push({ e: ++q.seq, id: p.id, n: clip(p.name || p.id, NAME_BYTES), s: 'queued' });
      // Files finished earlier make room: the list keeps at most MAX_FILES entries.
      while (q.files.length > MAX_FILES)
        q.files.splice(
          q.files.findIndex((f) => !OPEN.includes(f.s)),
          1,
        );
      save(q);
      return { ...queueView(q, null, lang), added: add.length };
    },
    () => {
      throw new Error(busyQueue(lang));
    },
  );
}

/** A Drive file a row was read from: its cell shows the name, linked to the file. */
interface RowSource {
  name: string;
  url: string;
}

/**
 * Appends values as a row of `sheet` under the headers that match them (a header row is written first on
 * an empty sheet; unmatched values get new columns), with the file's name linked to it. The caller holds
 * the document lock: the last row is read and written in one section.
 */
function appendExtractedRow(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  values: Partial<Record<TReviewKey, string>>,
  source: RowSource,
  lang: TLanguage,
): { row: number; found: number } {
  const lastCol = sheet.getLastColumn();
  const headers =
    lastCol > 0
      ? sheet
          .getRange(1, 1, 1, lastCol)
          .getValues()[0]!
          .map((v) => String(v ?? ''))
      : [];
  const { row, newHeaders, fileCol } = placeValues(headers, values, { text: source.name, label: FILE_LABELS[lang] });
  if (newHeaders.length) sheet.getRange(1, headers.length + 1, 1, newHeaders.length).setValues([newHeaders]);
  const at = Math.max(2, sheet.getLastRow() + 1);
  // Written as read, as plain text: Sheets would type a policy number of digits as a number (leading zeros and digits past 15 lost).
  sheet.getRange(at, 1, 1, row.length).setNumberFormat('@').setValues([row]);
  // A link, not a HYPERLINK formula: a file name is text a formula would have to quote, and the cell stays the name.
  sheet
    .getRange(at, fileCol! + 1)
    .setRichTextValues([[SpreadsheetApp.newRichTextValue().setText(source.name).setLinkUrl(source.url).build()]]);
  return { row: at, found: REVIEW_KEYS.filter((f) => values[f] !== undefined).length };
}

/** The sheet rows go to; the active one if it was renamed or deleted since. */
function sheetOf(q: Queue): GoogleAppsScript.Spreadsheet.Sheet {
  const ss = SpreadsheetApp.getActiveSpreadsheet()!;
  return ss.getSheetByName(q.sheet) ?? ss.getActiveSheet();
}

/**
 * Writes a file's row and marks it done (the caller holds the queue's lock and saves), or answers null
 * when another execution holds the document's lock: the file stays as it was, for the next call.
 */
export function writeEntryRow(
  q: Queue,
  f: Entry,
  values: Partial<Record<TReviewKey, string>>,
  lang: TLanguage,
): { row: number; found: number } | null {
  const written = withDocumentLock(
    LOCK_WAIT_MS.sidebar,
    () => appendExtractedRow(sheetOf(q), values, { name: f.n, url: driveFileUrl(f.id) }, lang),
    () => null,
  );
  if (!written) return null;
  f.s = 'done';
  f.r = written.row;
  f.w = bulkCount(lang, 'rowWritten', written.found, { row: written.row });
  return written;
}

/** A finished job's file: written at once when every value is at or above 0.9, else left for review. */
function settle(q: Queue, f: Entry, job: TJob, lang: TLanguage): boolean {
  if (job.status === 'pending') return false;
  if (job.status === 'failed') {
    f.s = 'failed';
    f.w = clip(job.error?.message ?? bulkText(lang, 'extractionFailed'), WHY_BYTES);
    return true;
  }
  const items = extractionItems(job.result as TExtractedFields, lang);
  const low = items.filter((i) => i.needsReview).length;
  if (low) {
    f.s = 'review';
    f.w = bulkCount(lang, 'needsCheck', low, { total: items.length });
    return true;
  }
  return writeEntryRow(q, f, reviewedValues(items, {}), lang) !== null;
}

/**
 * One step of the sidebar's loop: each file being read is asked for once, and written, marked for review
 * or failed when its job has finished. Null when this user has no queue in this spreadsheet.
 */
export function pollPdfQueue(): QueueView | null {
  const lang = userLanguage();
  return withQueue(
    (q, save) => {
      if (!q) return null;
      let changed = recoverStale(q, lang);
      let notice: string | null = null;
      const reading = q.files.filter((f) => f.s === 'reading');
      if (reading.length) {
        const conn = userConn();
        for (const f of reading) {
          let job: TJob;
          try {
            // No waiting inside the call on a 429: the next poll asks again.
            job = api.job(conn, f.j!, { deadline: Date.now() });
          } catch (e) {
            if (e instanceof ConnectorError && e.status === 404) {
              f.s = 'failed';
              f.w = clip(bulkText(lang, 'jobGone', { file: f.n, why: e.message }), WHY_BYTES);
              changed = true;
            } else notice = messageOf(e);
            continue;
          }
          if (settle(q, f, job, lang)) changed = true;
        }
      }
      if (changed) save(q);
      return queueView(q, notice, lang);
    },
    () => unlockedView(lang),
  );
}

/** Kinds of refusal that no later upload of the queue would escape: the key or the set-up. */
const STOPS_QUEUE = new Set(['no_key', 'no_url', 'unauthorized', 'forbidden', 'out_of_credits']);

/** What an upload the connector refused, or that never got an answer, does to its file and the queue. */
function refused(q: Queue, f: Entry, e: unknown, lang: TLanguage): void {
  const err = e instanceof ConnectorError ? e : null;
  delete f.sent;
  if (err && (err.kind === 'rate_limited' || (err.status === 503 && err.retryAfter))) {
    // Not accepted: queued again, after the wait the connector asked for.
    f.s = 'queued';
    q.notBefore = Date.now() + (err.retryAfter ?? 1) * 1000;
    if (err.kind === 'rate_limited') q.cap = Math.max(1, q.files.filter((x) => IN_FLIGHT.includes(x.s)).length);
    return;
  }
  f.s = 'failed';
  if (!err || err.kind === 'unreachable') {
    f.w = clip(bulkText(lang, 'connectionBroke', { why: messageOf(e), file: f.n }), WHY_BYTES);
    return;
  }
  f.w = clip(err.message, WHY_BYTES);
  if (!STOPS_QUEUE.has(err.kind)) return;
  for (const other of q.files)
    if (other.s === 'queued') {
      other.s = 'failed';
      other.w = clip(bulkText(lang, 'notSent', { why: err.message }), WHY_BYTES);
    }
}

/**
 * Uploads one file, `entry`, when it is the queue's next (queued, room at the connector, no wait);
 * otherwise sends nothing. Reads it from Drive (checked first: type and size), then sends it.
 */
export function uploadNextPdf(entry: number): QueueView | null {
  const lang = userLanguage();
  return withQueue(
    (q, save) => {
      if (!q) return null;
      if (recoverStale(q, lang)) save(q);
      if (queueView(q, null, lang).next !== entry) return queueView(q, null, lang);
      const f = q.files.find((x) => x.e === entry)!;
      f.s = 'uploading';
      save(q);
      let blob: GoogleAppsScript.Base.Blob;
      try {
        const meta = extractableMeta(f.id, lang);
        f.n = clip(meta.name, NAME_BYTES);
        blob = fileBlob(meta);
      } catch (e) {
        // Nothing was sent: Drive refused it (not picked), or it isn't something the connector reads.
        f.s = 'failed';
        f.w = clip(messageOf(e), WHY_BYTES);
        save(q);
        return queueView(q, null, lang);
      }
      f.sent = 1;
      save(q);
      try {
        // No waiting inside the call on a 429: the queue waits, between calls.
        const accepted = api.extract(userConn(), blob, { deadline: Date.now() });
        f.s = 'reading';
        f.j = accepted.job_id;
        delete f.sent;
      } catch (e) {
        refused(q, f, e, lang);
      }
      save(q);
      return queueView(q, null, lang);
    },
    () => unlockedView(lang),
  );
}

/** The entry `entry` of the queue, in state `state`; throws in words when it isn't (any more). */
export function entryIn(q: Queue | null, entry: number, state: FileState, lang: TLanguage = userLanguage()): Entry {
  const f = q?.files.find((x) => x.e === entry);
  if (!f) throw new Error(bulkText(lang, 'listExpired'));
  if (f.s !== state) {
    if (f.s === 'done') throw new Error(bulkText(lang, 'alreadyWritten', { file: f.n, row: f.r ?? '' }));
    throw new Error(bulkText(lang, f.s === 'discarded' ? 'isDiscarded' : 'notWaiting', { file: f.n }));
  }
  return f;
}
