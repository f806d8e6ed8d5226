/** A key's result history, a page at a time (GET /api/v1/verifications). */
import type { TVerificationEntry, TVerificationList, TVerificationsQuery } from '../../../shared/history.js';
import { AppError } from '../errors.js';
import type { HistoryQuery, Store, VerificationRecord } from '../store/types.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { decodeCursor, encodeCursor } from './cursor.js';

/** An instant as stored (toISOString form), so SQLite compares text the way PostgreSQL compares times. */
function instant(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const t = Date.parse(value);
  if (Number.isNaN(t)) throw new AppError('invalid_request', `${name}: not a date that exists.`);
  return new Date(t).toISOString();
}

export function toEntry(r: VerificationRecord): TVerificationEntry {
  return {
    id: r.id,
    created_at: r.created_at,
    source: r.source,
    source_id: r.source_id,
    policy_number: r.policy_number,
    country: r.country as TVerificationEntry['country'],
    insurance_type: r.insurance_type as TVerificationEntry['insurance_type'],
    status: r.status as TVerificationEntry['status'],
    confidence_score: r.confidence,
    checks: JSON.parse(r.checks) as TVerificationEntry['checks'],
    input: JSON.parse(r.input) as TVerificationEntry['input'],
    result: JSON.parse(r.result) as TVerificationEntry['result'],
  };
}

/** One page of the key's entries matching `query`, newest first, with the cursor of the next page (null: none). */
export async function listVerifications(
  keyId: string,
  query: TVerificationsQuery,
  store: Pick<Store, 'history'>,
): Promise<TVerificationList> {
  const q: HistoryQuery = { key_id: keyId, limit: query.limit + 1 };
  const from = instant('from', query.from);
  const to = instant('to', query.to);
  if (from !== undefined) q.from = from;
  if (to !== undefined) q.to = to;
  if (query.status !== undefined) q.status = query.status;
  if (query.policy_number !== undefined) q.policy_number = normalisePolicyNumber(query.policy_number);
  if (query.watch_id !== undefined) q.watch_id = query.watch_id;
  if (query.cursor !== undefined) q.after = decodeCursor(query.cursor);
  // One more than asked: whether another page exists, without an empty last page.
  const rows = await store.history.list(q);
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return {
    verifications: page.map(toEntry),
    next_cursor: rows.length > query.limit && last ? encodeCursor(last) : null,
  };
}
