/**
 * A watch run's change log in its spreadsheet: one line per change appended to the "Changes" sheet
 * (made, with its header, when missing): time, the row the policy is on in the watched sheet, policy,
 * before -> after, why, and the change's id. The ids already in the sheet are read first and skipped,
 * so a write-back retried after a write that went through (the process died before recording it) never
 * appends a line twice.
 */
import { WATCH_CHANGES_HEADER } from '../../../shared/watches.js';
import type { WritebackRecord } from '../store/types.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { a1, columnLetters } from './a1.js';
import type { CellValue, SheetsApi } from './api.js';

/** A change-log write-back's target: the log sheet, and the watched sheet whose key column gives each policy's row. */
export interface ChangeLogTarget {
  spreadsheet_id: string;
  sheet_name: string;
  source: { sheet_name: string; key_column: string; header_rows: number };
}

/** One line of the log. `id` is the run's and the policy's, unique per change. */
export interface ChangeLine {
  id: string;
  at: string;
  policy_number: string;
  change: string;
  why: string;
}

const ID_COLUMN = columnLetters(WATCH_CHANGES_HEADER.length - 1);

/** Appends every record's lines (all of one spreadsheet, kind `changes`), in the order the records were made. */
export async function applyChangeLogs(
  api: SheetsApi,
  spreadsheetId: string,
  records: WritebackRecord[],
): Promise<Map<string, { written: number; missing: string[] }>> {
  const outcomes = new Map<string, { written: number; missing: string[] }>();
  if (records.length === 0) return outcomes;
  const titles = new Set(await api.sheetTitles(spreadsheetId));
  const rowsOf = new Map<string, Map<string, number>>();
  /** The first row holding each policy number in the watched sheet's key column, read once per sheet and column. */
  const rowOf = async (source: ChangeLogTarget['source'], policyNumber: string): Promise<number | null> => {
    const k = `${source.sheet_name}\u0000${source.key_column}\u0000${source.header_rows}`;
    let rows = rowsOf.get(k);
    if (!rows) {
      rows = new Map();
      const column = titles.has(source.sheet_name) ? await api.readColumn(spreadsheetId, source.sheet_name, source.key_column) : [];
      column.forEach((value, i) => {
        const key = normalisePolicyNumber(value);
        if (i + 1 > source.header_rows && value.trim() && !rows!.has(key)) rows!.set(key, i + 1);
      });
      rowsOf.set(k, rows);
    }
    return rows.get(normalisePolicyNumber(policyNumber)) ?? null;
  };
  const sorted = [...records].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
  const logged = new Map<string, { present: Set<string>; next: number }>();
  for (const record of sorted) {
    const target = JSON.parse(record.target) as ChangeLogTarget;
    const sheet = target.sheet_name;
    if (!titles.has(sheet)) {
      await api.addSheet(spreadsheetId, sheet);
      await api.writeRanges(spreadsheetId, [{ range: a1(sheet, `A1:${ID_COLUMN}1`), values: [[...WATCH_CHANGES_HEADER]] }]);
      titles.add(sheet);
    }
    let log = logged.get(sheet);
    if (!log) {
      const ids = await api.readColumn(spreadsheetId, sheet, ID_COLUMN);
      // Below the last line of any column: the ids column is the longest, since every line has one.
      log = { present: new Set(ids.filter(Boolean)), next: Math.max(ids.length, 1) + 1 };
      logged.set(sheet, log);
    }
    const values: CellValue[][] = [];
    for (const line of JSON.parse(record.rows) as ChangeLine[]) {
      if (log.present.has(line.id)) continue;
      log.present.add(line.id);
      values.push([line.at, (await rowOf(target.source, line.policy_number)) ?? '', line.policy_number, line.change, line.why, line.id]);
    }
    if (values.length)
      await api.writeRanges(spreadsheetId, [{ range: a1(sheet, `A${log.next}:${ID_COLUMN}${log.next + values.length - 1}`), values }]);
    log.next += values.length;
    outcomes.set(record.id, { written: values.length, missing: [] });
  }
  return outcomes;
}
