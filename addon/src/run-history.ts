/**
 * Run history of the add-on's dataset refreshes: the last 30 runs of each
 * schedule, kept in document properties so every editor's sidebar sees them. One property per
 * schedule, each kept under Apps Script's 9 KB per value (errors are cut short, then the oldest
 * runs dropped), so 30 runs of every schedule stay far inside the store's 500 KB.
 */

import { SCHEDULE_RUNS_KEPT } from '../../shared/sheets.js';

export const RUNS_KEPT = SCHEDULE_RUNS_KEPT;
/** Below the 9 KB a property value may hold, with room for the key. */
const MAX_VALUE_BYTES = 8 * 1024;
const MAX_ERROR_CHARS = 160;

const prop = (scheduleId: string) => `covercheck.runs.${scheduleId}`;

export interface RunRecord {
  /** ISO time the run started. */
  at: string;
  ok: boolean;
  /** Rows written, when it succeeded. */
  rows: number | null;
  durationMs: number;
  error: string | null;
  /** Who started it: the hourly trigger, or someone's "Refresh now". */
  by: 'trigger' | 'manual';
}

/** Stored compactly: [epoch s, rows or -1, ms, error or 0, by 't'|'m']. */
type Packed = [number, number, number, string | 0, 't' | 'm'];

const pack = (r: RunRecord): Packed => [
  Math.round(Date.parse(r.at) / 1000),
  r.rows ?? -1,
  r.durationMs,
  r.error ? r.error.slice(0, MAX_ERROR_CHARS) : 0,
  r.by === 'trigger' ? 't' : 'm',
];
const unpack = (p: Packed): RunRecord => ({
  at: new Date(p[0] * 1000).toISOString(),
  ok: p[3] === 0,
  rows: p[1] >= 0 ? p[1] : null,
  durationMs: p[2],
  error: p[3] === 0 ? null : p[3],
  by: p[4] === 't' ? 'trigger' : 'manual',
});

function read(props: GoogleAppsScript.Properties.Properties, scheduleId: string): Packed[] {
  const raw = props.getProperty(prop(scheduleId));
  if (!raw) return [];
  try {
    const v = JSON.parse(raw) as unknown;
    return Array.isArray(v) ? (v as Packed[]) : [];
  } catch {
    return [];
  }
}

/** Newest first. */
export function runHistory(props: GoogleAppsScript.Properties.Properties, scheduleId: string): RunRecord[] {
  return read(props, scheduleId).map(unpack);
}

/** Adds a run in front, keeps the last 30 within the value limit. Never throws: history must not fail a refresh. */
export function recordRun(props: GoogleAppsScript.Properties.Properties, scheduleId: string, run: RunRecord): void {
  try {
    const list = [pack(run), ...read(props, scheduleId)].slice(0, RUNS_KEPT);
    let text = JSON.stringify(list);
    // UTF-8 bytes, as the property store counts them.
    const bytes = (s: string) => Utilities.newBlob(s).getBytes().length;
    while (list.length > 1 && bytes(text) > MAX_VALUE_BYTES) {
      list.pop();
      text = JSON.stringify(list);
    }
    props.setProperty(prop(scheduleId), text);
  } catch {
    // The store is full (500 KB) or the daily quota is spent: the refresh itself still counts.
  }
}

export function forgetRuns(props: GoogleAppsScript.Properties.Properties, scheduleId: string): void {
  props.deleteProperty(prop(scheduleId));
}
