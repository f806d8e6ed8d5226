/**
 * "Extract from Drive PDF": a Drive file -> the extraction endpoint -> a new row under matching
 * headers. The file is chosen in Google Picker, opened from the sidebar in a dialog (the file-open
 * dialog pattern of the Apps Script dialogs guide), which grants the add-on's drive.file access to
 * that file; a pasted link works for files picked before.
 */
import type { TExtractedFields, TJob } from '../../shared/job.js';
import { REVIEW_KEYS, reviewedValues, reviewItems, type ReviewItem, type TReviewKey } from '../../shared/review.js';
import { documentTooLarge, MAX_DOCUMENT_BYTES } from '../../shared/policy.js';
import { api } from './connector.js';
import { labelledItems } from './coverage-labels.js';
import { fileBlob, fileMeta } from './drive.js';
import { placeValues } from './extracted-columns.js';
import { userLanguage } from './result-notes.js';
import { userConn } from './settings.js';

/** What the connector reads: a PDF, or a photo of the document as JPEG or PNG (the Picker's view lists the same). */
const EXTRACTABLE_TYPES = ['application/pdf', 'image/jpeg', 'image/png'];
const PICK_TTL_SECONDS = 30 * 60;
const PICKER_KEY_PROP = 'PICKER_DEVELOPER_KEY';
const PROJECT_NUMBER_PROP = 'CLOUD_PROJECT_NUMBER';

/** Accepts a Drive file URL (…/d/ID/…, ?id=ID) or a bare ID. */
export function fileIdFrom(input: string): string {
  const s = String(input ?? '').trim();
  const m = /\/d\/([A-Za-z0-9_-]{10,})/.exec(s) ?? /[?&]id=([A-Za-z0-9_-]{10,})/.exec(s) ?? /^([A-Za-z0-9_-]{10,})$/.exec(s);
  if (!m) throw new Error('Paste a Drive file URL (https://drive.google.com/file/d/…) or a file ID.');
  return m[1]!;
}

/**
 * Uploads the file and returns the extraction job id. The size is checked against the connector's
 * 14 MB before anything is downloaded.
 */
export function submitPdfExtraction(fileRef: string): { jobId: string; fileName: string } {
  const meta = fileMeta(fileIdFrom(fileRef));
  if (!EXTRACTABLE_TYPES.includes(meta.mimeType))
    throw new Error(`${meta.name} is not a PDF (${meta.mimeType}); a photo as JPEG or PNG is read too.`);
  if (meta.size !== null && documentTooLarge(meta.size)) {
    throw new Error(
      `${meta.name} is ${(meta.size / 1048576).toFixed(1)} MB; the connector reads PDFs up to ${MAX_DOCUMENT_BYTES / 1048576} MB.`,
    );
  }
  const accepted = api.extract(userConn(), fileBlob(meta));
  return { jobId: accepted.job_id, fileName: meta.name };
}

/**
 * Where a Picker dialog opened from the sidebar stands; the sidebar polls it (dialog and sidebar
 * can't call each other). While waiting, `beats` counts the dialog's heartbeats.
 */
export type PickState =
  | { state: 'waiting'; beats: number }
  | { state: 'cancelled' }
  | { state: 'picked'; jobId: string; fileName: string }
  | { state: 'failed'; error: string };

/**
 * Closing a dialog with its title-bar x runs no code in it, so the dialog reports that it is alive
 * every HEARTBEAT_MS (pickerAlive) and the sidebar gives up on a pick whose heartbeats stopped for
 * PICK_LOST_MS, or never came within PICK_FIRST_BEAT_MS of opening (Google's dialog-to-sidebar sample).
 */
export const PICK_HEARTBEAT_MS = 2_000;
export const PICK_LOST_MS = 10_000;
export const PICK_FIRST_BEAT_MS = 30_000;

const pickKey = (id: string) => `pick:${id}`;
/** The heartbeat count has its own item, so a beat never overwrites the dialog's answer. */
const beatKey = (id: string) => `pickbeat:${id}`;
function setPick(id: string, s: PickState): PickState {
  CacheService.getUserCache()!.put(pickKey(id), JSON.stringify(s), PICK_TTL_SECONDS);
  return s;
}

/** Opens the Picker dialog; the sidebar then polls getPick(pickId), and gives up after the timings it is given. */
export function showPdfPicker(): { pickId: string; lostAfterMs: number; firstBeatMs: number } {
  const pickId = Utilities.getUuid();
  setPick(pickId, { state: 'waiting', beats: 0 });
  const t = HtmlService.createTemplateFromFile('picker');
  Object.assign(t as unknown as Record<string, unknown>, { pickId, heartbeatMs: PICK_HEARTBEAT_MS });
  SpreadsheetApp.getUi().showModalDialog(t.evaluate().setWidth(760).setHeight(520), 'Choose a policy PDF');
  return { pickId, lostAfterMs: PICK_LOST_MS, firstBeatMs: PICK_FIRST_BEAT_MS };
}

/** The dialog's heartbeat: counts it, and answers where the pick stands (a dialog whose pick the sidebar gave up on closes). */
export function pickerAlive(pickId: string): PickState {
  const cache = CacheService.getUserCache()!;
  const s = getPick(pickId);
  if (s.state === 'waiting') cache.put(beatKey(pickId), String(s.beats + 1), PICK_TTL_SECONDS);
  return s;
}
/**
 * What the dialog needs to build the Picker: the user's OAuth token (so the Picker needs no sign-in
 * of its own), the browser API key and the Cloud project number, which setAppId needs for the
 * drive.file grant. The last two are this deployment's, kept in script properties.
 */
export function getPickerConfig(): { token: string; developerKey: string; appId: string } {
  const p = PropertiesService.getScriptProperties();
  const developerKey = p.getProperty(PICKER_KEY_PROP);
  const appId = p.getProperty(PROJECT_NUMBER_PROP);
  if (!developerKey || !appId)
    throw new Error(
      `The file picker isn't set up: the add-on's script properties ${PICKER_KEY_PROP} and ${PROJECT_NUMBER_PROP} are missing (see addon/README.md).`,
    );
  return { token: ScriptApp.getOAuthToken(), developerKey, appId };
}

/**
 * The dialog's answer to a pick: the file is read and submitted at once, and the sidebar learns the
 * job id. A pick the sidebar no longer waits for (it gave up on the dialog) is not submitted.
 */
export function pickedPdf(pickId: string, fileId: string): PickState {
  const now = getPick(pickId);
  if (now.state !== 'waiting')
    return { state: 'failed', error: 'The sidebar stopped waiting for this dialog: choose the file again from the sidebar.' };
  try {
    const { jobId, fileName } = submitPdfExtraction(fileId);
    return setPick(pickId, { state: 'picked', jobId, fileName });
  } catch (e) {
    return setPick(pickId, { state: 'failed', error: e instanceof Error ? e.message : String(e) });
  }
}

export function pickCancelled(pickId: string): PickState {
  return setPick(pickId, { state: 'cancelled' });
}

export function getPick(pickId: string): PickState {
  const got = CacheService.getUserCache()!.getAll([pickKey(pickId), beatKey(pickId)]);
  const raw = got[pickKey(pickId)];
  if (!raw) return { state: 'cancelled' };
  const s = JSON.parse(raw) as PickState;
  return s.state === 'waiting' ? { state: 'waiting', beats: Number(got[beatKey(pickId)] ?? 0) } : s;
}

export interface ExtractionView {
  /** `review`: the job is complete and some values wait for a person (nothing was written yet). */
  status: TJob['status'] | 'review';
  fields: TExtractedFields | null;
  /** Every value read, with its confidence; those below REVIEW_CONFIDENCE are marked. */
  items?: ReviewItem[];
  row: number | null;
  message: string;
}

/**
 * Polls the job once. When complete and every value is at or above REVIEW_CONFIDENCE, appends them
 * as a row; otherwise nothing is written and the sidebar shows the values for review (review.ts).
 */
export function pollPdfExtraction(jobId: string): ExtractionView {
  const job = api.job(userConn(), jobId);
  if (job.status === 'pending') return { status: 'pending', fields: null, row: null, message: 'Reading the PDF…' };
  if (job.status === 'failed') return { status: 'failed', fields: null, row: null, message: job.error?.message ?? 'Extraction failed.' };
  const fields = job.result as TExtractedFields;
  const items = labelledItems(reviewItems(fields), userLanguage());
  const low = items.filter((i) => i.needsReview).length;
  if (low)
    return {
      status: 'review',
      fields,
      items,
      row: null,
      message: `${low} of ${items.length} values need a check before they go into the sheet.`,
    };
  return { ...appendExtractedRow(reviewedValues(items, {})), fields, items };
}

/**
 * Appends values as a row on the active sheet under the headers that match them (a header row is
 * written first on an empty sheet; unmatched values get new columns).
 */
export function appendExtractedRow(values: Partial<Record<TReviewKey, string>>): { status: 'complete'; row: number; message: string } {
  const sheet = SpreadsheetApp.getActiveSheet();
  const lastCol = sheet.getLastColumn();
  const headers =
    lastCol > 0
      ? sheet
          .getRange(1, 1, 1, lastCol)
          .getValues()[0]!
          .map((v) => String(v ?? ''))
      : [];
  const { row, newHeaders } = placeValues(headers, values);
  if (newHeaders.length) sheet.getRange(1, headers.length + 1, 1, newHeaders.length).setValues([newHeaders]);
  const at = Math.max(2, sheet.getLastRow() + 1);
  // Written as read, as plain text: Sheets would type a policy number of digits as a number (leading zeros and digits past 15 lost).
  sheet.getRange(at, 1, 1, row.length).setNumberFormat('@').setValues([row]);
  const found = REVIEW_KEYS.filter((f) => values[f] !== undefined).length;
  return { status: 'complete', row: at, message: `Row ${at}: ${found} field${found === 1 ? '' : 's'} found.` };
}
