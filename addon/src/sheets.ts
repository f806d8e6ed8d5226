/**
 * Connector-side Sheets features: the service account the spreadsheet must be
 * shared with, and dataset refreshes the connector runs on its own schedule into this spreadsheet
 * (beside the Apps Script trigger option in datasets.ts). Both need the connector to have a
 * Google service account; without one, GET /sheets/service-account answers 503.
 */
import type { TSchedule } from '../../shared/sheets.js';
import { ensureBound } from './bindings.js';
import { api, ConnectorError } from './connector.js';
import type { TOutputMode } from './output-modes.js';
import { userConn } from './settings.js';

export const CONNECTOR_CADENCES = ['hourly', 'daily', 'weekly'] as const;
export type TConnectorCadence = (typeof CONNECTOR_CADENCES)[number];

export interface SheetsInfo {
  /** True when the connector can write into sheets (it has a service account). */
  available: boolean;
  email: string | null;
  message: string;
}

export const NO_SERVICE_ACCOUNT =
  'The connector has no Google service account, so it cannot write into sheets: results are written by this sidebar and refreshes need the Apps Script trigger.';

/** The address to share the spreadsheet with, or why the connector can't write into sheets. */
export function getSheetsInfo(): SheetsInfo {
  try {
    const sa = api.serviceAccount(userConn());
    return {
      available: true,
      email: sa.email,
      message: `Share this spreadsheet with ${sa.email} as an editor so the connector can write into it.`,
    };
  } catch (e) {
    if (e instanceof ConnectorError && e.status === 503) return { available: false, email: null, message: NO_SERVICE_ACCOUNT };
    throw new Error(e instanceof Error ? e.message : String(e));
  }
}

/** The spreadsheet id the connector writes to (the same as in the sheet's URL). */
export function spreadsheetId(): string {
  return SpreadsheetApp.getActive().getId();
}

export interface ConnectorScheduleView {
  id: string;
  dataset: string;
  sheetName: string;
  cadence: TConnectorCadence;
  limit: number;
  /** How each run writes (overwrite, append, merge); connectors before output modes: overwrite. */
  mode: TOutputMode;
  /** Why the connector paused it after failed runs in a row; null when it runs. */
  paused: string | null;
  nextRunAt: string;
  /** The latest run, if any. */
  lastRun: { status: 'running' | 'ok' | 'failed'; at: string; rows: number | null; error: string | null } | null;
  /** The runs the connector keeps, newest first, in the shape of the add-on's own history (run-history.ts). */
  runs: { at: string; ok: boolean; running: boolean; rows: number | null; durationMs: number | null; error: string | null }[];
}

const toView = (s: TSchedule): ConnectorScheduleView => {
  const r = s.runs[0];
  return {
    id: s.schedule_id,
    dataset: s.dataset,
    sheetName: s.sheet_name,
    cadence: s.cadence,
    limit: s.limit,
    mode: s.mode ?? 'overwrite',
    paused: s.paused ? (s.paused_reason ?? 'Paused after failed runs.') : null,
    nextRunAt: s.next_run_at,
    lastRun: r ? { status: r.status, at: r.finished_at ?? r.started_at, rows: r.rows, error: r.error } : null,
    runs: s.runs.map((x) => ({
      at: x.started_at,
      ok: x.status === 'ok',
      running: x.status === 'running',
      rows: x.rows,
      durationMs: x.finished_at ? Date.parse(x.finished_at) - Date.parse(x.started_at) : null,
      error: x.error,
    })),
  };
};

const rethrow = (e: unknown): never => {
  throw new Error(e instanceof Error ? e.message : String(e));
};

/** This API key's connector schedules that write into this spreadsheet. */
export function listConnectorSchedules(): ConnectorScheduleView[] {
  try {
    const id = spreadsheetId();
    return api
      .schedules(userConn())
      .schedules.filter((s) => s.spreadsheet_id === id)
      .map(toView);
  } catch (e) {
    return rethrow(e);
  }
}

/**
 * Creates a connector schedule into a sheet of this spreadsheet (made here when missing: the
 * connector needs it to exist). The connector runs it at once, then on its cadence.
 */
export function createConnectorSchedule(req: {
  slug: string;
  sheetName: string;
  cadence: TConnectorCadence;
  limit?: number;
  mode?: TOutputMode;
}): ConnectorScheduleView {
  if (!CONNECTOR_CADENCES.includes(req.cadence)) throw new Error(`Refresh must be one of ${CONNECTOR_CADENCES.join(', ')}.`);
  const sheetName = String(req.sheetName ?? '').trim();
  if (!sheetName) throw new Error('Name the sheet to refresh.');
  const ss = SpreadsheetApp.getActive();
  if (!ss.getSheetByName(sheetName)) ss.insertSheet(sheetName);
  const limit = Math.max(1, Math.min(5000, Math.floor(Number(req.limit) || 100)));
  try {
    // The connector refreshes only a spreadsheet bound to the key.
    ensureBound();
    return toView(
      api.createSchedule(userConn(), {
        dataset: req.slug,
        spreadsheet_id: ss.getId(),
        sheet_name: sheetName,
        cadence: req.cadence,
        limit,
        mode: req.mode ?? 'overwrite',
      }),
    );
  } catch (e) {
    return rethrow(e);
  }
}

/** Resumes a schedule the connector paused after failed runs in a row (it runs at once); the list after. */
export function resumeConnectorSchedule(id: string): ConnectorScheduleView[] {
  try {
    api.resumeSchedule(userConn(), id);
  } catch (e) {
    rethrow(e);
  }
  return listConnectorSchedules();
}

export function removeConnectorSchedule(id: string): ConnectorScheduleView[] {
  try {
    api.deleteSchedule(userConn(), id);
  } catch (e) {
    rethrow(e);
  }
  return listConnectorSchedules();
}
