/**
 * What a schedule run writes into columns A:B (date, value) for its output mode, planned from the
 * dates already in column A: append adds only points after the latest date there, merge updates the
 * value of dates that are there and adds the rest below (sorted). Only A:B cells are ever named, so
 * columns beside the data keep their contents and, in append and merge, every row keeps its place.
 * Where each point goes is shared/series-modes.ts's placePoints, as for the add-on's imports.
 */
import { placePoints, type SeriesPoint, type TOutputMode } from '../../../shared/series-modes.js';
import { a1 } from './a1.js';
import type { CellValue } from './api.js';

export type Point = SeriesPoint;

export interface SeriesPlan {
  /** Clear A:B first (overwrite only). */
  clear: boolean;
  ranges: { range: string; values: CellValue[][] }[];
  added: number;
  updated: number;
}

/**
 * `columnA`: column A from row 1 as text (the header first), as readColumn returns it; null for
 * overwrite, which needs no read. Merge writes the value of every date it finds (a null, left as it
 * is, for the rows whose date the series does not have).
 */
export function planSeriesWrite(
  sheet: string,
  header: [string, string],
  points: Point[],
  mode: TOutputMode,
  columnA: string[] | null,
): SeriesPlan {
  const old = (columnA ?? []).slice(1).map((v) => v.trim());
  while (old.length && old[old.length - 1] === '') old.pop();
  const head = { range: a1(sheet, 'A1:B1'), values: [header as CellValue[]] };
  const block = (fromRow: number, ps: Point[]) => ({
    range: a1(sheet, `A${fromRow}:B${fromRow + ps.length - 1}`),
    values: ps.map((p) => [p.date, p.value]),
  });
  if (mode === 'overwrite' || old.length === 0) {
    return { clear: mode === 'overwrite', ranges: [head, ...(points.length ? [block(2, points)] : [])], added: points.length, updated: 0 };
  }
  const { fresh, matches } = placePoints(old, points, mode);
  const ranges = [head];
  if (matches.length) {
    const values: CellValue[][] = old.map(() => [null]);
    for (const m of matches) values[m.row] = [m.value];
    ranges.push({ range: a1(sheet, `B2:B${1 + old.length}`), values });
  }
  if (fresh.length) ranges.push(block(2 + old.length, fresh));
  return { clear: false, ranges, added: fresh.length, updated: matches.length };
}
