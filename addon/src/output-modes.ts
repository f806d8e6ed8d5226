/**
 * Output modes for dataset imports and refreshes: overwrite, append new points
 * only, or merge on the date column (update the dates that exist, add the rest). Every mode reads
 * and writes columns A:B only (date, value), so columns the user added beside the data keep their
 * contents in every mode, and rows keep their places in append and merge. Where each point goes is
 * shared/series-modes.ts's placePoints, the rule the connector's schedules use too.
 */
import { OUTPUT_MODES, placePoints, type SeriesPoint, type TOutputMode } from '../../shared/series-modes.js';

export type { TOutputMode };

export function outputMode(raw: unknown): TOutputMode {
  if (raw === undefined || raw === null || raw === '') return 'overwrite';
  if (!OUTPUT_MODES.includes(raw as TOutputMode)) throw new Error(`Output mode must be one of ${OUTPUT_MODES.join(', ')}.`);
  return raw as TOutputMode;
}

export type Point = SeriesPoint;

export interface WriteOutcome {
  /** Data rows in A:B after the write (the chart's range). */
  dataRows: number;
  added: number;
  updated: number;
  /** Old rows blanked (overwrite with fewer points than before). */
  cleared: number;
}

/**
 * A date cell as YYYY-MM-DD. Sheets turns the YYYY-MM-DD text written into a Date at midnight in
 * the spreadsheet's time zone, which need not be the script's (the manifest's Etc/UTC): read in the
 * script's zone, a Berlin or summer-London midnight is the day before. So the day is read in the
 * spreadsheet's zone ("Custom Functions in Google Sheets", data types: the script must compensate).
 */
function dateKey(v: unknown, timeZone: string): string {
  if (v instanceof Date) return Utilities.formatDate(v, timeZone, 'yyyy-MM-dd');
  return String(v ?? '').trim();
}

/** The data rows of A:B below the header: up to the last row with something in A or B. */
function existing(sheet: GoogleAppsScript.Spreadsheet.Sheet): unknown[][] {
  const last = sheet.getLastRow();
  if (last < 2) return [];
  const rows = sheet.getRange(2, 1, last - 1, 2).getValues();
  let n = rows.length;
  while (n > 0 && rows[n - 1]!.every((v) => v === '' || v === null)) n--;
  return rows.slice(0, n);
}

/** Writes the header and the points into A:B by `mode`; at most one read and three writes. */
export function writeSeriesByMode(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  header: [string, string],
  points: Point[],
  mode: TOutputMode,
): WriteOutcome {
  const old = existing(sheet);
  sheet.getRange(1, 1, 1, 2).setValues([header]);
  if (mode === 'overwrite' || old.length === 0) {
    if (points.length) sheet.getRange(2, 1, points.length, 2).setValues(points.map((p) => [p.date, p.value]));
    const cleared = Math.max(0, old.length - points.length);
    if (cleared) sheet.getRange(2 + points.length, 1, cleared, 2).setValues(Array.from({ length: cleared }, () => ['', '']));
    return { dataRows: points.length, added: points.length, updated: 0, cleared };
  }
  const timeZone = sheet.getParent().getSpreadsheetTimeZone();
  const dates = old.map((r) => dateKey(r[0], timeZone));
  if (mode === 'append') {
    const { fresh } = placePoints(dates, points, 'append');
    if (fresh.length) sheet.getRange(2 + old.length, 1, fresh.length, 2).setValues(fresh.map((p) => [p.date, p.value]));
    return { dataRows: old.length + fresh.length, added: fresh.length, updated: 0, cleared: 0 };
  }
  // merge: the value column of existing rows in one write (only if a value changed), new dates after them in another.
  const { fresh, matches } = placePoints(dates, points, 'merge');
  const values = old.map((r) => [r[1]]);
  let updated = 0;
  for (const m of matches) {
    if (values[m.row]![0] === m.value) continue;
    values[m.row] = [m.value];
    updated++;
  }
  if (updated) sheet.getRange(2, 2, values.length, 1).setValues(values);
  if (fresh.length) sheet.getRange(2 + old.length, 1, fresh.length, 2).setValues(fresh.map((p) => [p.date, p.value]));
  return { dataRows: old.length + fresh.length, added: fresh.length, updated, cleared: 0 };
}
