/**
 * "History of the selected row" (sidebar server side; docs/history.md): the last results the key was given
 * for the row's policy (GET /api/v1/verifications?policy_number=…), newest first, each with what changed
 * from the result before it: status, insurer, end date, registry status, flags.
 */
import type { TVerificationEntry, TVerificationList } from '../../shared/history.js';
import { LANGUAGE_PACKS } from '../../shared/packs/index.js';
import { parsePolicyInput } from '../../shared/policy.js';
import type { TFlag } from '../../shared/verification.js';
import { call } from './connector.js';
import { identifierText } from './identifiers.js';
import { detectColumns, FIELDS, type TMapping } from './mapping.js';
import { userLanguage } from './result-notes.js';
import { userConn } from './settings.js';

/** Results shown. */
const SHOWN = 10;
/** Results asked for: the policy number may also be another country's or type's, which are left out. */
const ASKED = 50;

export interface HistoryChange {
  what: 'status' | 'insurer' | 'end_date' | 'registry_status' | 'flag_added' | 'flag_removed';
  from: string | null;
  to: string | null;
}

export interface HistoryEntryView {
  at: string;
  source: TVerificationEntry['source'];
  status: TVerificationEntry['status'];
  confidence: number;
  insurer: string | null;
  /** What changed from the result before it; null for the oldest shown (nothing to compare with). */
  changes: HistoryChange[] | null;
}

export interface RowHistoryView {
  sheet: string;
  row: number;
  policy: string;
  entries: HistoryEntryView[];
  /** Older results exist beyond those shown. */
  more: boolean;
  /** Each flag of `changes` in the user's language. */
  flagLabels: Record<string, string>;
}

function diff(before: TVerificationEntry, after: TVerificationEntry): HistoryChange[] {
  const out: HistoryChange[] = [];
  const was = before.result;
  const now = after.result;
  const field = (what: HistoryChange['what'], from: string | null | undefined, to: string | null | undefined) => {
    if ((from ?? null) !== (to ?? null)) out.push({ what, from: from ?? null, to: to ?? null });
  };
  field('status', before.status, after.status);
  field('insurer', was.insurer?.name, now.insurer?.name);
  field('end_date', was.coverage?.end_date, now.coverage?.end_date);
  field('registry_status', was.coverage?.registry_status, now.coverage?.registry_status);
  for (const f of now.flags) if (!was.flags.includes(f)) out.push({ what: 'flag_added', from: null, to: f });
  for (const f of was.flags) if (!now.flags.includes(f)) out.push({ what: 'flag_removed', from: f, to: null });
  return out;
}

/** The selected row's last results. The mapping is the sidebar's; without one, the headers are read. */
export function getRowHistory(mapping?: TMapping | null): RowHistoryView {
  const sheet = SpreadsheetApp.getActiveSheet();
  const sel = SpreadsheetApp.getActiveRange();
  const row = sel && sel.getSheet().getName() === sheet.getName() ? sel.getRow() : 0;
  if (row < 2 || row > sheet.getLastRow()) throw new Error('Select a cell in the row whose history you want, below the header.');
  let m = mapping;
  if (!m?.policy_number) {
    const headers = sheet
      .getRange(1, 1, 1, Math.max(1, sheet.getLastColumn()))
      .getValues()[0]!
      .map((v) => String(v ?? ''));
    m = detectColumns(headers);
  }
  if (!m.policy_number) throw new Error('No policy number column found: pick it in the sidebar, or add a header such as "Policy number".');
  const width = Math.max(...FIELDS.map((f) => m[f] ?? 0));
  const cells = sheet.getRange(row, 1, 1, width);
  const value = cells.getValues()[0]!;
  const shown = cells.getDisplayValues()[0]!;
  const get = (f: (typeof FIELDS)[number]) => (m[f] ? String(shown[m[f]! - 1] ?? '').trim() : '');
  const id = identifierText(value[m.policy_number - 1], shown[m.policy_number - 1]);
  if (!id.ok) throw new Error(`Row ${row}: ${id.error}`);
  if (!id.text) throw new Error(`Row ${row} has no policy number.`);
  // With the row's country and type, results for the same number in another country or type are left out.
  const parsed = parsePolicyInput({ policy_number: id.text, country: get('country'), insurance_type: get('insurance_type') });

  let list: TVerificationList;
  try {
    list = call<TVerificationList>(userConn(), {
      method: 'get',
      path: `/api/v1/verifications?policy_number=${encodeURIComponent(id.text)}&limit=${ASKED}`,
    });
  } catch (e) {
    throw new Error(e instanceof Error ? e.message : String(e));
  }
  const matching = parsed.ok
    ? list.verifications.filter((v) => v.country === parsed.policy.country && v.insurance_type === parsed.policy.insurance_type)
    : list.verifications;
  const entries = matching.slice(0, SHOWN).map((e, i): HistoryEntryView => ({
    at: e.created_at,
    source: e.source,
    status: e.status,
    confidence: e.confidence_score,
    insurer: e.result.insurer?.name ?? null,
    changes: matching[i + 1] ? diff(matching[i + 1]!, e) : null,
  }));
  const flags = LANGUAGE_PACKS[userLanguage()].sheetNotes.flags as Record<TFlag, string>;
  const flagLabels: Record<string, string> = {};
  for (const e of entries)
    for (const c of e.changes ?? []) {
      const f = (c.what === 'flag_added' ? c.to : c.what === 'flag_removed' ? c.from : null) as TFlag | null;
      if (f) flagLabels[f] = flags[f] ?? f;
    }
  return {
    sheet: sheet.getName(),
    row,
    policy: id.text,
    entries,
    more: matching.length > SHOWN || list.next_cursor !== null,
    flagLabels,
  };
}
