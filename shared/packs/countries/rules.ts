/** Wording and helpers the country profiles share. */
import type { PlateReading } from '../types.js';

/** Where no public standard fixes a policy number's shape: a bound real numbers pass and typing mistakes fail. */
export const PLAUSIBLE = 'Covercheck plausibility rule (no public standard; formats are insurer-specific)';

/** A plate reading: `raw` as printed against `fixed` after look-alike swaps. */
export function reading(plate: string, raw: string, fixed: string): PlateReading {
  return { plate, certainty: raw === fixed ? 1 : 0.8 };
}

export const isLetters = (s: string): boolean => /^[A-Z]+$/.test(s);
export const isDigits = (s: string): boolean => /^[0-9]+$/.test(s);
