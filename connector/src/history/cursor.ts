/**
 * The opaque cursor of GET /verifications: the (created_at, id) of the last entry of a page. Pages are
 * keyset pages, so entries recorded while a client pages through are never repeated or skipped: newer
 * ones sort before the cursor, and an older position does not move.
 */
import { AppError } from '../errors.js';
import type { HistoryCursor } from '../store/types.js';

export function encodeCursor(c: HistoryCursor): string {
  return Buffer.from(JSON.stringify([c.created_at, c.id])).toString('base64url');
}

/** The position a cursor names; a cursor not made by encodeCursor is refused as invalid_request. */
export function decodeCursor(cursor: string): HistoryCursor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = null;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === 2 &&
    typeof parsed[0] === 'string' &&
    typeof parsed[1] === 'string' &&
    !Number.isNaN(Date.parse(parsed[0]))
  ) {
    return { created_at: new Date(parsed[0]).toISOString(), id: parsed[1] };
  }
  throw new AppError('invalid_request', 'cursor: not a cursor this server gave (use next_cursor of the previous page as it is).');
}
