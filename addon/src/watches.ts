/**
 * "Watch selected rows" and the list of watches (sidebar server side; docs/monitoring.md): the selected rows
 * (watch-rows.ts) become one watch on the connector (POST /api/v1/watches), re-verified on a cadence and
 * reporting what changed to a webhook, an e-mail digest and/or this spreadsheet; the key's watches are listed
 * with their next run, projected credits and the last run's first changes on the rows they came from, and
 * are paused, resumed and deleted.
 */
import { columnLetter } from '../../shared/column-letters.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import type { TWatch, TWatchCadence } from '../../shared/watches.js';
import { ensureBound } from './bindings.js';
import { call, ConnectorError, type Conn } from './connector.js';
import { keyTag } from './key-tag.js';
import { BUSY_SIDEBAR, LOCK_WAIT_MS, withUserLock } from './locks.js';
import { RESULT_HEADERS, resultColumns, type TMapping } from './mapping.js';
import { expand, runs } from './row-runs.js';
import { userConn } from './settings.js';
import { ensureStatusRules } from './status-format.js';
import { MAX_EXPIRY_WINDOW_DAYS, WATCH_CADENCES } from '../../shared/watch-limits.js';
import { readWatchRows, type TWatchedPolicy } from './watch-rows.js';

/** Changes of a watch's last run the sidebar lists; the rest are counted (the connector keeps 100, the sheet and webhook get all). */
const CHANGES_SHOWN = 5;
/** How long a click whose answer never came keeps its Idempotency-Key: a retry comes within the day. */
const ATTEMPT_KEEP_MS = 24 * 60 * 60 * 1000;
/** User property per click whose answer never came: its Idempotency-Key and when it was made. */
const ATTEMPT_PREFIX = 'covercheck.watch.try.';
/** Document property per watch made here: its sheet and rows, so a change is shown on its row. */
const ORIGIN_PREFIX = 'covercheck.watch.';
/** A selection of more row runs than this is recorded by its first and last row only (the property stays small). */
const ORIGIN_MAX_CHARS = 1500;

export interface WatchRequest {
  mapping: TMapping;
  endDate: number | null;
  cadence: TWatchCadence;
  windowDays: number;
  report: { sheet: boolean; email: boolean; webhookUrl: string };
}

export interface WatchChangeView {
  /** The row the policy was on when the watch was made here; null for a watch made elsewhere. */
  row: number | null;
  policy: string;
  before: string;
  after: string;
  /** The connector's words. */
  why: string;
}

export interface WatchView {
  id: string;
  status: 'active' | 'paused';
  cadence: TWatchCadence;
  windowDays: number;
  policies: number;
  /** Where the rows were, for a watch made from this spreadsheet. */
  origin: { sheet: string; first: number; last: number } | null;
  report: { sheet: string | null; thisSpreadsheet: boolean; email: boolean; webhook: string | null };
  nextRunAt: string | null;
  projectedCredits: number;
  rechecksPending: number;
  lastRun: {
    runId: string;
    at: string;
    status: 'running' | 'complete' | 'stopped';
    stopReason: string | null;
    policies: number;
    checked: number;
    changed: number;
    credits: number;
  } | null;
  changes: WatchChangeView[];
  /** Changes of the last run not in `changes`. */
  moreChanges: number;
}

interface Origin {
  /** Sheet name. */
  s: string;
  /** Row runs [first, count] of the policies, in watch order; absent when too many to keep. */
  r?: [number, number][];
  f: number;
  l: number;
}

const watchPath = (id: string, action = '') => `/api/v1/watches/${encodeURIComponent(id)}${action}`;
const watchApi = {
  create: (conn: Conn, body: unknown, idempotencyKey: string) =>
    call<TWatch>(conn, { method: 'post', path: '/api/v1/watches', json: body, idempotencyKey }),
  list: (conn: Conn) => call<{ watches: TWatch[] }>(conn, { method: 'get', path: '/api/v1/watches' }).watches,
  pause: (conn: Conn, id: string) => call<TWatch>(conn, { method: 'post', path: watchPath(id, '/pause'), json: {} }),
  resume: (conn: Conn, id: string) => call<TWatch>(conn, { method: 'post', path: watchPath(id, '/resume'), json: {} }),
  remove: (conn: Conn, id: string) => call<null>(conn, { method: 'delete', path: watchPath(id) }),
};

const messageOf = (e: unknown) => (e instanceof Error ? e.message : String(e));

function keyedConn(): Conn & { key: string } {
  const conn = userConn();
  if (!conn.url || !conn.key) throw new Error('Save a connector URL and API key in Covercheck > Settings first.');
  return conn as Conn & { key: string };
}

function origins(): Map<string, Origin> {
  const out = new Map<string, Origin>();
  const all = PropertiesService.getDocumentProperties().getProperties();
  for (const [k, v] of Object.entries(all)) {
    if (!k.startsWith(ORIGIN_PREFIX)) continue;
    try {
      out.set(k.slice(ORIGIN_PREFIX.length), JSON.parse(v) as Origin);
    } catch {
      // Not one of ours in the expected form: shown without its rows.
    }
  }
  return out;
}

function toView(w: TWatch, origin: Origin | undefined, spreadsheetId: string): WatchView {
  const rows = origin?.r ? expand(origin.r) : null;
  const run = w.last_run;
  const target = w.report.sheet_target;
  const changes = (run?.changes ?? []).slice(0, CHANGES_SHOWN).map((c) => ({
    row: rows?.[c.index] ?? null,
    policy: c.policy_number,
    before: c.before.status,
    after: c.after.status,
    why: c.why,
  }));
  return {
    id: w.watch_id,
    status: w.status,
    cadence: w.cadence,
    windowDays: w.expiry_window_days,
    policies: w.policy_count,
    origin: origin ? { sheet: origin.s, first: origin.f, last: origin.l } : null,
    report: {
      sheet: target?.sheet_name ?? null,
      thisSpreadsheet: target?.spreadsheet_id === spreadsheetId,
      email: w.report.email,
      webhook: w.report.webhook_url,
    },
    nextRunAt: w.next_run_at,
    projectedCredits: w.projected_monthly_credits,
    rechecksPending: w.rechecks_pending,
    lastRun: run
      ? {
          runId: run.run_id,
          at: run.finished_at ?? run.started_at,
          status: run.status,
          stopReason: run.stop_reason,
          policies: run.policies,
          checked: run.checked,
          changed: run.changed,
          credits: run.credits_charged,
        }
      : null,
    changes,
    moreChanges: Math.max(0, (run?.changed ?? 0) - changes.length),
  };
}

/**
 * The Idempotency-Key of this click: the one a click with the same request got before when its answer
 * never came (the execution ended, the connection broke), so the connector answers with the watch it made
 * then instead of making a second; otherwise a new one. Recorded before the request goes out.
 */
function attempt(conn: Conn & { key: string }, body: string): { key: string; end(): void } {
  // User properties, not the cache: Google may drop a cached item before it expires (Cache reference), and a
  // dropped key makes the retried click a second watch.
  const props = PropertiesService.getUserProperties();
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, `${keyTag(conn.key)}\n${body}`, Utilities.Charset.UTF_8);
  const name = `${ATTEMPT_PREFIX}${Utilities.base64EncodeWebSafe(digest).slice(0, 32)}`;
  const made = (v: string | undefined): { key: string; at: number } | null => {
    try {
      const p = v ? (JSON.parse(v) as { key?: unknown; at?: unknown }) : null;
      return p && typeof p.key === 'string' && typeof p.at === 'number' ? { key: p.key, at: p.at } : null;
    } catch {
      return null;
    }
  };
  const key = withUserLock(
    LOCK_WAIT_MS.sidebar,
    () => {
      const now = Date.now();
      const all = props.getProperties();
      // Clicks never answered and never retried go after a day, so the store stays small.
      for (const [k, v] of Object.entries(all)) {
        const m = made(v);
        if (k.startsWith(ATTEMPT_PREFIX) && k !== name && !(m && now - m.at < ATTEMPT_KEEP_MS)) props.deleteProperty(k);
      }
      const had = made(all[name]);
      if (had && now - had.at < ATTEMPT_KEEP_MS) return had.key;
      const fresh = `covercheck-watch-${Utilities.getUuid()}`;
      props.setProperty(name, JSON.stringify({ key: fresh, at: now }));
      return fresh;
    },
    () => {
      throw new Error(BUSY_SIDEBAR);
    },
  );
  return { key, end: () => props.deleteProperty(name) };
}

/**
 * Whether the connector gave a definite answer: then the next click is a new request. A 409 (the same key
 * still in progress), a 429, a 5xx or no answer at all leave the outcome open, and the key is kept for the retry.
 */
const definite = (e: unknown) => e instanceof ConnectorError && e.status >= 400 && e.status < 500 && e.status !== 409 && e.status !== 429;

/** The connector names a refused policy by its index ("policies[3]: ..."): say which row it is. */
function namingRows(message: string, rows: number[], policies: TWatchedPolicy[]): string {
  return message.replace(/^policies\[(\d+)\]: /, (m, i: string) => {
    const n = Number(i);
    return rows[n] ? `Row ${rows[n]} (${policies[n]!.policy_number}): ` : m;
  });
}

/** The result columns the connector updates in place, found or made as the Verify section makes them. */
function statusColumns(sheet: GoogleAppsScript.Spreadsheet.Sheet, keyCol: number): TSheetTarget {
  const lastCol = Math.max(1, sheet.getLastColumn());
  const headers = sheet
    .getRange(1, 1, 1, lastCol)
    .getValues()[0]!
    .map((v) => String(v ?? '').trim());
  const { cols } = resultColumns(headers, sheet.getLastColumn());
  // The five visible ones; the input-hash column is the Verify section's own bookkeeping.
  const visible = cols.slice(0, 5);
  visible.forEach((c, i) => {
    if (headers[c - 1] !== RESULT_HEADERS[i]) sheet.getRange(1, c).setValue(RESULT_HEADERS[i]!);
  });
  ensureStatusRules(sheet, visible[0]!);
  const [status, confidence, insurer, flags, checkedAt] = visible.map(columnLetter);
  return {
    spreadsheet_id: SpreadsheetApp.getActive().getId(),
    sheet_name: sheet.getName(),
    key_column: columnLetter(keyCol),
    header_rows: 1,
    columns: { status: status!, confidence_score: confidence!, insurer: insurer!, flags: flags!, checked_at: checkedAt! },
  };
}

function checkOptions(req: WatchRequest): void {
  const cadences: readonly string[] = WATCH_CADENCES;
  if (!cadences.includes(req.cadence)) throw new Error(`Re-check must be ${cadences.join(' or ')}.`);
  const days = req.windowDays;
  if (!(Number.isInteger(days) && days >= 0 && days <= MAX_EXPIRY_WINDOW_DAYS))
    throw new Error(`The expiry window must be a whole number of days from 0 to ${MAX_EXPIRY_WINDOW_DAYS}.`);
  const hook = String(req.report?.webhookUrl ?? '').trim();
  if (hook && !/^https:\/\//i.test(hook)) throw new Error('The webhook URL must start with https://. Nothing was sent.');
}

function recordOrigin(id: string, sheet: string, rows: number[]): void {
  const r = runs(rows);
  const full: Origin = { s: sheet, r, f: rows[0]!, l: rows[rows.length - 1]! };
  const text = JSON.stringify(full).length <= ORIGIN_MAX_CHARS ? JSON.stringify(full) : JSON.stringify({ ...full, r: undefined });
  try {
    PropertiesService.getDocumentProperties().setProperty(ORIGIN_PREFIX + id, text);
  } catch {
    // The watch exists; without its record its changes are listed without their rows.
  }
}

/**
 * "Watch these rows": the selected rows as one watch. Nothing is sent past 10,000 policies or when a row
 * could not be watched; with "this spreadsheet", it is connected to the key first (bindings.ts).
 */
export function watchSelectedRows(req: WatchRequest): { watch: WatchView; blankRows: number } {
  checkOptions(req);
  const conn = keyedConn();
  const read = readWatchRows(req.mapping, req.endDate ?? null);
  const hook = String(req.report.webhookUrl ?? '').trim();
  let sheetTarget: TSheetTarget | undefined;
  if (req.report.sheet) {
    // The connector writes only into a spreadsheet bound to the key.
    ensureBound();
    sheetTarget = statusColumns(read.sheet, req.mapping.policy_number!);
  }
  const body = {
    policies: read.policies,
    cadence: req.cadence,
    expiry_window_days: req.windowDays,
    report: { ...(hook ? { webhook_url: hook } : {}), email: !!req.report.email, ...(sheetTarget ? { sheet_target: sheetTarget } : {}) },
  };
  const tried = attempt(conn, JSON.stringify(body));
  let made: TWatch;
  try {
    made = watchApi.create(conn, body, tried.key);
  } catch (e) {
    if (definite(e)) {
      tried.end();
      throw new Error(namingRows(messageOf(e), read.rows, read.policies));
    }
    throw new Error(
      `${messageOf(e)} The watch may have been made: choose "Watch these rows" again to find out (the same rows are never watched twice).`,
    );
  }
  tried.end();
  recordOrigin(made.watch_id, read.sheet.getName(), read.rows);
  const ssId = SpreadsheetApp.getActive().getId();
  return { watch: toView(made, origins().get(made.watch_id), ssId), blankRows: read.blank };
}

/** The key's watches, newest last as the connector lists them. */
export function listWatches(): WatchView[] {
  const conn = keyedConn();
  try {
    const list = watchApi.list(conn);
    const known = origins();
    const ssId = SpreadsheetApp.getActive().getId();
    return list.map((w) => toView(w, known.get(w.watch_id), ssId));
  } catch (e) {
    throw new Error(messageOf(e));
  }
}

function act(id: string, f: (conn: Conn, id: string) => unknown): WatchView[] {
  try {
    f(keyedConn(), String(id));
  } catch (e) {
    throw new Error(messageOf(e));
  }
  return listWatches();
}

/** No run starts until it is resumed; a run under way stops after its current chunk. Answers the list. */
export const pauseWatch = (id: string) => act(id, watchApi.pause);
/** A run the cadence missed while paused starts at once. Answers the list. */
export const resumeWatch = (id: string) => act(id, watchApi.resume);
/** The watch with its runs and changes. Answers the list. */
export function deleteWatch(id: string): WatchView[] {
  return act(id, (conn, w) => {
    watchApi.remove(conn, w);
    PropertiesService.getDocumentProperties().deleteProperty(ORIGIN_PREFIX + w);
  });
}
