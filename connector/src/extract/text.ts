/** Text folding and OCR character repairs shared by the field parsers. */

/** Lower case without diacritics or typographic quotes, so "Échéance" and "echeance" compare equal. */
export function fold(s: string): string {
  return s
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ß/g, 'ss')
    .replace(/[\u2018\u2019\u00b4`]/g, "'")
    .toLowerCase();
}

/** Letters OCR reads for digits (and back). Only applied where a pattern says which one belongs there. */
const AS_DIGIT: Record<string, string> = { O: '0', o: '0', D: '0', Q: '0', I: '1', l: '1', i: '1', '|': '1', '!': '1', S: '5', s: '5', B: '8', Z: '2', z: '2', G: '6', T: '7' };
const AS_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '5': 'S', '8': 'B', '2': 'Z', '6': 'G', '4': 'A', '7': 'T' };

/** `s` with OCR look-alike letters turned into the digits they stand for. */
export function toDigits(s: string): string {
  return [...s].map((c) => AS_DIGIT[c] ?? c).join('');
}

/** `s` with OCR look-alike digits turned into the letters they stand for. */
export function toLetters(s: string): string {
  return [...s].map((c) => AS_LETTER[c] ?? c).join('').toUpperCase();
}

/** Levenshtein distance for short words (month names, labels); inputs are a few characters long. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = row[j] as number;
      row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return row[b.length] as number;
}
