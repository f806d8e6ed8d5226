/** Finding the policy columns from header words (every language pack's) and the result columns the add-on owns. */
import { packAlternation, type LanguagePack } from '../../shared/packs/index.js';

export const FIELDS = ['policy_number', 'country', 'insurance_type', 'provider'] as const;
export type TField = (typeof FIELDS)[number];
/** 1-based column per field, null when not found. */
export type TMapping = Record<TField, number | null>;

/**
 * Result columns, found again by these exact headers on a re-run so nothing is duplicated. The
 * last one, hidden when the add-on creates it, holds each row's input hash (delta.ts).
 */
export const RESULT_HEADERS = [
  'Covercheck status',
  'Covercheck confidence',
  'Covercheck insurer',
  'Covercheck flags',
  'Covercheck checked at',
  'Covercheck input hash',
] as const;
/** Index in RESULT_HEADERS of each result column the add-on reads back or writes on its own. */
export const RESULT_COL = { status: 0, insurer: 2, flags: 3, checkedAt: 4, hash: 5 } as const;

const fold = (s: string) =>
  s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9°#]+/g, ' ')
    .trim();

/** One whole-word pattern over the words every language pack gives for a header kind. */
const words = (kind: keyof LanguagePack['sheetHeaders']) => new RegExp(`\\b(${packAlternation((p) => p.sheetHeaders[kind])})\\b`);
const POLICY = words('policy');
const NUMBER = words('number');
const POLICY_NUMBER = words('policyNumber');
const TYPE = words('type');
const COUNTRY = words('country');
const PROVIDER = words('provider');

/** Which field a header names, if any. Type words win over provider words ("Versicherungsart"). */
export function classifyHeader(header: string): TField | null {
  const h = fold(header);
  if (!h || RESULT_HEADERS.some((r) => fold(r) === h)) return null;
  if (POLICY.test(h) && NUMBER.test(h)) return 'policy_number';
  if (POLICY_NUMBER.test(h)) return 'policy_number';
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
