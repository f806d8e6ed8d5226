/** Reads a policy number out of a labelled value or free text, as printed; the format table only says how plausible it is. */
import { INSURANCE_TYPES, type TCountry, type TInsuranceType } from '../../../../shared/packs/index.js';
import { passesFormat } from '../../verify/format-check.js';
import { normalisePolicyNumber } from '../../verify/normalise.js';
import { toDigits } from './text.js';

/** True when the normalised number passes the format rule of (country, type), or of any type when type is unknown. */
export function plausiblePolicyNumber(normalised: string, country: TCountry, type?: TInsuranceType): boolean {
  return (type ? [type] : INSURANCE_TYPES).some((t) => passesFormat(normalised, country, t));
}

/**
 * Digit-region repair for OCR text only: within a token that already holds digits, letters after the
 * first digit are look-alikes ("KH-47I1-2389O5" -> "KH-4711-238905"). A leading letter prefix stays.
 */
function repairToken(token: string): string {
  const m = /^([A-Za-z]{0,4}[-./]?)(.*)$/.exec(token);
  if (!m) return token;
  const [, prefix = '', rest = ''] = m;
  if (!/[0-9]/.test(rest)) return token;
  return prefix + toDigits(rest);
}

/** A token that can be part of a policy number: letters, digits and the separators numbers are printed with. */
const PART = /^[A-Za-z0-9|][A-Za-z0-9|.\-/]*$/;

/** A look-alike letter alone among digits ("47I1", "389O5"): in OCR text a misread digit, not a letter of the number. */
const LONE_LOOKALIKE = /[0-9][OoIl|SBZDG](?:[0-9]|$|\s|-)/;

export interface PolicyReading {
  /** The number as printed (spaces kept, trailing punctuation dropped), or its OCR repair when only that passes the format table. */
  value: string;
  /** True when look-alike repairs were made (OCR text only). */
  repaired: boolean;
  /** Whether the format table finds the value plausible for the country and type. */
  plausible: boolean;
}

export interface ReadOptions {
  /** The text came from OCR: look-alike repairs may be tried, and only where the printed reading cannot be right. */
  ocr?: boolean;
  /** A labelled value is read as printed even when the format table doubts it; unlabelled ones must pass it. */
  labelled?: boolean;
  /** Only the run that starts at the text's first token (a caller walking word by word). */
  atStart?: boolean;
}

/** Token runs that look like one number, each as [first token index, tokens]. */
function numberRuns(tokens: string[], firstOnly = false): string[][] {
  const runs: string[][] = [];
  for (let start = 0; start < (firstOnly ? Math.min(1, tokens.length) : tokens.length); start++) {
    const taken: string[] = [];
    for (let i = start; i < tokens.length; i++) {
      const raw = tokens[i] as string;
      const t = raw.replace(/[.]+$/, '');
      if (!PART.test(t)) break;
      const hasDigit = /[0-9]/.test(t);
      const isPrefix = taken.length === 0 && /^[A-Z]{1,4}-?$/.test(t);
      // A one- or two-letter suffix closes a number ("9486435 D") when nothing follows it.
      const isSuffix = taken.length > 0 && i === tokens.length - 1 && /^[A-Z]{1,2}$/.test(t);
      if (!hasDigit && !isPrefix && !isSuffix) break;
      taken.push(t);
      if (raw.endsWith('.') && i > start) break;
    }
    while (
      taken.length > 0 &&
      !/[0-9]/.test(taken[taken.length - 1] as string) &&
      !(taken.length > 1 && /^[A-Z]{1,2}$/.test(taken[taken.length - 1] as string))
    )
      taken.pop();
    if (taken.length > 0) runs.push(taken);
  }
  return runs;
}

/**
 * Every policy-number reading in `text`, left to right. A text-layer value is never repaired. OCR
 * text gets look-alike repairs only when the printed reading fails the format table and the
 * repaired one passes it. Unlabelled readings must pass the format table.
 */
export function readPolicyNumbers(
  text: string,
  country: TCountry | undefined,
  type: TInsuranceType | undefined,
  options: ReadOptions = {},
): PolicyReading[] {
  const tokens = text
    .replace(/[,;:()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const out: PolicyReading[] = [];
  const plausible = (v: string): boolean => (country ? plausiblePolicyNumber(normalisePolicyNumber(v), country, type) : false);
  for (const taken of numberRuns(tokens, options.atStart)) {
    const printed = taken.join(' ').replace(/\|/g, options.ocr ? '1' : '|');
    if (/^[0-9]{1,4}$/.test(normalisePolicyNumber(printed))) continue;
    if (plausible(printed) && !(options.ocr && LONE_LOOKALIKE.test(printed))) {
      out.push({ value: printed, repaired: false, plausible: true });
      continue;
    }
    if (options.ocr) {
      // OCR: the printed reading fails the format table, or holds a lone look-alike among digits.
      const repaired = taken.map(repairToken).join(' ').replace(/\|/g, '1');
      if (repaired !== printed && plausible(repaired)) {
        out.push({ value: repaired, repaired: true, plausible: true });
        continue;
      }
    }
    if (plausible(printed)) out.push({ value: printed, repaired: false, plausible: true });
    else if (options.labelled) out.push({ value: printed, repaired: false, plausible: false });
  }
  return out;
}

/** The first reading of `text` (see readPolicyNumbers). */
export function readPolicyNumber(
  text: string,
  country: TCountry | undefined,
  type?: TInsuranceType,
  options: ReadOptions = {},
): PolicyReading | null {
  return readPolicyNumbers(text, country, type, options)[0] ?? null;
}
