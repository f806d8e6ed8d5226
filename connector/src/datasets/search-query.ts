/**
 * Turns a user's search text into search terms: words (letters and digits) only, lower case,
 * at most 12. Each backend builds its own query from them (SQLite FTS5 in store/sqlite/datasets.ts,
 * PostgreSQL tsquery in store/postgres/datasets.ts); no query syntax from the input (quotes, NEAR,
 * column filters, operators) ever reaches either, so no input can make a search fail.
 */
export function searchTerms(text: string): string[] | null {
  const words = text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .slice(0, 12);
  return words.length === 0 ? null : words;
}
