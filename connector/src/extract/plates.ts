/** Vehicle registration plates for UK, DE and FR: find, repair OCR look-alikes by position, and print canonically. */
import type { TCountry } from '../../../shared/policy.js';
import { toDigits, toLetters } from './text.js';

/** A plate found in a string, in its canonical form: UK "AB12 CDE", DE "M-AB 1234", FR "AB-123-CD". */
export interface FoundPlate {
  plate: string;
  country: TCountry;
  /** 1 when read as printed, lower when OCR look-alikes had to be swapped. */
  certainty: number;
}

const L = '[A-Z0-9]';
// Each pattern accepts look-alikes in every position; the position then decides letter or digit.
const UK_RE = new RegExp(`(?<![A-Z0-9])(${L}{2})(${L}{2}) ?(${L}{3})(?![A-Z0-9])`, 'g');
const FR_RE = new RegExp(`(?<![A-Z0-9])(${L}{2})[- ](${L}{3})[- ](${L}{2})(?![A-Z0-9])`, 'g');
const DE_RE = /(?<![A-ZÄÖÜ0-9])([A-ZÄÖÜ]{1,3})[- ]([A-Z0-9]{1,2}) ([0-9OIlSB]{1,4})([EH])?(?![A-Z0-9])/g;

const isLetters = (s: string): boolean => /^[A-Z]+$/.test(s);
const isDigits = (s: string): boolean => /^[0-9]+$/.test(s);

function certainty(raw: string, fixed: string): number {
  return raw === fixed ? 1 : 0.8;
}

/** UK current-format plates (2001 on): two letters, the age identifier, three letters. */
function ukPlates(s: string): FoundPlate[] {
  const out: FoundPlate[] = [];
  for (const m of s.toUpperCase().matchAll(UK_RE)) {
    const a = toLetters(m[1]!);
    const b = toDigits(m[2]!);
    const c = toLetters(m[3]!);
    if (!isLetters(a) || !isDigits(b) || !isLetters(c)) continue;
    // Genuine plates mix letters and digits; a run of letters alone is a word, not a misread plate.
    if (!/[0-9]/.test(m[2]!)) continue;
    out.push({ plate: `${a}${b} ${c}`, country: 'UK', certainty: certainty(m[1]! + m[2]! + m[3]!, a + b + c) });
  }
  return out;
}

/** French SIV plates since 2009: AA-123-AA. */
function frPlates(s: string): FoundPlate[] {
  const out: FoundPlate[] = [];
  for (const m of s.toUpperCase().matchAll(FR_RE)) {
    const a = toLetters(m[1]!);
    const b = toDigits(m[2]!);
    const c = toLetters(m[3]!);
    if (!isLetters(a) || !isDigits(b) || !isLetters(c) || !/[0-9]/.test(m[2]!)) continue;
    out.push({ plate: `${a}-${b}-${c}`, country: 'FR', certainty: certainty(m[1]! + m[2]! + m[3]!, a + b + c) });
  }
  return out;
}

/** German plates: district (1-3 letters), 1-2 letters, 1-4 digits, optional E/H suffix. */
function dePlates(s: string): FoundPlate[] {
  const out: FoundPlate[] = [];
  for (const m of s.matchAll(DE_RE)) {
    const district = m[1]!;
    const letters = toLetters(m[2]!);
    const num = toDigits(m[3]!);
    if (!isLetters(letters) || !isDigits(num) || num.startsWith('0')) continue;
    out.push({ plate: `${district}-${letters} ${num}${m[4] ?? ''}`, country: 'DE', certainty: certainty(m[2]! + m[3]!, letters + num) });
  }
  return out;
}

/** Plates in `s`, for the given countries (all three when not known). */
export function findPlates(s: string, countries: TCountry[] = ['UK', 'DE', 'FR']): FoundPlate[] {
  const out: FoundPlate[] = [];
  if (countries.includes('UK')) out.push(...ukPlates(s));
  if (countries.includes('FR')) out.push(...frPlates(s));
  if (countries.includes('DE')) out.push(...dePlates(s));
  return out;
}

/** Plates compare without spaces, dashes and case. */
export function normalisePlate(p: string): string {
  return p.toUpperCase().replace(/[^A-Z0-9ÄÖÜ]/g, '');
}
