/** Text folding and OCR character repairs shared by the field parsers. */

const ASCII = /^[\x00-\x7f]*$/;

/** Lower case without diacritics or typographic quotes, so "Échéance" and "echeance" compare equal. */
export function fold(s: string): string {
  // Plain ASCII has nothing to decompose and no typographic quote but the backtick: the same result, several times faster.
  if (ASCII.test(s)) return (s.includes('`') ? s.replace(/`/g, "'") : s).toLowerCase();
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .toLowerCase();
}

export { toDigits, toLetters } from '../../../../shared/packs/lookalikes.js';

/**
 * A pattern's source with every space optional, for text whose letter-spaced words were closed up without their
 * gaps ("dateofcommencement", "arrangedby"): letter-spacing.ts.
 */
export function spacesOptional(source: string): string {
  return source
    .replace(/\\s\+/g, '\\s*')
    .replace(/\\s(?![*?])/g, '\\s?')
    .replace(/ (?![*?+])/g, ' ?');
}

/**
 * The Levenshtein distance when it is at most `max`, else max + 1: stops as soon as a whole row exceeds `max`.
 * For callers that only accept small distances (fuzzy month names, tried against every line's last word).
 */
export function editDistanceWithin(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    let least = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      const v = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      row[j] = v;
      if (v < least) least = v;
      prev = tmp;
    }
    if (least > max) return max + 1;
  }
  const d = row[b.length] as number;
  return d > max ? max + 1 : d;
}
