/** Finds dates written in the local forms of every language pack and returns them as YYYY-MM-DD. */
import { ALL_LANGUAGE_PACKS } from '../../../../shared/packs/index.js';
import { editDistanceWithin, fold, toDigits } from './text.js';

/** A date found in a string: ISO value and where it was. */
export interface FoundDate {
  iso: string;
  index: number;
  end: number;
  /** 1 for a clean reading, lower when OCR repairs or a fuzzy month name were needed. */
  certainty: number;
}

/** Every pack's month names and other spellings, with their numbers (fuzzy-matched below). */
const MONTH_NAMES: Array<[string, number]> = [
  ...ALL_LANGUAGE_PACKS.flatMap((p) => p.months.map((m, i): [string, number] => [m, i + 1])),
  ...ALL_LANGUAGE_PACKS.flatMap((p) => Object.entries(p.monthVariants)),
];
/** Abbreviations match exactly; where two packs share one ("nov"), they agree on its month (test/packs). */
const MONTH_ABBREVIATIONS: Record<string, number> = Object.assign({}, ...ALL_LANGUAGE_PACKS.map((p) => p.monthAbbreviations));
/** Every character of every month name and variant. */
const MONTH_CHARS = new Set(MONTH_NAMES.flatMap(([name]) => [...name]));
const EXACT = new Map<string, number>([...MONTH_NAMES, ...Object.entries(MONTH_ABBREVIATIONS)]);

/**
 * Month number for a word, tolerating OCR damage when only one month is that close: one edit for
 * names of 4-6 letters, two for longer ones ("Septernber", "Fevrler"). Abbreviations must be exact.
 */
export function monthNumber(word: string): { month: number; certainty: number } | null {
  const w = fold(word).replace(/\.$/, '');
  const exact = EXACT.get(w);
  if (exact) return { month: exact, certainty: 1 };
  if (w.length < 4) return null;
  const allowed = w.length >= 7 ? 2 : 1;
  // Each character no month name has costs an edit: most words (every line's last word is tried) stop here.
  let foreign = 0;
  for (const ch of w) if (!MONTH_CHARS.has(ch) && ++foreign > allowed) return null;
  let best: number | null = null;
  let bestD = Infinity;
  let ambiguous = false;
  for (const [name, m] of MONTH_NAMES) {
    if (Math.abs(name.length - w.length) > allowed) continue;
    const d = editDistanceWithin(w, name, allowed);
    if (d > allowed) continue;
    if (d < bestD) {
      bestD = d;
      best = m;
      ambiguous = false;
    } else if (d === bestD && m !== best) ambiguous = true;
  }
  return best !== null && !ambiguous ? { month: best, certainty: 0.85 } : null;
}

function isoDate(y: number, m: number, d: number): string | null {
  if (y < 100) y += 2000;
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1) return null;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1) return null;
  return `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

// Digit-like characters OCR produces inside numbers: O for 0, l/I/| for 1, S for 5, B for 8.
const DG = '[0-9OolI|SB]';
const SEP = '\\s?[./\\-,]\\s?';
// Year first with one separator throughout and no spaces ("2026-03-01"): with spaces or mixed separators, the year
// is the end of a day-first date and the rest the start of the next one ("12/03/2025 - 11/03/2026").
const ISO_RE = new RegExp(`(?<![0-9])(${DG}{4})([./-])(${DG}{1,2})\\2(${DG}{1,2})(?![0-9])`, 'g');
const DMY_RE = new RegExp(`(?<![0-9A-Za-z])(${DG}{1,2})${SEP}(${DG}{1,2})${SEP}(${DG}{4}|${DG}{2})(?![0-9])`, 'g');
// The year may touch the month: OCR of a photo drops narrow word spaces ("1. November2025").
const TEXT_RE = /(?<![0-9])([0-9OlI]{1,2})\s?(?:st|nd|rd|th|er|\.|,)?\s*([A-Za-zÀ-ÿ]{3,11}\.?)\s*,?\s*([0-9OlI]{4})(?![0-9])/g;
/** French "1er" (the only ordinal day) as OCR reads its serif 1: "Ler", "|er". "ler" and "Ier" are TEXT_RE's look-alikes. */
const FIRST_RE = /(?<![\p{L}\d])[L|]er\s+(\p{L}{3,11}\.?)\s*,?\s+([0-9OlI]{4})(?![0-9])/gu;
const MDY_RE = /\b([A-Za-z]{3,9}\.?)\s+([0-9]{1,2})(?:st|nd|rd|th)?,\s*([0-9]{4})(?![0-9])/g;

/** Every date in `s`, left to right, day-first for numeric forms (the convention in every supported country). */
export function findDates(s: string): FoundDate[] {
  const found: FoundDate[] = [];
  const add = (iso: string | null, index: number, end: number, certainty: number): void => {
    if (!iso) return;
    if (found.some((f) => index < f.end && end > f.index)) return;
    found.push({ iso, index, end, certainty });
  };
  const n = (x: string): number => Number(toDigits(x));
  const repaired = (...parts: string[]): number => (parts.some((p) => /[^0-9]/.test(p)) ? 0.85 : 1);
  // A look-alike letter only stands for a digit next to real ones: "2O25" is a year, a lone "S" is not a day.
  const digitish = (...parts: string[]): boolean => parts.every((p) => /[0-9]/.test(p));
  for (const m of s.matchAll(ISO_RE))
    if (digitish(m[1]!, m[3]!, m[4]!))
      add(isoDate(n(m[1]!), n(m[3]!), n(m[4]!)), m.index, m.index + m[0].length, repaired(m[1]!, m[3]!, m[4]!));
  for (const m of s.matchAll(TEXT_RE)) {
    const month = monthNumber(m[2]!);
    if (month) add(isoDate(n(m[3]!), month.month, n(m[1]!)), m.index, m.index + m[0].length, month.certainty * repaired(m[1]!, m[3]!));
  }
  for (const m of s.matchAll(FIRST_RE)) {
    const month = monthNumber(m[1]!);
    if (month) add(isoDate(n(m[2]!), month.month, 1), m.index, m.index + m[0].length, month.certainty * 0.85);
  }
  for (const m of s.matchAll(MDY_RE)) {
    const month = monthNumber(m[1]!);
    if (month) add(isoDate(Number(m[3]), month.month, Number(m[2])), m.index, m.index + m[0].length, month.certainty);
  }
  for (const m of s.matchAll(DMY_RE)) {
    // A two-digit year only counts with dots or slashes on both sides ("01.08.25"), not in a phone number.
    if (m[3]!.length === 2 && !/[./]/.test(m[0])) continue;
    if (!digitish(m[1]!, m[2]!, m[3]!)) continue;
    add(
      isoDate(n(m[3]!), n(m[2]!), n(m[1]!)),
      m.index,
      m.index + m[0].length,
      repaired(m[1]!, m[2]!, m[3]!) * (m[3]!.length === 2 ? 0.95 : 1),
    );
  }
  return found.sort((a, b) => a.index - b.index);
}
