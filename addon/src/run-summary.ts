/**
 * The results summary after "Verify selected rows": counts by status over the
 * rows the run covered (skipped rows keep their earlier result, so they count too), credits spent
 * and left, and the rows that need a look, each with a link that selects it. The same summary goes
 * into a note on the "Covercheck status" header, a small header that moves no user data.
 */
import { api } from './connector.js';
import { userConn } from './settings.js';

/** Rows listed by name in the sidebar; the rest are counted. */
export const MAX_LISTED = 50;

export interface LookRow {
  row: number;
  policy: string;
  status: string;
  /** Why it needs a look: its status, and the flags expired or sanctioned. */
  why: string[];
}

export interface RunSummary {
  counts: { verified: number; unverified: number; inconclusive: number; error: number };
  checked: number;
  skipped: number;
  creditsSpent: number;
  /** Null when the connector couldn't say (the summary is still shown). */
  creditsLeft: number | null;
  needsLook: LookRow[];
  needsLookTotal: number;
  /** The header note's text. */
  headerNote: string;
}

const LOOK_FLAGS = ['expired', 'sanctioned'];

export interface SummaryInput {
  sheet: GoogleAppsScript.Spreadsheet.Sheet;
  first: number;
  last: number;
  policyCol: number;
  statusCol: number;
  flagsCol: number;
  checked: number;
  skipped: number;
  creditsSpent: number;
  at: string;
}

function column(sheet: GoogleAppsScript.Spreadsheet.Sheet, first: number, last: number, col: number): unknown[] {
  return sheet
    .getRange(first, col, last - first + 1, 1)
    .getValues()
    .map((r) => r[0]);
}

/** Reads the result columns once and asks the connector for the balance once. */
export function summarise(s: SummaryInput): RunSummary {
  const counts = { verified: 0, unverified: 0, inconclusive: 0, error: 0 };
  const needsLook: LookRow[] = [];
  let needsLookTotal = 0;
  if (s.last >= s.first) {
    const status = column(s.sheet, s.first, s.last, s.statusCol);
    const flags = column(s.sheet, s.first, s.last, s.flagsCol);
    const policy = column(s.sheet, s.first, s.last, s.policyCol);
    status.forEach((v, i) => {
      const st = String(v ?? '').trim();
      if (!st) return;
      const why: string[] = [];
      if (st === 'verified' || st === 'unverified' || st === 'inconclusive') counts[st]++;
      else counts.error++;
      if (st !== 'verified') why.push(st.startsWith('Error') ? 'error' : st);
      const fl = String(flags[i] ?? '')
        .split(',')
        .map((f) => f.trim());
      for (const f of LOOK_FLAGS) if (fl.includes(f)) why.push(f);
      if (!why.length) return;
      needsLookTotal++;
      if (needsLook.length < MAX_LISTED) needsLook.push({ row: s.first + i, policy: String(policy[i] ?? ''), status: st, why });
    });
  }
  let creditsLeft: number | null = null;
  try {
    // No waiting on a 429 for this: the summary is shown without the balance instead.
    creditsLeft = api.account(userConn(), { deadline: Date.now() }).credits.balance;
  } catch {
    // The summary stands without the balance.
  }
  const headerNote = [
    `Covercheck, last run ${s.at}: rows ${s.first}–${s.last}`,
    `${counts.verified} verified, ${counts.unverified} unverified, ${counts.inconclusive} inconclusive, ${counts.error} errors`,
    `${s.checked} checked, ${s.skipped} unchanged and skipped`,
    `Credits spent ${s.creditsSpent}${creditsLeft === null ? '' : `, left ${creditsLeft}`}`,
    `${needsLookTotal} row${needsLookTotal === 1 ? '' : 's'} need${needsLookTotal === 1 ? 's' : ''} a look`,
  ].join('\n');
  s.sheet.getRange(1, s.statusCol).setNote(headerNote);
  return {
    counts,
    checked: s.checked,
    skipped: s.skipped,
    creditsSpent: s.creditsSpent,
    creditsLeft,
    needsLook,
    needsLookTotal,
    headerNote,
  };
}

/**
 * The sidebar's link for a row: selects the row's first cell. One cell, not the row: a selection
 * of several cells is what "Verify" would take as the rows to check next.
 */
export function jumpToRow(sheetName: string, row: number): void {
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(String(sheetName));
  if (!sheet) throw new Error(`The sheet "${sheetName}" is gone.`);
  const r = Math.floor(Number(row));
  if (!(r >= 1)) throw new Error('No such row.');
  sheet.getRange(r, 1).activate();
}
