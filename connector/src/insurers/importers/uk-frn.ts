/**
 * Importer for the UK register extract (uk_insurers_frn.csv): firms with real FCA Firm Reference Numbers,
 * each read in a named source (recorded FCA Register API responses, or the firm's own documents quoting
 * its FRN). Columns: frn, name, trading_names (";"-separated), kind (insurer | intermediary, also
 * gibraltar_insurer | lloyds, which are insurers), lines, status, source_ref, notes.
 *
 * The extract is partial (35 firms): a name it does not hold is unknown, not "not authorised". Only the
 * rows sourced from the register itself carry the register's status; the others carry the firm's own
 * wording at its document's date, so an empty status stays unknown rather than becoming "not authorised".
 */
import type { InsurerKind, InsurerRecord } from '../../store/types.js';
import { readCsv, requireColumns } from './csv.js';

const WHAT = 'UK register extract';

/** Statuses that mean the firm may carry on regulated business (the Temporary Permissions Regime's "deemed" included). */
const AUTHORISED = new Set(['authorised', 'deemed authorised', 'eea-authorised branch', 'eea authorised']);
const NOT_AUTHORISED = new Set(['no longer authorised', 'cancelled', 'unauthorised']);

const KINDS: Record<string, InsurerKind> = {
  insurer: 'insurer',
  gibraltar_insurer: 'insurer',
  lloyds: 'insurer',
  intermediary: 'intermediary',
};

export function parseUkFrnCsv(text: string, now: string): InsurerRecord[] {
  const table = readCsv(text, { what: WHAT });
  requireColumns(table, ['frn', 'name', 'kind', 'status', 'source_ref'], WHAT);
  return table.rows.map((row, i) => {
    const frn = row['frn'] ?? '';
    const name = row['name'] ?? '';
    const where = `data row ${i + 1}`;
    if (!/^\d{6,7}$/.test(frn)) throw new Error(`${WHAT}: ${where} has no valid FRN (6 or 7 digits): "${frn}"`);
    if (!name) throw new Error(`${WHAT}: ${where} (FRN ${frn}) has no name`);
    const kind = KINDS[(row['kind'] ?? '').toLowerCase()];
    if (!kind)
      throw new Error(`${WHAT}: ${where} (FRN ${frn}) has kind "${row['kind']}", expected one of ${Object.keys(KINDS).join(', ')}`);
    const status = row['status'] ?? '';
    const folded = status.toLowerCase();
    if (status && !AUTHORISED.has(folded) && !NOT_AUTHORISED.has(folded)) {
      throw new Error(`${WHAT}: ${where} (FRN ${frn}) has status "${status}", which this importer does not know`);
    }
    const sourceRef = row['source_ref'] ?? '';
    const notes = row['notes'] ?? '';
    return {
      country: 'UK',
      reference: frn,
      scheme: 'fca_frn',
      name,
      aliases: (row['trading_names'] ?? '')
        .split(';')
        .map((a) => a.trim())
        .filter(Boolean),
      regulated: 'YES',
      authorised: AUTHORISED.has(folded),
      status_text: status || null,
      kind,
      lei: null,
      source: 'uk-register-extract',
      source_detail: `UK register extract (connector/data/register/uk_insurers_frn.csv), source ${sourceRef}${notes ? `: ${notes}` : ''}`,
      demo: false,
      // The firms' own statements and recorded API answers: a secondary list. An FCA import (30) replaces a row.
      priority: 20,
      updated_at: now,
    } satisfies InsurerRecord;
  });
}
