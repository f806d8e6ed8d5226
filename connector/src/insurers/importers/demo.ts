/** Importer for the fictional UK demo insurers (uk_demo_insurers.csv), which stand in for FCA data. */
import type { InsurerRecord } from '../../store/types.js';
import { readCsv, requireColumns } from './csv.js';

const WHAT = 'demo insurer list';

const SOURCE_DETAIL =
  'DEMO DATA: fictional UK insurer invented for demonstration (connector/data/register/uk_demo_insurers.csv); ' +
  'not on any register. Load FCA register records (npm run register:import -- --format fca) for real UK data.';

/*
 * regulated is 'YES' on purpose: the demo list plays the part of the FCA register, so the demo flow
 * behaves as it will with real data. What keeps this honest is everything else on the row, which the
 * API shows: demo = true, source 'demo', scheme 'demo', a DEMO-UK-... reference and "Demo" in every name.
 */

/**
 * Parses uk_demo_insurers.csv: columns reference (DEMO-UK-nnnn), name, authorised (true/false) and
 * aliases (optional, separated by "|"). Every row is a demo row for the UK at priority 10, so any real
 * register row with the same reference replaces it.
 */
export function parseDemoInsurers(text: string, now: string): InsurerRecord[] {
  const table = readCsv(text, { what: WHAT });
  requireColumns(table, ['reference', 'name', 'authorised'], WHAT);
  return table.rows.map((row, i) => {
    const reference = row['reference'] ?? '';
    const name = row['name'] ?? '';
    const authorised = (row['authorised'] ?? '').toLowerCase();
    if (!/^DEMO-[A-Z]{2}-\d{4}$/.test(reference)) {
      throw new Error(`${WHAT}: data row ${i + 1} has a reference not of the form DEMO-UK-0001: "${reference}"`);
    }
    if (!name) throw new Error(`${WHAT}: data row ${i + 1} (${reference}) has no name`);
    if (authorised !== 'true' && authorised !== 'false') {
      throw new Error(`${WHAT}: data row ${i + 1} (${reference}) has authorised "${row['authorised']}", expected true or false`);
    }
    return {
      country: 'UK',
      reference,
      scheme: 'demo',
      name,
      aliases: (row['aliases'] ?? '')
        .split('|')
        .map((a) => a.trim())
        .filter(Boolean),
      regulated: 'YES',
      authorised: authorised === 'true',
      status_text: authorised === 'true' ? 'Authorised (demo)' : 'Not authorised (demo)',
      kind: 'insurer',
      lei: null,
      source: 'demo',
      source_detail: SOURCE_DETAIL,
      demo: true,
      priority: 10,
      updated_at: now,
    } satisfies InsurerRecord;
  });
}
