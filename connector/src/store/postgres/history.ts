/** The result history in PostgreSQL: entries written alone or inside another transaction, read by key newest first. */
import type { HistoryQuery, HistoryStore, NewVerification, VerificationRecord } from '../types/history.js';
import { all, type Db, type Queryable } from './db.js';

const COLUMNS =
  'id, key_id, source, source_id, policy_number, country, insurance_type, status, confidence, checks, input, result, created_at';

/** The values of an entry, in COLUMNS order. */
export function verificationValues(v: NewVerification): unknown[] {
  return [
    v.id,
    v.key_id,
    v.source,
    v.source_id,
    v.policy_number,
    v.country,
    v.insurance_type,
    v.status,
    v.confidence,
    v.checks,
    v.input,
    v.result,
    v.created_at,
  ];
}

/** Casts of the columns whose type a SELECT list cannot infer from its target (INSERT ... SELECT). */
const CASTS: Record<number, string> = { 8: '::double precision', 12: '::timestamptz' };

/** `$first, ..., $(first+12)`: the placeholders of verificationValues in a statement that has other parameters before them. */
export function verificationPlaceholders(first: number): string {
  return Array.from({ length: 13 }, (_, i) => `$${first + i}${CASTS[i] ?? ''}`).join(', ');
}

export const VERIFICATION_COLUMNS = COLUMNS;

/** Writes one entry with the caller's connection, so it commits with whatever else the caller's transaction writes. */
export async function insertVerification(c: Queryable, v: NewVerification): Promise<void> {
  await c.query(`INSERT INTO verifications (${COLUMNS}) VALUES (${verificationPlaceholders(1)})`, verificationValues(v));
}

function where(query: HistoryQuery): { sql: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  const add = (term: (n: number) => string, ...values: unknown[]) => {
    terms.push(term(params.length + 1));
    params.push(...values);
  };
  add((n) => `key_id = $${n}`, query.key_id);
  if (query.from !== undefined) add((n) => `created_at >= $${n}`, query.from);
  if (query.to !== undefined) add((n) => `created_at < $${n}`, query.to);
  if (query.status !== undefined) add((n) => `status = $${n}`, query.status);
  if (query.policy_number !== undefined) add((n) => `policy_number = $${n}`, query.policy_number);
  if (query.watch_id !== undefined) add((n) => `source = 'watch' AND source_id = $${n}`, query.watch_id);
  if (query.after !== undefined) add((n) => `(created_at, id) < ($${n}::timestamptz, $${n + 1})`, query.after.created_at, query.after.id);
  return { sql: terms.join(' AND '), params };
}

export function historyStore(db: Db): HistoryStore {
  return {
    async record(entry) {
      await insertVerification(db, entry);
    },
    async list(query) {
      const { sql, params } = where(query);
      return all<VerificationRecord>(
        db,
        `SELECT ${COLUMNS} FROM verifications WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT $${params.length + 1}`,
        [...params, query.limit],
      );
    },
  };
}
