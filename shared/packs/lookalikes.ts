/**
 * Characters OCR reads for one another inside identifiers: the plate readers of the country packs
 * and the extractor use them where a format says which of letter or digit belongs at a position.
 */
const AS_DIGIT: Record<string, string> = {
  O: '0',
  o: '0',
  D: '0',
  Q: '0',
  I: '1',
  l: '1',
  i: '1',
  '|': '1',
  '!': '1',
  S: '5',
  s: '5',
  B: '8',
  Z: '2',
  z: '2',
  G: '6',
  T: '7',
};
const AS_LETTER: Record<string, string> = { '0': 'O', '1': 'I', '5': 'S', '8': 'B', '2': 'Z', '6': 'G', '4': 'A', '7': 'T' };

/** `s` with OCR look-alike letters turned into the digits they stand for. */
export function toDigits(s: string): string {
  return [...s].map((c) => AS_DIGIT[c] ?? c).join('');
}

/** `s` with OCR look-alike digits turned into the letters they stand for. */
export function toLetters(s: string): string {
  return [...s]
    .map((c) => AS_LETTER[c] ?? c)
    .join('')
    .toUpperCase();
}
