/** Importer for the German motor-insurer number list (de_motor_insurers_vu_numbers.csv). */
import type { InsurerRecord } from '../../store/types.js';
import { normaliseInsurerName } from '../normalise.js';
import { readCsv, requireColumns } from './csv.js';

const WHAT = 'DE VU list';

const SOURCE_DETAIL =
  'Insurer numbers as used in the "previous insurer" field of a live German motor-insurance web form ' +
  '(Qover, github.com/harryqover/bike-fun microlino-flow.js, commit 1fcb7cb3c405); not an official BaFin ' +
  'extract, some numbers differ from the EIOPA register, and the list does not record whether an insurer ' +
  'is still authorised.';

/** "formerly": the label, or a part of it, names what the insurer used to be called. */
const FORMER = /\b(?:ehemals|ehem\.|früher)\s*:?\s*/i;

interface Label {
  name: string;
  formerNames: string[];
  /** The label is nothing but a former name, e.g. "(ehemals Württembergische und Badische ...)". */
  formerOnly: boolean;
}

/**
 * Reads a label as listed. Quotes are dropped (the source quotes brand words oddly:
 * '"Zürich" Versicherungs-Gesellschaft'); "c/o ..." names a claims handler, not the insurer, and is
 * cut; "(ehemals X)", "(ehem. X)", "ehemals: X", "früher X" split off a former name.
 */
function readLabel(raw: string): Label {
  let text = raw.replace(/"/g, ' ').replace(/\s+/g, ' ').trim();
  text = text.replace(/\s+c\/o\s.*$/i, '').trim();
  const whole = /^\((.*)\)$/.exec(text);
  if (whole && FORMER.test(whole[1] as string)) {
    return { name: (whole[1] as string).replace(FORMER, '').trim(), formerNames: [], formerOnly: true };
  }
  const formerNames: string[] = [];
  const paren = /\s*\(([^()]*)\)\s*$/.exec(text);
  if (paren && FORMER.test(paren[1] as string)) {
    formerNames.push((paren[1] as string).replace(FORMER, '').trim());
    text = text.slice(0, paren.index).trim();
  } else {
    const m = FORMER.exec(text);
    if (m && m.index > 0) {
      formerNames.push(text.slice(m.index + m[0].length).trim());
      text = text.slice(0, m.index).trim();
    }
  }
  return { name: text, formerNames: formerNames.filter(Boolean), formerOnly: false };
}

/**
 * Parses de_motor_insurers_vu_numbers.csv: one record per 4-digit number (leading zeros kept). Where
 * the EIOPA cross-check found the undertaking, its register name is the canonical name and the listed
 * label an alias. A row that only names a former insurer is kept (old policies still cite it) but marked
 * not authorised. Every other row is marked authorised because the list gives no status: the EIOPA
 * export (priority 30) overrides these rows where both are loaded.
 */
export function parseDeVuCsv(text: string, now: string): InsurerRecord[] {
  const table = readCsv(text, { what: WHAT });
  requireColumns(table, ['vu_number', 'insurer_name_as_listed', 'eiopa_crosscheck_name'], WHAT);
  const byNumber = new Map<string, InsurerRecord>();
  table.rows.forEach((row, i) => {
    const vu = row['vu_number'] ?? '';
    if (!/^\d{4}$/.test(vu)) throw new Error(`${WHAT}: data row ${i + 1} has no 4-digit vu_number: "${vu}"`);
    const label = readLabel(row['insurer_name_as_listed'] ?? '');
    if (!label.name) throw new Error(`${WHAT}: data row ${i + 1} (${vu}) has no insurer name`);
    const eiopaName = row['eiopa_crosscheck_name'] ?? '';
    const name = eiopaName || label.name;
    const candidates = [label.name, ...label.formerNames];
    const existing = byNumber.get(vu);
    if (existing) candidates.unshift(existing.name, ...existing.aliases);
    const seen = new Set([normaliseInsurerName(name)]);
    const aliases = candidates.filter((a) => {
      const key = normaliseInsurerName(a);
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    const evidence = row['eiopa_crosscheck_evidence'] ?? '';
    byNumber.set(vu, {
      country: 'DE',
      reference: vu,
      scheme: 'bafin_reg_nr',
      name,
      aliases,
      regulated: 'YES',
      authorised: !label.formerOnly,
      // A motor-insurance form's list of current insurers, not a register: it states no authorisation.
      status_text: label.formerOnly ? 'listed only under a former name' : 'listed as a current motor insurer',
      kind: 'insurer',
      lei: row['eiopa_crosscheck_lei'] || null,
      source: 'de-vu-list',
      source_detail:
        SOURCE_DETAIL +
        (label.formerOnly ? ' Listed only as a former name ("ehemals").' : '') +
        (evidence ? ` Cross-check: ${evidence}.` : ''),
      demo: false,
      priority: 20,
      updated_at: now,
    });
  });
  return [...byNumber.values()];
}
