/**
 * "Import dataset": search the catalogue, preview, import a series into a named sheet (header +
 * rows), optionally a line chart, optionally a scheduled refresh.
 *
 * Refreshes by the add-on run from one hourly time-driven trigger per user and spreadsheet, whose
 * handler refreshes that user's schedules that are due: Editor add-ons may have only one trigger
 * of each type per user per document, and none more often than hourly (Editor add-on triggers,
 * Restrictions). Schedules live in document properties with their owner (a random id kept in the
 * owner's user properties; no email address, which would need the userinfo.email scope). Any
 * editor may remove any schedule; since an editor can't see or delete another's trigger
 * (getUserTriggers(spreadsheet) returns the current user's in that spreadsheet), a handler that
 * finds none of its owner's schedules deletes its own trigger. Installable triggers don't run in
 * test deployments. Apps Script allows 20 triggers per user per script (Quotas for Google
 * Services), so a user with refreshes in 20 spreadsheets is told so; the triggers of a user share
 * 90 minutes a day (6 h on Workspace), so the handler stops at its share of the day; and after an
 * update that adds a scope the owner has not accepted, the handler pauses the owner's schedules
 * with the reason (ScriptApp.getAuthorizationInfo) until they authorize again.
 */
import type { TDataset, TSeriesPoint } from '../../shared/dataset.js';
import { api, type Conn } from './connector.js';
import { BUSY_SIDEBAR, LOCK_WAIT_MS, withDocumentLock, withUserLock } from './locks.js';
import { outputMode, writeSeriesByMode, type TOutputMode } from './output-modes.js';
import { forgetRuns, recordRun, runHistory, type RunRecord } from './run-history.js';
import { userConn } from './settings.js';
import { SCHEDULE_PAUSE_AFTER_FAILURES } from '../../shared/sheets.js';
import { createConnectorSchedule, type ConnectorScheduleView } from './sheets.js';

export const SCHEDULES = ['hourly', 'daily', 'weekly'] as const;
export type TSchedule = (typeof SCHEDULES)[number];
const SCHEDULES_PROP = 'covercheck.schedules';
const USER_ID_PROP = 'covercheck.userId';
const triggerProp = (docId: string) => `covercheck.trigger.${docId}`;
const triggerErrorProp = (docId: string) => `covercheck.triggerError.${docId}`;
/** The function the hourly trigger calls (a top-level entry point). */
export const REFRESH_HANDLER = 'refreshScheduledImports';
/** Failed refreshes in a row after which a schedule pauses itself. */
export const PAUSE_AFTER_FAILURES = SCHEDULE_PAUSE_AFTER_FAILURES;

const PERIOD_MS: Record<TSchedule, number> = { hourly: 3600_000, daily: 24 * 3600_000, weekly: 7 * 24 * 3600_000 };
/** Trigger times are "slightly randomized" (Installable triggers guide): a schedule this close to due runs now rather than an hour late. */
const DUE_SLACK_MS = 10 * 60_000;
/** The handler starts no refresh after this much of its 6 minutes. */
const HANDLER_BUDGET_MS = 4 * 60_000;
/** "Quotas for Google Services": triggers 20 / user / script. */
const TRIGGERS_PER_USER = 20;
/**
 * Triggers total runtime is 90 min / day per consumer user (6 h Workspace), shared with the user's
 * other scripts: the hourly refreshes start none past this much in 24 hours, kept per user.
 */
export const DAILY_TRIGGER_SHARE_MS = 60 * 60_000;
const TRIGGER_TIME_PROP = 'covercheck.triggerTime';
const DAY_MS = 24 * 3600_000;
export const TOO_MANY_TRIGGERS =
  'Covercheck can\'t add an hourly refresh here: your Google account already has 20 Covercheck refresh triggers, one per spreadsheet, the most Apps Script allows. Remove an add-on refresh in another spreadsheet, or choose "Refreshed by: the connector".';
export const NEEDS_AUTHORIZATION =
  'Paused: Covercheck needs permission again from whoever set up this refresh, after an update of the add-on. They can open Extensions > Covercheck in this spreadsheet and accept; the refreshes then resume by themselves.';
const dailyShareUsed = (resumeAt: number) =>
  `The hourly refreshes have used today's share of Apps Script's trigger time (${DAILY_TRIGGER_SHARE_MS / 60_000} of the 90 minutes a day a Google account gets); due schedules refresh again from ${new Date(resumeAt).toISOString().slice(0, 16).replace('T', ' ')} UTC, or use "Refresh now".`;
export const NO_DOCUMENT =
  'The hourly refresh ran without access to this spreadsheet, so nothing was refreshed. Use "Refresh now", or let the connector refresh the sheet.';

export interface ImportRequest {
  slug: string;
  sheetName?: string;
  limit?: number;
  chart?: boolean;
  schedule?: TSchedule | 'none';
  /**
   * Who refreshes: 'trigger' (default) this add-on's hourly trigger; 'connector' the connector's
   * own scheduler, through its service account (needs the spreadsheet bound to the key).
   */
  refreshBy?: 'trigger' | 'connector';
  /** How the import and its refreshes write: overwrite (default), append new points, or merge on the date. */
  mode?: TOutputMode;
}

interface ScheduleEntry {
  id: string;
  slug: string;
  sheetName: string;
  limit: number;
  schedule: TSchedule;
  /** The owner's random id (see ownId). */
  owner: string;
  nextDue: number;
  lastRefresh: string | null;
  lastError: string | null;
  /** Absent in schedules made before output modes: overwrite. */
  mode?: TOutputMode;
  /** Failed refreshes in a row (absent: none). */
  failures?: number;
  /** Why the hourly trigger no longer refreshes it, until someone resumes it. */
  paused?: string | null;
  /** Set when paused for the owner's authorization: the owner's trigger resumes it once authorized. */
  pausedFor?: 'authorization';
}

/** What the sidebar shows of a schedule. */
export interface ScheduleView {
  id: string;
  slug: string;
  sheetName: string;
  schedule: TSchedule;
  mode: TOutputMode;
  lastRefresh: string | null;
  lastError: string | null;
  /** Refreshed by the current user's trigger (else by another editor's). */
  mine: boolean;
  /** Failed refreshes in a row: the sidebar's badge counts schedules with one or more. */
  failures: number;
  /** Why it is paused (the sidebar offers Resume), or null. */
  paused: string | null;
  /** The last 30 runs, newest first (run-history.ts). */
  runs: RunRecord[];
}

export interface SchedulesView {
  schedules: ScheduleView[];
  /** Why the current user's last hourly run refreshed nothing, if it couldn't reach the spreadsheet. */
  triggerError: string | null;
}

/** Dataset routes are public: send no key, so a key without the datasets scope can't break them. */
function publicConn(): Conn {
  const c = userConn();
  if (!c.url) throw new Error('No connector URL set: open Covercheck > Settings.');
  return { url: c.url, key: null };
}

export function searchDatasets(
  q: string,
): Pick<TDataset, 'slug' | 'title' | 'source' | 'cadence' | 'unit' | 'first_date' | 'last_date' | 'point_count'>[] {
  return api.searchDatasets(publicConn(), q).datasets.map((d) => ({
    slug: d.slug,
    title: d.title,
    source: d.source,
    cadence: d.cadence,
    unit: d.unit,
    first_date: d.first_date,
    last_date: d.last_date,
    point_count: d.point_count,
  }));
}

export function previewDataset(slug: string): { dataset: TDataset; points: TSeriesPoint[] } {
  const conn = publicConn();
  return { dataset: api.dataset(conn, slug), points: api.series(conn, slug, 10).points };
}

/**
 * Writes a dataset's latest points into columns A:B of the named sheet (made when missing) by the
 * output mode; columns beside them are the user's and are never touched. `rows` counts the rows
 * written (added or updated), `dataRows` those in A:B afterwards.
 */
function writeSeries(
  ss: GoogleAppsScript.Spreadsheet.Spreadsheet,
  conn: Conn,
  slug: string,
  sheetName: string,
  limit: number,
  mode: TOutputMode = 'overwrite',
): { sheet: GoogleAppsScript.Spreadsheet.Sheet; rows: number; dataRows: number; title: string } {
  const dataset = api.dataset(conn, slug);
  const points = api.series(conn, slug, limit).points;
  const sheet = ss.getSheetByName(sheetName) ?? ss.insertSheet(sheetName);
  const out = writeSeriesByMode(sheet, ['Date', `${dataset.title} (${dataset.unit})`], points, mode);
  return { sheet, rows: out.added + out.updated, dataRows: out.dataRows, title: dataset.title };
}

const sheetNameFor = (slug: string) => slug.slice(0, 90);
const clampLimit = (n: unknown) => Math.max(1, Math.min(5000, Math.floor(Number(n) || 100)));

export function importDataset(req: ImportRequest): {
  sheetName: string;
  rows: number;
  chart: boolean;
  schedule: ScheduleView | null;
  connectorSchedule: ConnectorScheduleView | null;
} {
  const conn = publicConn();
  const sheetName = String(req.sheetName ?? '').trim() || sheetNameFor(req.slug);
  const limit = clampLimit(req.limit);
  const wanted = req.schedule && req.schedule !== 'none' ? req.schedule : null;
  if (wanted && !SCHEDULES.includes(wanted)) throw new Error(`Schedule must be one of ${SCHEDULES.join(', ')}.`);
  const byConnector = req.refreshBy === 'connector';
  const mode = outputMode(req.mode);
  // The trigger first: if it can't be had, nothing has been written yet.
  if (wanted && !byConnector) ensureTrigger();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  // Locked: a refresh of the same sheet (the trigger, another editor) must not interleave its
  // rows with these, and the schedule list and run history are read, changed and written back.
  const { rows, chart, schedule } = withDocumentLock(
    LOCK_WAIT_MS.sidebar,
    () => importLocked(ss, conn, req, sheetName, limit, wanted && !byConnector ? wanted : null, mode),
    () => {
      throw new Error(BUSY_SIDEBAR);
    },
  );
  const connectorSchedule =
    wanted && byConnector ? createConnectorSchedule({ slug: req.slug, sheetName, cadence: wanted, limit, mode }) : null;
  return { sheetName, rows, chart, schedule, connectorSchedule };
}

function importLocked(
  ss: GoogleAppsScript.Spreadsheet.Spreadsheet,
  conn: Conn,
  req: ImportRequest,
  sheetName: string,
  limit: number,
  wanted: TSchedule | null,
  mode: TOutputMode,
): { rows: number; chart: boolean; schedule: ScheduleView | null } {
  const importStarted = Date.now();
  const { sheet, rows, dataRows, title } = writeSeries(ss, conn, req.slug, sheetName, limit, mode);
  let chart = false;
  if (req.chart && sheet.getCharts().length === 0) {
    sheet.insertChart(
      sheet
        .newChart()
        .setChartType(Charts.ChartType.LINE)
        .addRange(sheet.getRange(1, 1, dataRows + 1, 2))
        .setPosition(2, 4, 0, 0)
        .setOption('title', title)
        .build(),
    );
    chart = true;
  }
  const schedule = wanted ? addSchedule(req.slug, sheetName, limit, wanted, mode) : null;
  // The import is the schedule's first run.
  if (schedule)
    recordRun(PropertiesService.getDocumentProperties(), schedule.id, {
      at: new Date(importStarted).toISOString(),
      ok: true,
      rows,
      durationMs: Date.now() - importStarted,
      error: null,
      by: 'manual',
    });
  return { rows, chart, schedule };
}

function readSchedules(props: GoogleAppsScript.Properties.Properties): ScheduleEntry[] {
  const raw = props.getProperty(SCHEDULES_PROP);
  return raw ? (JSON.parse(raw) as ScheduleEntry[]) : [];
}
function writeSchedules(props: GoogleAppsScript.Properties.Properties, list: ScheduleEntry[]): void {
  props.setProperty(SCHEDULES_PROP, JSON.stringify(list));
}

/** This user's stable random id (user properties are per user and script, and readable in the user's own triggers). */
function ownId(): string {
  const up = PropertiesService.getUserProperties();
  let id = up.getProperty(USER_ID_PROP);
  if (!id) {
    id = Utilities.getUuid();
    up.setProperty(USER_ID_PROP, id);
  }
  return id;
}

/**
 * The current user's hourly trigger for this spreadsheet, created when missing. It is looked up
 * with getUserTriggers(spreadsheet), this user's triggers in this spreadsheet only
 * (getProjectTriggers lists every spreadsheet's). Its id is recorded for the handler, which may
 * run without the spreadsheet and then finds the document by it.
 */
function ensureTrigger(): string {
  const up = PropertiesService.getUserProperties();
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  let uid = ScriptApp.getUserTriggers(ss)
    .find((t) => t.getHandlerFunction() === REFRESH_HANDLER)
    ?.getUniqueId();
  if (!uid) {
    if (ScriptApp.getProjectTriggers().length >= TRIGGERS_PER_USER) throw new Error(TOO_MANY_TRIGGERS);
    try {
      uid = ScriptApp.newTrigger(REFRESH_HANDLER).timeBased().everyHours(1).create().getUniqueId();
    } catch (e) {
      // Apps Script's own refusal ("This script has too many triggers…"), should the count above have missed one.
      if (/too many triggers/i.test(e instanceof Error ? e.message : String(e))) throw new Error(TOO_MANY_TRIGGERS);
      throw e;
    }
  }
  up.setProperty(triggerProp(ss.getId()), uid);
  return uid;
}

function deleteOwnTrigger(ss: GoogleAppsScript.Spreadsheet.Spreadsheet): void {
  const up = PropertiesService.getUserProperties();
  for (const t of ScriptApp.getUserTriggers(ss)) if (t.getHandlerFunction() === REFRESH_HANDLER) ScriptApp.deleteTrigger(t);
  up.deleteProperty(triggerProp(ss.getId()));
  up.deleteProperty(triggerErrorProp(ss.getId()));
}

function addSchedule(slug: string, sheetName: string, limit: number, schedule: TSchedule, mode: TOutputMode): ScheduleView {
  const props = PropertiesService.getDocumentProperties();
  const me = ownId();
  const entry: ScheduleEntry = {
    id: Utilities.getUuid().slice(0, 8),
    slug,
    sheetName,
    limit,
    schedule,
    mode,
    owner: me,
    nextDue: Date.now() + PERIOD_MS[schedule],
    lastRefresh: new Date().toISOString(),
    lastError: null,
  };
  // One schedule per sheet: a new one replaces the old, whoever made it.
  writeSchedules(props, [...readSchedules(props).filter((s) => s.sheetName !== sheetName), entry]);
  return toView(entry, me, []);
}

const toView = (s: ScheduleEntry, me: string, runs: RunRecord[] = []): ScheduleView => ({
  id: s.id,
  slug: s.slug,
  sheetName: s.sheetName,
  schedule: s.schedule,
  mode: s.mode ?? 'overwrite',
  lastRefresh: s.lastRefresh,
  lastError: s.lastError,
  mine: s.owner === me,
  failures: s.failures ?? 0,
  paused: s.paused ?? null,
  runs,
});

export function listSchedules(): SchedulesView {
  const me = ownId();
  const docId = SpreadsheetApp.getActiveSpreadsheet().getId();
  const raw = PropertiesService.getUserProperties().getProperty(triggerErrorProp(docId));
  const props = PropertiesService.getDocumentProperties();
  return {
    schedules: readSchedules(props).map((s) => toView(s, me, runHistory(props, s.id))),
    triggerError: raw ? (JSON.parse(raw) as { message: string }).message : null,
  };
}

/** Removes a schedule (anyone's); the current user's trigger goes with their last schedule here, another editor's removes itself when it next runs. */
export function removeSchedule(id: string): SchedulesView {
  const props = PropertiesService.getDocumentProperties();
  const me = ownId();
  const left = withDocumentLock(
    LOCK_WAIT_MS.sidebar,
    () => {
      const rest = readSchedules(props).filter((s) => s.id !== id);
      writeSchedules(props, rest);
      forgetRuns(props, id);
      return rest;
    },
    () => {
      throw new Error(BUSY_SIDEBAR);
    },
  );
  if (!left.some((s) => s.owner === me)) deleteOwnTrigger(SpreadsheetApp.getActiveSpreadsheet());
  return listSchedules();
}

/** Refreshes the given schedules now (none started past `budgetMs`), recording the outcome on each; the ids refreshed. */
function refresh(
  ss: GoogleAppsScript.Spreadsheet.Spreadsheet,
  props: GoogleAppsScript.Properties.Properties,
  ids: string[],
  started: number,
  by: RunRecord['by'],
  budgetMs = HANDLER_BUDGET_MS,
): string[] {
  const refreshed: string[] = [];
  for (const id of ids) {
    if (Date.now() - started >= budgetMs) break;
    // One schedule per lock: its import, run record and list entry are one unit, and the trigger
    // and a sidebar never write the same sheet at once (in append or merge mode both would read
    // the rows before either wrote, and add the same points twice). The trigger leaves a schedule
    // it can't lock due for the next hour; the sidebar tells the user.
    const ran = withDocumentLock(
      by === 'trigger' ? LOCK_WAIT_MS.trigger : LOCK_WAIT_MS.sidebar,
      () => refreshOne(ss, props, id, by),
      () => {
        if (by === 'manual') throw new Error(BUSY_SIDEBAR);
        return false;
      },
    );
    if (ran) refreshed.push(id);
  }
  return refreshed;
}

/** Inside the lock: one schedule's refresh, read afresh (another execution may have removed or just refreshed it). */
function refreshOne(
  ss: GoogleAppsScript.Spreadsheet.Spreadsheet,
  props: GoogleAppsScript.Properties.Properties,
  id: string,
  by: RunRecord['by'],
): boolean {
  const s = readSchedules(props).find((x) => x.id === id);
  if (!s || (by === 'trigger' && (s.paused || s.nextDue - DUE_SLACK_MS > Date.now()))) return false;
  const at = Date.now();
  let change: Pick<ScheduleEntry, 'lastRefresh' | 'lastError' | 'nextDue' | 'failures' | 'paused'>;
  try {
    const { rows } = writeSeries(ss, publicConn(), s.slug, s.sheetName, s.limit, s.mode ?? 'overwrite');
    change = { lastRefresh: new Date(at).toISOString(), lastError: null, nextDue: at + PERIOD_MS[s.schedule], failures: 0, paused: null };
    recordRun(props, s.id, { at: new Date(at).toISOString(), ok: true, rows, durationMs: Date.now() - at, error: null, by });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    const failures = (s.failures ?? 0) + 1;
    // A schedule that keeps failing stops spending the trigger's runs (and the user's quotas) until someone looks.
    const paused =
      s.paused ?? (failures >= PAUSE_AFTER_FAILURES ? `Paused after ${failures} failed refreshes in a row. The last: ${message}` : null);
    change = { lastRefresh: s.lastRefresh, lastError: message, nextDue: at + PERIOD_MS.hourly, failures, paused };
    recordRun(props, s.id, { at: new Date(at).toISOString(), ok: false, rows: null, durationMs: Date.now() - at, error: message, by });
  }
  writeSchedules(
    props,
    readSchedules(props).map((x) => (x.id === id ? { ...x, ...change } : x)),
  );
  return true;
}

/** "Resume" in the sidebar: un-pauses a schedule and refreshes it at once (it pauses again after three more failures). */
export function resumeSchedule(id: string): SchedulesView {
  const props = PropertiesService.getDocumentProperties();
  withDocumentLock(
    LOCK_WAIT_MS.sidebar,
    () =>
      writeSchedules(
        props,
        readSchedules(props).map((s) => (s.id === id ? { ...s, paused: null, pausedFor: undefined, failures: 0 } : s)),
      ),
    () => {
      throw new Error(BUSY_SIDEBAR);
    },
  );
  return refreshScheduleNow(id);
}

/** "Refresh now" in the sidebar: one schedule, whoever owns it. */
export function refreshScheduleNow(id: string): SchedulesView {
  refresh(SpreadsheetApp.getActiveSpreadsheet(), PropertiesService.getDocumentProperties(), [id], Date.now(), 'manual');
  return listSchedules();
}

/** The trigger time this user's refreshes used in the current 24 hours (kept in user properties, which every spreadsheet of the user's shares). */
function triggerTime(up: GoogleAppsScript.Properties.Properties, now: number): { since: number; usedMs: number } {
  const raw = up.getProperty(TRIGGER_TIME_PROP);
  const t = raw ? (JSON.parse(raw) as { since: number; usedMs: number }) : null;
  return t && now - t.since < DAY_MS ? t : { since: now, usedMs: 0 };
}

/**
 * The hourly trigger's handler, run as the trigger's owner. First the owner's authorization: after
 * an update whose new scopes the owner has not accepted, ScriptApp.getAuthorizationInfo(FULL)
 * answers REQUIRED and calls needing them fail, so the owner's schedules pause with the reason
 * (no failed run, no failure count) and resume by themselves once the owner has authorized again.
 * The time-driven event object names the trigger but no document, and
 * SpreadsheetApp.getActiveSpreadsheet() "returns null if there is none": without the spreadsheet
 * (and so without its document properties) the run records why in the owner's user properties and
 * stops. Refreshes stop at the handler's budget and at the day's share of trigger time; those not
 * started stay due and run at a later hour.
 */
export function refreshScheduledImports(e?: { triggerUid?: string }): void {
  const started = Date.now();
  const authorized =
    ScriptApp.getAuthorizationInfo(ScriptApp.AuthMode.FULL).getAuthorizationStatus() !== ScriptApp.AuthorizationStatus.REQUIRED;
  let ss: GoogleAppsScript.Spreadsheet.Spreadsheet | null = null;
  try {
    ss = SpreadsheetApp.getActiveSpreadsheet();
  } catch (err) {
    // Not authorized for the spreadsheet any more: recorded below as for a run without it.
    if (authorized) throw err;
  }
  const props = ss ? PropertiesService.getDocumentProperties() : null;
  const up = PropertiesService.getUserProperties();
  if (!ss || !props) {
    const key = Object.entries(up.getProperties()).find(([k, v]) => k.startsWith('covercheck.trigger.') && v === e?.triggerUid)?.[0];
    if (key)
      up.setProperty(
        triggerErrorProp(key.slice('covercheck.trigger.'.length)),
        JSON.stringify({ at: new Date().toISOString(), message: authorized ? NO_DOCUMENT : NEEDS_AUTHORIZATION }),
      );
    return;
  }
  const me = ownId();
  const docId = ss.getId();
  let mine = readSchedules(props).filter((s) => s.owner === me);
  if (mine.length === 0) {
    // Every schedule of this user's was removed (perhaps by another editor): stop firing.
    deleteOwnTrigger(ss);
    return;
  }
  up.deleteProperty(triggerErrorProp(docId));
  const pause = authorized ? mine.filter((s) => s.pausedFor === 'authorization') : mine.filter((s) => !s.paused);
  if (pause.length) {
    const ids = new Set(pause.map((s) => s.id));
    const change = authorized
      ? { paused: null, pausedFor: undefined }
      : { paused: NEEDS_AUTHORIZATION, pausedFor: 'authorization' as const };
    const all = withDocumentLock(
      LOCK_WAIT_MS.trigger,
      () => {
        const list = readSchedules(props).map((s) => (ids.has(s.id) ? { ...s, ...change } : s));
        writeSchedules(props, list);
        return list;
      },
      () => null,
    );
    // Not had: the change is made at the next hour's run.
    if (!all) return;
    mine = all.filter((s) => s.owner === me);
  }
  if (!authorized) return;
  const due = mine.filter((s) => !s.paused && s.nextDue - DUE_SLACK_MS <= Date.now()).map((s) => s.id);
  if (!due.length) return;
  const time = triggerTime(up, started);
  const left = DAILY_TRIGGER_SHARE_MS - time.usedMs;
  if (left <= 0) {
    up.setProperty(triggerErrorProp(docId), JSON.stringify({ at: new Date().toISOString(), message: dailyShareUsed(time.since + DAY_MS) }));
    return;
  }
  try {
    refresh(ss, props, due, started, 'trigger', Math.min(HANDLER_BUDGET_MS, left));
  } finally {
    // Every spreadsheet's trigger of this user adds to this one total: re-read under the user's lock, not the value read above.
    const used = Date.now() - started;
    withUserLock(
      LOCK_WAIT_MS.trigger,
      () => {
        const now = triggerTime(up, started);
        up.setProperty(TRIGGER_TIME_PROP, JSON.stringify({ since: now.since, usedMs: now.usedMs + used }));
      },
      () => undefined,
    );
  }
}
