/** CSV reading for the list importers: a header found among the first lines, rows keyed by it, bounded records. */
import { parse } from 'csv-parse/sync';

/** A table read from CSV: where its header was, the header names, and each later row keyed by them. */
export interface CsvTable {
  /** Cells of the lines above the header (a title or date line), as read. */
  preamble: string[][];
  header: string[];
  /** Each row with its 1-based line number in the file, for error messages. */
  rows: Array<{ line: number; cells: Record<string, string> }>;
}

/** The first lines searched for the header: the published files put at most a title or date line above it. */
const HEADER_SEARCH_LINES = 5;
/** Longest record accepted; a stray quote would otherwise make one field swallow the rest of the file. */
const MAX_RECORD_CHARS = 1024 * 1024;

/**
 * Reads CSV text whose header is the first of its first lines holding every `required` column. Throws an
 * Error naming `what` when the text is not CSV or no such header line is found.
 */
export function readCsvTable(text: string, opts: { delimiter: string; required: readonly string[]; what: string }): CsvTable {
  let records: Array<{ record: string[]; info: { lines: number } }>;
  try {
    records = parse(text, {
      delimiter: opts.delimiter,
      bom: true,
      relax_quotes: true,
      relax_column_count: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_CHARS,
      info: true,
    }) as unknown as Array<{ record: string[]; info: { lines: number } }>;
  } catch (err) {
    throw new Error(`${opts.what}: not readable as CSV (${(err as Error).message})`);
  }
  const at = records.slice(0, HEADER_SEARCH_LINES).findIndex(({ record }) => {
    const names = new Set(record.map((c) => c.trim()));
    return opts.required.every((c) => names.has(c));
  });
  if (at < 0) {
    const columns = opts.required.map((c) => `"${c}"`).join(', ');
    throw new Error(`${opts.what}: no header line with the columns ${columns} in the first ${HEADER_SEARCH_LINES} lines`);
  }
  const header = (records[at] as { record: string[] }).record.map((h) => h.trim());
  const rows: CsvTable['rows'] = [];
  for (const { record, info } of records.slice(at + 1)) {
    // A line of bare delimiters (padding some exports end with) holds no row.
    if (record.every((c) => !c.trim())) continue;
    const cells: Record<string, string> = {};
    header.forEach((name, i) => {
      if (name) cells[name] = (record[i] ?? '').trim();
    });
    rows.push({ line: info.lines, cells });
  }
  return { preamble: records.slice(0, at).map((r) => r.record), header, rows };
}
