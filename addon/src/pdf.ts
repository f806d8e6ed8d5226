/**
 * "Extract from Drive PDF": files chosen in Google Picker (several at once, up to MAX_FILES), opened
 * from the sidebar in a dialog (the file-open dialog pattern of the Apps Script dialogs guide), which
 * grants the add-on's drive.file access to each; a pasted link works for files picked before. The
 * files go into this user's queue (pdf-queue.ts), which the sidebar then works through.
 */
import { LANGUAGE_PACKS, type TLanguage } from '../../shared/packs/index.js';
import { bulkText, enqueue, extractableMeta, MAX_FILES, type QueueView } from './pdf-queue.js';
import { userLanguage } from './result-notes.js';
import { messageOf } from './run-state.js';

const PICK_TTL_SECONDS = 30 * 60;
const PICKER_KEY_PROP = 'PICKER_DEVELOPER_KEY';
const PROJECT_NUMBER_PROP = 'CLOUD_PROJECT_NUMBER';

/** Accepts a Drive file URL (…/d/ID/…, ?id=ID) or a bare ID. */
export function fileIdFrom(input: string, lang: TLanguage = userLanguage()): string {
  const s = String(input ?? '').trim();
  const m = /\/d\/([A-Za-z0-9_-]{10,})/.exec(s) ?? /[?&]id=([A-Za-z0-9_-]{10,})/.exec(s) ?? /^([A-Za-z0-9_-]{10,})$/.exec(s);
  if (!m) throw new Error(bulkText(lang, 'pasteLink'));
  return m[1]!;
}

/**
 * Pasted links (one or more, separated by spaces, commas or lines) into the queue. Each file is looked
 * up first, so a file never picked, or one the connector would refuse, is refused here in words.
 */
export function addPdfLinks(text: string): QueueView {
  const lang = userLanguage();
  const refs = String(text ?? '')
    .split(/[\s,]+/)
    .filter(Boolean);
  if (refs.length === 0) throw new Error(bulkText(lang, 'pasteLink'));
  if (refs.length > MAX_FILES) throw new Error(bulkText(lang, 'tooManyLinks', { max: MAX_FILES, n: refs.length }));
  const files = refs.map((r) => {
    const meta = extractableMeta(fileIdFrom(r, lang), lang);
    return { id: meta.id, name: meta.name };
  });
  return enqueue(files, lang);
}

/**
 * Where a Picker dialog opened from the sidebar stands; the sidebar polls it (dialog and sidebar
 * can't call each other). While waiting, `beats` counts the dialog's heartbeats.
 */
export type PickState =
  | { state: 'waiting'; beats: number }
  | { state: 'cancelled' }
  /** `files`: how many were added (a file still waiting in the queue is not added twice). */
  | { state: 'picked'; files: number }
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
  // maxItems: the Picker's setMaxItems, so no pick holds more files than one queue takes.
  Object.assign(t as unknown as Record<string, unknown>, { pickId, heartbeatMs: PICK_HEARTBEAT_MS, maxItems: MAX_FILES });
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
 * The dialog's answer to a pick: the files (id and name, as the Picker gives them) go into the queue at
 * once, nothing is uploaded yet, so the dialog closes without waiting. A pick the sidebar no longer waits
 * for (it gave up on the dialog) is not queued.
 */
export function pickedPdf(pickId: string, docs: { id: string; name?: string }[]): PickState {
  const now = getPick(pickId);
  const lang = userLanguage();
  if (now.state !== 'waiting') return { state: 'failed', error: bulkText(lang, 'dialogGone') };
  try {
    if (!Array.isArray(docs)) throw new Error(LANGUAGE_PACKS[lang].addon.sidebar.pdfNoFile);
    const files = docs.map((d) => ({ id: fileIdFrom(String(d?.id ?? ''), lang), name: String(d?.name ?? '') }));
    return setPick(pickId, { state: 'picked', files: enqueue(files, lang).added });
  } catch (e) {
    return setPick(pickId, { state: 'failed', error: messageOf(e) });
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
