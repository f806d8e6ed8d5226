/**
 * The result history as CSV (RFC 4180: comma-separated, CRLF line ends, a field quoted when it holds a
 * comma, a quote or a line break, a quote doubled inside). People open it in a spreadsheet, where a
 * cell starting with = + - or @ is taken as a formula: an input such as a provider named
 * `=HYPERLINK(...)` would run in the reader's sheet, so such a cell starts with an apostrophe, which
 * the spreadsheet shows as text (OWASP's CSV injection advice; tab and carriage return likewise).
 */
import { HISTORY_CSV_COLUMNS, type TVerificationEntry } from '../../../shared/history.js';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  let text = String(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

type Column = (typeof HISTORY_CSV_COLUMNS)[number];

function cells(e: TVerificationEntry): Record<Column, string | number | null> {
  const provider = e.input.provider;
  return {
    created_at: e.created_at,
    id: e.id,
    source: e.source,
    source_id: e.source_id,
    policy_number: e.policy_number,
    country: e.country,
    insurance_type: e.insurance_type,
    provider: typeof provider === 'string' ? provider : null,
    status: e.status,
    confidence_score: e.confidence_score,
    credits_charged: e.result.credits_charged,
    insurer: e.result.insurer?.name ?? null,
    registry_status: e.result.coverage?.registry_status ?? null,
    end_date: e.result.coverage?.end_date ?? null,
    flags: e.result.flags.join(' '),
    checks: e.checks.map((c) => `${c.source}: ${c.outcome} (${c.detail})`).join('; '),
  };
}

/** A header row and one row per entry. */
export function historyCsv(entries: TVerificationEntry[]): string {
  const lines = [HISTORY_CSV_COLUMNS.join(',')];
  for (const e of entries) {
    const row = cells(e);
    lines.push(HISTORY_CSV_COLUMNS.map((c) => csvCell(row[c])).join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}
