/** Reads a policy number out of a labelled value or free text and checks it against the format table. */
import { INSURANCE_TYPES, type TCountry, type TInsuranceType } from '../../../shared/packs/index.js';
import { checkFormat } from '../verify/format-check.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { toDigits } from './text.js';

/** True when the normalised number passes the format rule of (country, type), or of any type when type is unknown. */
export function plausiblePolicyNumber(normalised: string, country: TCountry, type?: TInsuranceType): boolean {
  return (type ? [type] : INSURANCE_TYPES).some((t) => checkFormat(normalised, country, t).ok);
}

/**
 * Digit-region repair: within a token that already holds digits, letters after the first digit are
 * OCR look-alikes ("KH-47I1-2389O5" -> "KH-4711-238905"). A leading letter prefix stays as printed.
 */
function repairToken(token: string): string {
  const m = /^([A-Za-z]{0,4}[-.]?)(.*)$/.exec(token);
  if (!m) return token;
  const [, prefix = '', rest = ''] = m;
  if (!/[0-9]/.test(rest)) return token;
  return prefix + toDigits(rest);
}

/** A token that can be part of a policy number: digits with separators, or a short letter prefix. */
const PART = /^[A-Za-z0-9|][A-Za-z0-9|.\-/]*$/;

/**
 * The first policy number in `text`: tokens taken left to right while they look like parts of one
 * number (the first may be a letter prefix like "KH" or "UKM"), stopping at a word. Returns the
 * number as printed (spaces kept, trailing punctuation dropped) and whether OCR repairs were made.
 */
export function readPolicyNumber(text: string, country: TCountry, type?: TInsuranceType): { value: string; repaired: boolean } | null {
  const tokens = text.replace(/[,;:()]/g, ' ').split(/\s+/).filter(Boolean);
  for (let start = 0; start < tokens.length; start++) {
    const taken: string[] = [];
    for (let i = start; i < tokens.length; i++) {
      const t = (tokens[i] as string).replace(/[.]+$/, '');
      if (!PART.test(t)) break;
      const hasDigit = /[0-9]/.test(toDigits(t.replace(/^[A-Za-z]{1,4}[-.]?/, ''))) || /[0-9]/.test(t);
      const isPrefix = taken.length === 0 && /^[A-Z]{1,4}-?$/.test(t);
      if (!hasDigit && !isPrefix) break;
      taken.push(t);
      if (tokens[i]!.endsWith('.') && i > start) break;
    }
    while (taken.length > 0 && !/[0-9]/.test(taken[taken.length - 1] as string) && !/[0-9]/.test(toDigits(taken[taken.length - 1] as string))) taken.pop();
    if (taken.length === 0) continue;
    const printed = taken.join(' ');
    const repaired = taken.map(repairToken).join(' ').replace(/\|/g, '1');
    if (/[/]/.test(repaired)) continue;
    if (plausiblePolicyNumber(normalisePolicyNumber(repaired), country, type)) return { value: repaired, repaired: repaired !== printed };
  }
  return null;
}
