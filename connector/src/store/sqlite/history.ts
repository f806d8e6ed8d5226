/** The result history in SQLite: entries written alone (grouped into one commit per event-loop turn) or inside another transaction. */
import type { Statement } from 'better-sqlite3';
import type { HistoryQuery, HistoryStore, NewVerification, VerificationRecord } from '../types/history.js';
import type { Db } from './db.js';
import { groupCommit } from './group-commit.js';

/** The insert, for the transactions that write an entry with what they settle (a charge, a job's or a batch item's finish). */
export function verificationInsert(db: Db): (v: NewVerification) => void {
  const insert = db.prepare(`INSERT INTO verifications
    (id, key_id, source, source_id, policy_number, country, insurance_type, status, confidence, checks, input, result, created_at)
    VALUES (@id, @key_id, @source, @source_id, @policy_number, @country, @insurance_type, @status, @confidence, @checks, @input, @result, @created_at)`);
  return (v) => {
    insert.run(v);
  };
}

const COLUMNS =
  'id, key_id, source, source_id, policy_number, country, insurance_type, status, confidence, checks, input, result, created_at';

/** The WHERE clause of a query, and its parameters in order. */
function where(query: HistoryQuery): { sql: string; params: unknown[] } {
  const terms: string[] = [];
  const params: unknown[] = [];
  const add = (term: string, ...values: unknown[]) => {
    terms.push(term);
    params.push(...values);
  };
  add('key_id = ?', query.key_id);
  if (query.from !== undefined) add('created_at >= ?', query.from);
  if (query.to !== undefined) add('created_at < ?', query.to);
  if (query.status !== undefined) add('status = ?', query.status);
  if (query.policy_number !== undefined) add('policy_number = ?', query.policy_number);
  if (query.watch_id !== undefined) add("source = 'watch' AND source_id = ?", query.watch_id);
  if (query.after !== undefined) add('(created_at, id) < (?, ?)', query.after.created_at, query.after.id);
  return { sql: terms.join(' AND '), params };
}

export function historyStore(db: Db): HistoryStore {
  const insert = verificationInsert(db);
  // A sync result nothing else writes (sandbox key, inconclusive) is the hot write here: grouped like charges.
  const record = groupCommit(db, insert);
  // One statement per combination of filters: there are few, and preparing costs more than a lookup.
  const statements = new Map<string, Statement<unknown[]>>();
  const prepared = (sql: string) => {
    let s = statements.get(sql);
    if (!s) statements.set(sql, (s = db.prepare(sql)));
    return s;
  };

  return {
    async record(entry) {
      await record(entry);
    },
    async list(query) {
      const { sql, params } = where(query);
      const rows = prepared(`SELECT ${COLUMNS} FROM verifications WHERE ${sql} ORDER BY created_at DESC, id DESC LIMIT ?`).all(
        ...params,
        query.limit,
      );
      return rows as VerificationRecord[];
    },
  };
}
