/** Finding the policy columns from header words (EN/DE/FR) and the result columns the add-on owns. */

export const FIELDS = ['policy_number', 'country', 'insurance_type', 'provider'] as const;
export type TField = (typeof FIELDS)[number];
/** 1-based column per field, null when not found. */
export type TMapping = Record<TField, number | null>;

/** Result columns, found again by these exact headers on a re-run so nothing is duplicated. */
export const RESULT_HEADERS = ['Covercheck status', 'Covercheck confidence', 'Covercheck insurer', 'Covercheck flags', 'Covercheck checked at'] as const;

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9°#]+/g, ' ')
    .trim();

const POLICY = /\b(policy|policies|police|polizza|versicherungsschein\w*|vsnr|vertrag\w*|contrat|vertragsnummer|policennummer|polizzennummer|certificate)\b/;
const NUMBER = /\b(number|no|nr|num|nummer|numero|n°|#|id|ref|reference)\b/;
const TYPE = /\b(type|typ|art|sparte|versicherungsart|genre|produit|product|line|branche|cover)\b/;
const COUNTRY = /\b(country|land|pays|nation|staat)\b/;
const PROVIDER = /\b(provider|insurer|insurance company|carrier|versicherer|versicherung|gesellschaft|assureur|compagnie|societe|assurance)\b/;

/** Which field a header names, if any. Type words win over provider words ("Versicherungsart"). */
export function classifyHeader(header: string): TField | null {
  const h = fold(header);
  if (!h || RESULT_HEADERS.some((r) => fold(r) === h)) return null;
  if (POLICY.test(h) && NUMBER.test(h)) return 'policy_number';
  if (/\b(vsnr|versicherungsscheinnummer|policennummer|vertragsnummer)\b/.test(h)) return 'policy_number';
  if (TYPE.test(h)) return 'insurance_type';
  if (COUNTRY.test(h)) return 'country';
  if (PROVIDER.test(h)) return 'provider';
  if (POLICY.test(h)) return 'policy_number';
  return null;
}

export function detectColumns(headers: string[]): TMapping {
  const m: TMapping = { policy_number: null, country: null, insurance_type: null, provider: null };
  headers.forEach((h, i) => {
    const f = classifyHeader(String(h ?? ''));
    if (f && m[f] === null) m[f] = i + 1;
  });
  return m;
}

/** 1-based columns of the result headers; missing ones are appended after the last used column. */
export function resultColumns(headers: string[], lastColumn: number): { cols: number[]; created: boolean } {
  const cols: number[] = [];
  let next = Math.max(lastColumn, headers.length);
  let created = false;
  for (const name of RESULT_HEADERS) {
    const i = headers.findIndex((h) => String(h).trim() === name);
    if (i >= 0) cols.push(i + 1);
    else {
      next += 1;
      cols.push(next);
      created = true;
    }
  }
  return { cols, created };
}
