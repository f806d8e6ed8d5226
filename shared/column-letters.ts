/**
 * Sheet column letters from column numbers, for A1 ranges and sheet targets. Plain code without zod:
 * the connector's write-back and the add-on's Apps Script bundle both use it.
 */

/** 1 -> A, 26 -> Z, 27 -> AA, 702 -> ZZ, 703 -> AAA; 0 and below give ''. */
export function columnLetter(column: number): string {
  let out = '';
  for (let n = column; n > 0; n = Math.floor((n - 1) / 26)) out = String.fromCharCode(65 + ((n - 1) % 26)) + out;
  return out;
}
