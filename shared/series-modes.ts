/**
 * Where a dataset refresh puts its points in columns A:B (date, value) by output mode: one rule for the
 * add-on's imports and the connector's schedules, which differ only in how they read and write cells.
 * Columns beside A:B are never written, so the user's own columns keep their contents in every mode.
 */

export const OUTPUT_MODES = ['overwrite', 'append', 'merge'] as const;
export type TOutputMode = (typeof OUTPUT_MODES)[number];

export interface SeriesPoint {
  date: string;
  value: number;
}

export interface Placement {
  /** Points for new rows below the data: append, those dated after the latest date there; merge, dates not there yet, sorted. */
  fresh: SeriesPoint[];
  /** Merge: each point whose date is already in column A, with its data row (0 = the row below the header). */
  matches: Array<{ row: number; value: number }>;
}

/**
 * `dates`: column A's data rows below the header as YYYY-MM-DD text, top first ('' for a blank cell).
 * A date written twice is matched at its first row.
 */
export function placePoints(dates: readonly string[], points: readonly SeriesPoint[], mode: Exclude<TOutputMode, 'overwrite'>): Placement {
  const rowOf = new Map<string, number>();
  dates.forEach((d, i) => {
    if (d && !rowOf.has(d)) rowOf.set(d, i);
  });
  if (mode === 'append') {
    const latest = dates.reduce((a, b) => (b > a ? b : a), '');
    return { fresh: points.filter((p) => p.date > latest && !rowOf.has(p.date)), matches: [] };
  }
  const fresh: SeriesPoint[] = [];
  const matches: Placement['matches'] = [];
  for (const p of points) {
    const row = rowOf.get(p.date);
    if (row === undefined) fresh.push(p);
    else matches.push({ row, value: p.value });
  }
  fresh.sort((a, b) => (a.date < b.date ? -1 : 1));
  return { fresh, matches };
}
