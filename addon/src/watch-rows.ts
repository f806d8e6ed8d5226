/**
 * The selected rows as a watch's policies: the Verify section's column mapping (mapping.ts) and an optional
 * end-date column. Each row is checked as the connector checks a batch item (the shared parsePolicyInput), so
 * a watch the connector would refuse for a row's country or type is refused here, naming the rows, before
 * anything is sent; the policy-number format is the connector's check, and its answer names the policy's
 * index, which `rows` turns back into a row.
 */
import type { TPolicy } from '../../shared/policy.js';
import { packAlternation } from '../../shared/packs/index.js';
import { MAX_WATCH_POLICIES } from '../../shared/watch-limits.js';
import { FIELDS, type TMapping } from './mapping.js';
import { detectRowMapping, rowPolicy, rowsToVerify, type MappingView } from './rows.js';

/** A watched policy as POST /watches takes it: the batch item and the end date the sheet gives. */
export type TWatchedPolicy = TPolicy & { end_date?: string };

export interface WatchRowsView extends MappingView {
  /** The end-date column (1-based), found by its header words in every language pack; null when none is. */
  endDate: number | null;
  maxPolicies: number;
}

export interface WatchRows {
  sheet: GoogleAppsScript.Spreadsheet.Sheet;
  policies: TWatchedPolicy[];
  /** The sheet row of each policy, in the same order. */
  rows: number[];
  /** Rows with no policy number, country or type: left out, as the Verify section leaves them. */
  blank: number;
}

const REQUIRED = ['policy_number', 'country', 'insurance_type'] as const;
const LABELS: Record<(typeof REQUIRED)[number], string> = {
  policy_number: 'policy number',
  country: 'country',
  insurance_type: 'insurance type',
};
/** Refused rows named in a message; the rest are counted. */
const ROWS_NAMED = 5;

/** Header text folded as mapping.ts folds it: no accents, lower case, words only. */
const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9°#]+/g, ' ')
    .trim();
const END_DATE = new RegExp(`\\b(${packAlternation((p) => p.sheetHeaders.endDate)})\\b`);

/** The first column, not already one of the mapping's, whose header names an end date. */
function endDateColumn(headers: string[], mapping: TMapping): number | null {
  const taken = new Set(FIELDS.map((f) => mapping[f]));
  const i = headers.findIndex((h, i) => !taken.has(i + 1) && END_DATE.test(fold(String(h ?? ''))));
  return i >= 0 ? i + 1 : null;
}

/** What "Watch selected rows" would read: the Verify section's mapping and rows, and the end-date column. */
export function detectWatchRows(): WatchRowsView {
  const m = detectRowMapping();
  return { ...m, endDate: endDateColumn(m.headers, m.mapping), maxPolicies: MAX_WATCH_POLICIES };
}

/** A cover's end date from its cell: a date cell (its day in the spreadsheet's zone, as the cell shows it) or YYYY-MM-DD text. */
function endDateOf(value: unknown, shown: string, timeZone: () => string): { ok: true; date?: string } | { ok: false; error: string } {
  if (value === '' || value === null || value === undefined) return { ok: true };
  if (value instanceof Date) return { ok: true, date: Utilities.formatDate(value, timeZone(), 'yyyy-MM-dd') };
  const s = String(value).trim();
  // Date.parse takes 2031-02-30 for 2 March: the day must come back as written.
  if (/^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s)
    return { ok: true, date: s };
  return { ok: false, error: `the end date "${shown || s}" is not a date: make it a date cell, or write it as YYYY-MM-DD` };
}

function refusal(problems: { row: number; detail: string }[]): Error {
  const named = problems.slice(0, ROWS_NAMED).map((p) => `Row ${p.row}: ${p.detail}`);
  const more = problems.length - named.length;
  return new Error(
    [
      ...named,
      ...(more ? [`and ${more} more row${more === 1 ? '' : 's'}`] : []),
      'Fix these rows or leave them out of the selection. Nothing was sent.',
    ].join('\n'),
  );
}

/**
 * The selected rows (every data row when one cell or the header is selected, as for Verify) as policies.
 * Throws, before anything is sent, past MAX_WATCH_POLICIES or when a row could not be watched.
 */
export function readWatchRows(mapping: TMapping, endDateCol: number | null): WatchRows {
  const missing = REQUIRED.filter((f) => !mapping || !mapping[f]).map((f) => LABELS[f]);
  if (missing.length)
    throw new Error(
      `The selection has no column for ${missing.join(', ')}. Pick the columns in the sidebar, or add headers such as "Policy number", "Country", "Insurance type".`,
    );
  if (endDateCol !== null && !(Number.isInteger(endDateCol) && endDateCol >= 1)) throw new Error('Pick the end-date column again.');
  const sheet = SpreadsheetApp.getActiveSheet();
  const { first, last } = rowsToVerify();
  if (last < first) throw new Error('No data rows to watch: put the policies below a header row.');
  const width = Math.max(endDateCol ?? 0, ...FIELDS.map((f) => mapping[f] ?? 0));
  const range = sheet.getRange(first, 1, last - first + 1, width);
  const values = range.getValues();
  const shown = range.getDisplayValues();
  let zone: string | null = null;
  const timeZone = () => (zone ??= SpreadsheetApp.getActive().getSpreadsheetTimeZone());

  const policies: TWatchedPolicy[] = [];
  const rows: number[] = [];
  const problems: { row: number; detail: string }[] = [];
  let blank = 0;
  shown.forEach((v, i) => {
    const row = first + i;
    const p = rowPolicy(values[i]!, v, mapping);
    if (!p) {
      blank++;
      return;
    }
    rows.push(row);
    if (!p.ok) return void problems.push({ row, detail: p.detail });
    const end = endDateCol ? endDateOf(values[i]![endDateCol - 1], v[endDateCol - 1] ?? '', timeZone) : { ok: true as const };
    if (!end.ok) return void problems.push({ row, detail: end.error });
    policies.push(end.date ? { ...p.policy, end_date: end.date } : p.policy);
  });
  // Counted first: a selection too large is one message, however many of its rows have problems.
  if (rows.length > MAX_WATCH_POLICIES)
    throw new Error(
      `${rows.length.toLocaleString('en')} policies are selected; a watch holds at most ${MAX_WATCH_POLICIES.toLocaleString('en')}. Select fewer rows and watch the rest as a second watch. Nothing was sent.`,
    );
  if (problems.length) throw refusal(problems);
  if (!policies.length) throw new Error('The selected rows hold no policies: select the rows to watch.');
  return { sheet, policies, rows, blank };
}
