/**
 * Whether two letter-spaced words side by side are one label: the text layer's reading (text-layer.ts, with the
 * gap between them) and the fields' (letter-spacing.ts, from the words alone) ask the same question.
 */

/** Characters of a word (spaces between its letters left out) below which it is short: what no comb rule closes up. */
export const SHORT_WORD = 4;

/**
 * True when `after` goes on with the label `before` ends, rather than starting the next column's heading. Two long
 * words in capitals may be two headings ("IMMATRICULATION", "VALIDITÉ" over its own sub-headings) as well as one
 * label; a short word ("D E", "N °"), a word going on in lower case ("n u m b e r") or one opening with an elided
 * article ("D ' E F F E T": never a heading's first word) binds.
 */
export function continuesSpacedLabel(before: string, after: string): boolean {
  const a = before.replace(/\s/g, '');
  const b = after.replace(/\s/g, '');
  return [...a].length < SHORT_WORD || [...b].length < SHORT_WORD || /^(?:\p{Ll}|\p{L}['’])/u.test(b);
}
