/**
 * Turns a user's search text into a safe FTS5 query: words (letters and digits) only, each a
 * quoted prefix term, all required. FTS5 syntax in the input (quotes, NEAR, column filters,
 * operators) is never passed through, so no input can make the query fail.
 */
export function toFtsQuery(text: string): string | null {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 12);
  if (words.length === 0) return null;
  return words.map((w) => `"${w}"*`).join(' AND ');
}
