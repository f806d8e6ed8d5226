/**
 * Adapters from source formats to series points: CSV (a date and a value column, optional row
 * filters) and JSON (an array of objects, optionally under a dotted path). Rows without a number
 * (blank, "." as FRED writes gaps, "NA") are skipped; anything else malformed is an error naming
 * the line, so a broken refresh never half-replaces a series.
 */
import { parse } from 'csv-parse/sync';
import type { SeriesPoint } from '../store/types.js';
import { toIsoDate } from './dates.js';

export class SeriesFormatError extends Error {}

export interface ColumnSpec {
  date_column: string;
  value_column: string;
  /** Keep only rows whose column holds one of the values. */
  filter?: Record<string, string[]>;
}

const GAP = new Set(['', '.', 'na', 'n/a', 'nan', 'null', '-']);

function toPoint(rawDate: unknown, rawValue: unknown, where: string): SeriesPoint | null {
  const date = typeof rawDate === 'string' ? toIsoDate(rawDate) : null;
  if (!date) throw new SeriesFormatError(`${where}: "${String(rawDate)}" is not a date (YYYY-MM-DD, YYYY-MM or YYYY-Qn)`);
  if (typeof rawValue === 'number') return Number.isFinite(rawValue) ? { date, value: rawValue } : null;
  const text = String(rawValue ?? '').trim();
  if (GAP.has(text.toLowerCase())) return null;
  const value = Number(text);
  if (!Number.isFinite(value)) throw new SeriesFormatError(`${where}: value "${text}" is not a number`);
  return { date, value };
}

/** Sorted by date, one point per date (a later row for the same date wins). */
function finish(points: SeriesPoint[]): SeriesPoint[] {
  const byDate = new Map(points.map((p) => [p.date, p]));
  return [...byDate.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
}

export function readCsvSeries(text: string, spec: ColumnSpec): SeriesPoint[] {
  let rows: Record<string, string>[];
  try {
    rows = parse(text, { columns: true, skip_empty_lines: true, trim: true, bom: true }) as Record<string, string>[];
  } catch (err) {
    throw new SeriesFormatError(`not a readable CSV: ${(err as Error).message}`);
  }
  if (rows.length === 0) throw new SeriesFormatError('the CSV has no rows');
  const header = Object.keys(rows[0]!);
  const needed = [spec.date_column, spec.value_column, ...Object.keys(spec.filter ?? {})];
  const missing = needed.filter((c) => !header.includes(c));
  if (missing.length)
    throw new SeriesFormatError(`missing column${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (has ${header.join(', ')})`);
  const filters = Object.entries(spec.filter ?? {});
  const points: SeriesPoint[] = [];
  rows.forEach((row, i) => {
    if (!filters.every(([col, values]) => values.includes(row[col] ?? ''))) return;
    const p = toPoint(row[spec.date_column], row[spec.value_column], `line ${i + 2}`);
    if (p) points.push(p);
  });
  return finish(points);
}

export function readJsonSeries(text: string, spec: { date_column?: string; value_column?: string; path?: string }): SeriesPoint[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    throw new SeriesFormatError(`not JSON: ${(err as Error).message}`);
  }
  for (const part of (spec.path ?? '').split('.').filter(Boolean)) {
    doc = typeof doc === 'object' && doc !== null ? (doc as Record<string, unknown>)[part] : undefined;
  }
  if (!Array.isArray(doc)) throw new SeriesFormatError(`expected an array of points${spec.path ? ` at "${spec.path}"` : ''}`);
  const dateKey = spec.date_column ?? 'date';
  const valueKey = spec.value_column ?? 'value';
  const points: SeriesPoint[] = [];
  doc.forEach((item, i) => {
    if (typeof item !== 'object' || item === null) throw new SeriesFormatError(`item ${i}: not an object`);
    const p = toPoint((item as Record<string, unknown>)[dateKey], (item as Record<string, unknown>)[valueKey], `item ${i}`);
    if (p) points.push(p);
  });
  return finish(points);
}

/**
 * A series of change dates (the rate set on each date) as the value in force at the end of each
 * month, from the first change to `until`'s month.
 */
export function stepToMonthEnd(changes: SeriesPoint[], until: string): SeriesPoint[] {
  if (changes.length === 0) return [];
  const out: SeriesPoint[] = [];
  let i = 0;
  let current = changes[0]!.value;
  let [y, m] = changes[0]!.date.split('-').map(Number) as [number, number];
  const [uy, um] = until.split('-').map(Number) as [number, number];
  while (y < uy || (y === uy && m <= um)) {
    const end = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
    while (i < changes.length && changes[i]!.date <= end) current = changes[i++]!.value;
    out.push({ date: end, value: current });
    m++;
    if (m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}
