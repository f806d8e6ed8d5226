/** A1 notation helpers: quoted sheet names, column letters. */
import { columnLetter } from '../../../shared/column-letters.js';

/** `'Sheet name'!A1:B2`: sheet names are always quoted, quotes doubled, so any name works. */
export function a1(sheet: string, range: string): string {
  return `'${sheet.replace(/'/g, "''")}'!${range}`;
}

export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

/** Letters of a 0-based column index: 0 -> A, 26 -> AA; below 0 gives ''. */
export function columnLetters(index: number): string {
  return columnLetter(index + 1);
}
