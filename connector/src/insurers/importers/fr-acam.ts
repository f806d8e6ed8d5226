/** Importer for the French insurer list with 8-digit ACAM codes, enriched with Claims IA legal names. */
import type { InsurerRecord } from '../../store/types.js';
import { nameTokens, normaliseInsurerName } from '../normalise.js';
import { readCsv, requireColumns } from './csv.js';

const WHAT = 'FR ACAM list';

/** Codes the source API defines for "not an insurer" (00000001 "Non Assurance") and "other" (00000002 "Autre"). */
const PSEUDO_CODES = new Set(['00000001', '00000002']);

const SOURCE_DETAIL =
  'ACAM codes from the Claims IA "Schedule" partner API documentation (github.com/enojaroff/claims-ia-schedule ' +
  'docs/documentation/Codes/99-Codes-compagnies.md, commit 1c1b8284948d); original publisher not stated, not ' +
  'checked against an official ACPR list, and the list does not record whether an insurer is still authorised.';

interface Group {
  code: string;
  labels: string[];
}

/** The source writes "&" as "§" ("ALLIANZ GLOBAL CORPORATE § SPECIALTY"). */
function cleanLabel(label: string): string {
  return label
    .replace(/\s*§\s*/g, ' & ')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Finds the one group a Claims IA legal name clearly belongs to, trying in turn: the same key as a label;
 * the Claims IA code equal to a whole label ("MAIF"); the code equal to a label's bracketed acronym
 * ("... (MACSF)"); the code equal to a label's first word when no other group starts with that word
 * ("MACIF" -> "MACIF FRANCE", but "GROUPAMA" matches none: eleven groups start with it). A rule that
 * finds two or more groups is ambiguous and the next rule is tried; none found means no alias.
 */
function findGroup(groups: Group[], code: string, legalName: string): Group | null {
  const codeKey = normaliseInsurerName(code);
  const legalKey = normaliseInsurerName(legalName);
  const firstWordCount = new Map<string, number>();
  for (const g of groups) {
    const first = new Set(g.labels.map((l) => nameTokens(l)[0] ?? ''));
    for (const w of first) firstWordCount.set(w, (firstWordCount.get(w) ?? 0) + 1);
  }
  const rules: Array<(label: string) => boolean> = [
    (label) => normaliseInsurerName(label) === legalKey,
    (label) => normaliseInsurerName(label) === codeKey,
    (label) => [...label.matchAll(/\(([^()]+)\)/g)].some((m) => normaliseInsurerName(m[1] as string) === codeKey),
    (label) => {
      const first = nameTokens(label)[0] ?? '';
      return first === codeKey && firstWordCount.get(first) === 1;
    },
  ];
  for (const rule of rules) {
    const hits = groups.filter((g) => g.labels.some(rule));
    if (hits.length === 1) return hits[0] as Group;
  }
  return null;
}

/**
 * Parses fr_insurers_acam_codes.csv. The two pseudo-codes are skipped; a code listed under several labels
 * (the MACIF regional entities, for instance) becomes one record named after its first label, the others
 * as aliases. With `claimsIaNamesText` (fr_insurers_claimsia_codes.csv), a Claims IA legal name that
 * clearly belongs to one record (see `findGroup`) is added as an alias.
 */
export function parseFrAcamCsv(text: string, now: string, claimsIaNamesText?: string): InsurerRecord[] {
  const table = readCsv(text, { what: WHAT });
  requireColumns(table, ['acam_code', 'insurer_label'], WHAT);
  const groups = new Map<string, Group>();
  table.rows.forEach((row, i) => {
    const code = row['acam_code'] ?? '';
    if (!/^\d{8}$/.test(code)) throw new Error(`${WHAT}: data row ${i + 1} has no 8-digit acam_code: "${code}"`);
    if (PSEUDO_CODES.has(code)) return;
    const label = cleanLabel(row['insurer_label'] ?? '');
    if (!label) throw new Error(`${WHAT}: data row ${i + 1} (${code}) has no insurer_label`);
    const g = groups.get(code) ?? { code, labels: [] };
    g.labels.push(label);
    groups.set(code, g);
  });

  const extraAliases = new Map<string, string[]>();
  if (claimsIaNamesText !== undefined) {
    const names = readCsv(claimsIaNamesText, { what: 'FR Claims IA names' });
    requireColumns(names, ['claimsia_code', 'insurer_legal_name'], 'FR Claims IA names');
    const list = [...groups.values()];
    for (const row of names.rows) {
      const legal = (row['insurer_legal_name'] ?? '').trim();
      const g = legal ? findGroup(list, row['claimsia_code'] ?? '', legal) : null;
      if (g) extraAliases.set(g.code, [...(extraAliases.get(g.code) ?? []), legal]);
    }
  }

  return [...groups.values()].map((g) => {
    const [name, ...others] = g.labels as [string, ...string[]];
    const seen = new Set([normaliseInsurerName(name)]);
    const aliases = [...others, ...(extraAliases.get(g.code) ?? [])].filter((a) => {
      const key = normaliseInsurerName(a);
      if (!key || seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return {
      country: 'FR',
      reference: g.code,
      scheme: 'acam_code',
      name,
      aliases,
      regulated: 'YES',
      authorised: true,
      status_text: 'listed with an ACAM code',
      kind: 'insurer',
      lei: null,
      source: 'fr-acam-list',
      source_detail: SOURCE_DETAIL + (g.labels.length > 1 ? ` Code listed under ${g.labels.length} labels in the source.` : ''),
      demo: false,
      priority: 20,
      updated_at: now,
    } satisfies InsurerRecord;
  });
}
