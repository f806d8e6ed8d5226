/** Shared CSV reading for the register importers: rows keyed by header, with a clear error for missing columns. */
import { parse } from 'csv-parse/sync';

/** A parsed CSV: the header names (trimmed) and each data row keyed by them. */
export interface CsvTable {
  header: string[];
  rows: Array<Record<string, string>>;
}

/**
 * Parses CSV text into rows keyed by header name. Empty header cells are ignored, which absorbs the
 * trailing delimiter the EIOPA export puts at the end of every line.
 */
export function readCsv(text: string, opts: { delimiter?: string; what: string }): CsvTable {
  let cells: string[][];
  try {
    cells = parse(text, {
      delimiter: opts.delimiter ?? ',',
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
    }) as string[][];
  } catch (err) {
    throw new Error(`${opts.what}: not readable as CSV (${(err as Error).message})`);
  }
  const [head, ...body] = cells;
  if (!head) throw new Error(`${opts.what}: the file is empty`);
  const header = head.map((h) => h.trim());
  const rows = body.map((cols) => {
    const row: Record<string, string> = {};
    header.forEach((name, i) => {
      if (name) row[name] = (cols[i] ?? '').trim();
    });
    return row;
  });
  return { header, rows };
}

/** Throws an Error naming every required column the header lacks. */
export function requireColumns(table: CsvTable, required: readonly string[], what: string): void {
  const have = new Set(table.header);
  const missing = required.filter((c) => !have.has(c));
  if (missing.length > 0) {
    throw new Error(`${what}: header is missing required column(s): ${missing.map((c) => `"${c}"`).join(', ')}`);
  }
}
