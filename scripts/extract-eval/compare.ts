/** The comparison rules of ../shared/data/documents/README.md, applied to every corpus the extraction eval reads. */
import { EXTRACTED_FIELDS } from '../../shared/job.js';

export type Field = (typeof EXTRACTED_FIELDS)[number];
export { EXTRACTED_FIELDS };

/** Numbers and registrations: spaces and punctuation dropped, case folded. */
export function normaliseIdentifier(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/[\s\p{P}\p{S}]/gu, '')
    .toUpperCase();
}

/** Legal-form words the README names (Limited, plc, AG, SE, SA) and their usual spellings; "a. G." is the German mutual's. */
const LEGAL_FORMS = new Set(['limited', 'ltd', 'plc', 'ag', 'se', 'sa', 'a g', 'ag.', 'vvag', 'gmbh', 'sas', 'llp', 'dac']);

/** Insurer names: case, accents, spacing and legal-form words ignored. */
export function normaliseInsurer(s: string): string {
  let t = s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[.,]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  t = ` ${t} `.replace(/ a g /g, ' ag ');
  return t
    .split(' ')
    .filter((w) => w && !LEGAL_FORMS.has(w))
    .join('');
}

/** True when `actual` counts as right for `expected`; a field absent from the truth is right only when left out. */
export function sameField(field: Field, expected: string | undefined, actual: string | undefined): boolean {
  if (expected === undefined) return actual === undefined;
  if (actual === undefined) return false;
  if (field === 'policy_number' || field === 'vehicle_registration') return normaliseIdentifier(expected) === normaliseIdentifier(actual);
  if (field === 'insurer') return normaliseInsurer(expected) === normaliseInsurer(actual);
  return expected === actual;
}
