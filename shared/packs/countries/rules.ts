/** Wording and helpers the country profiles share. */
import { toDigits, toLetters } from '../lookalikes.js';
import type { PlateReading } from '../types.js';

/** Where no public standard fixes a policy number's shape: a bound real numbers pass and typing mistakes fail. */
export const PLAUSIBLE = 'Covercheck plausibility rule (no public standard; formats are insurer-specific)';

/** A plate reading: `raw` as printed against `fixed` after look-alike swaps. */
export function reading(plate: string, raw: string, fixed: string): PlateReading {
  return { plate, certainty: raw === fixed ? 1 : 0.8 };
}

export const isLetters = (s: string): boolean => /^[A-Z]+$/.test(s);
export const isDigits = (s: string): boolean => /^[0-9]+$/.test(s);

/**
 * Plates of letters, digits, letters (UK "AB12 CDE", FR "AB-123-CD"): `pattern` captures the three
 * groups accepting look-alikes anywhere; the position decides letter or digit. The digit group must
 * hold a real digit: a run of letters alone is a word, not a misread plate.
 */
export function readLettersDigitsLetters(
  text: string,
  pattern: RegExp,
  format: (letters: string, digits: string, tail: string) => string,
): PlateReading[] {
  const out: PlateReading[] = [];
  for (const m of text.toUpperCase().matchAll(pattern)) {
    const a = toLetters(m[1]!);
    const b = toDigits(m[2]!);
    const c = toLetters(m[3]!);
    if (!isLetters(a) || !isDigits(b) || !isLetters(c) || !/[0-9]/.test(m[2]!)) continue;
    out.push(reading(format(a, b, c), m[1]! + m[2]! + m[3]!, a + b + c));
  }
  return out;
}
