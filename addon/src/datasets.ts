/**
 * "Import dataset": search the catalogue, preview, import a series into a named sheet (header +
 * rows), optionally a line chart, optionally a scheduled refresh through a time-driven trigger.
 * Schedules are kept in document properties, one entry per trigger.
 */
import type { TDataset, TSeriesPoint } from '../../shared/dataset.js';
import { api, type Conn } from './connector.js';
import { userConn } from './settings.js';
import { createConnectorSchedule, type ConnectorScheduleView } from './sheets.js';

export const SCHEDULES = ['hourly', 'daily', 'weekly'] as const;
export type TSchedule = (typeof SCHEDULES)[number];
const SCHEDULES_PROP = 'covercheck.schedules';
/** The function the time-driven triggers call (a top-level entry point). */
export const REFRESH_HANDLER = 'refreshScheduledImports';

export interface ImportRequest {
  slug: string;
  sheetName?: string;
  limit?: number;
  chart?: boolean;
  schedule?: TSchedule | 'none';
  /**
   * Who refreshes: 'trigger' (default) an Apps Script time-driven trigger of this add-on;
   * 'connector' the connector's own scheduler, through its service account (issue 7).
   */
  refreshBy?: 'trigger' | 'connector';
}

export interface ScheduleEntry {
  triggerId: string;
  slug: string;
  sheetName: string;
  limit: number;
  schedule: TSchedule;
  lastRefresh: string | null;
  lastError: string | null;
}

/** Dataset routes are public: send no key, so a key without the datasets scope can't break them. */
function publicConn(): Conn {
  const c = userConn();
  if (!c.url) throw new Error('No connector URL set: open Covercheck > Settings.');
  return { url: c.url, key: null };
}

export function searchDatasets(q: string): Pick<TDataset, 'slug' | 'title' | 'source' | 'cadence' | 'unit' | 'first_date' | 'last_date' | 'point_count'>[] {
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

function writeSeries(conn: Conn, slug: string, sheetName: string, limit: number): { sheet: GoogleAppsScript.Spreadsheet.Sheet; rows: number; title: string } {
  const dataset = api.dataset(conn, slug);
  const points = api.series(conn, slug, limit).points;
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  const sheet = ss.getSheetByName(sheetName) ?? ss.insertSheet(sheetName);
  sheet.clearContents();
  const values: (string | number)[][] = [['Date', `${dataset.title} (${dataset.unit})`], ...points.map((p) => [p.date, p.value])];
  sheet.getRange(1, 1, values.length, 2).setValues(values);
  return { sheet, rows: points.length, title: dataset.title };
}

const sheetNameFor = (slug: string) => slug.slice(0, 90);
const clampLimit = (n: unknown) => Math.max(1, Math.min(5000, Math.floor(Number(n) || 100)));

export function importDataset(req: ImportRequest): { sheetName: string; rows: number; chart: boolean; schedule: ScheduleEntry | null; connectorSchedule: ConnectorScheduleView | null } {
  const conn = publicConn();
  const sheetName = String(req.sheetName ?? '').trim() || sheetNameFor(req.slug);
  const limit = clampLimit(req.limit);
  const { sheet, rows, title } = writeSeries(conn, req.slug, sheetName, limit);
  let chart = false;
  if (req.chart && sheet.getCharts().length === 0) {
    sheet.insertChart(
      sheet
        .newChart()
        .setChartType(Charts.ChartType.LINE)
        .addRange(sheet.getRange(1, 1, rows + 1, 2))
        .setPosition(2, 4, 0, 0)
        .setOption('title', title)
        .build(),
    );
    chart = true;
  }
  const wanted = req.schedule && req.schedule !== 'none' ? req.schedule : null;
  const byConnector = req.refreshBy === 'connector';
  const schedule = wanted && !byConnector ? addSchedule(req.slug, sheetName, limit, wanted) : null;
  const connectorSchedule = wanted && byConnector ? createConnectorSchedule({ slug: req.slug, sheetName, cadence: wanted, limit }) : null;
  return { sheetName, rows, chart, schedule, connectorSchedule };
}

function readSchedules(): ScheduleEntry[] {
  const raw = PropertiesService.getDocumentProperties().getProperty(SCHEDULES_PROP);
  return raw ? (JSON.parse(raw) as ScheduleEntry[]) : [];
}
function writeSchedules(list: ScheduleEntry[]): void {
  PropertiesService.getDocumentProperties().setProperty(SCHEDULES_PROP, JSON.stringify(list));
}

function addSchedule(slug: string, sheetName: string, limit: number, schedule: TSchedule): ScheduleEntry {
  if (!SCHEDULES.includes(schedule)) throw new Error(`Schedule must be one of ${SCHEDULES.join(', ')}.`);
  const list = readSchedules();
  // One schedule per sheet: a new one replaces the old (and its trigger).
  for (const old of list.filter((s) => s.sheetName === sheetName)) removeSchedule(old.triggerId);
  const b = ScriptApp.newTrigger(REFRESH_HANDLER).timeBased();
  const trigger = (schedule === 'hourly' ? b.everyHours(1) : schedule === 'daily' ? b.everyDays(1) : b.everyWeeks(1)).create();
  const entry: ScheduleEntry = { triggerId: trigger.getUniqueId(), slug, sheetName, limit, schedule, lastRefresh: null, lastError: null };
  writeSchedules([...readSchedules(), entry]);
  return entry;
}

export function listSchedules(): ScheduleEntry[] {
  return readSchedules();
}

export function removeSchedule(triggerId: string): ScheduleEntry[] {
  for (const t of ScriptApp.getProjectTriggers()) if (t.getUniqueId() === triggerId) ScriptApp.deleteTrigger(t);
  writeSchedules(readSchedules().filter((s) => s.triggerId !== triggerId));
  return readSchedules();
}

/** Time-driven trigger handler: refreshes the schedule whose trigger fired (all of them when run by hand). */
export function refreshScheduledImports(e?: { triggerUid?: string }): ScheduleEntry[] {
  const list = readSchedules();
  const targets = e?.triggerUid ? list.filter((s) => s.triggerId === e.triggerUid) : list;
  for (const s of targets) {
    try {
      writeSeries(publicConn(), s.slug, s.sheetName, s.limit);
      s.lastRefresh = new Date().toISOString();
      s.lastError = null;
    } catch (err) {
      s.lastError = err instanceof Error ? err.message : String(err);
    }
  }
  writeSchedules(list);
  return list;
}
