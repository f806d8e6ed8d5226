/** A1 notation helpers: quoted sheet names, column letters. */

/** `'Sheet name'!A1:B2`: sheet names are always quoted, quotes doubled, so any name works. */
export function a1(sheet: string, range: string): string {
  return `'${sheet.replace(/'/g, "''")}'!${range}`;
}

export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

export function columnLetters(index: number): string {
  let s = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}
