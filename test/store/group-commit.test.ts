import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupCommit } from '../../connector/src/store/sqlite/group-commit.js';
import { tempDbPath } from '../helpers/server.js';

const open: Database.Database[] = [];
const files: string[] = [];
afterEach(() => {
  for (const db of open.splice(0)) db.close();
  for (const f of files.splice(0)) fs.rmSync(path.dirname(f), { recursive: true, force: true });
});

function setup() {
  const file = tempDbPath('group');
  files.push(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (n INTEGER PRIMARY KEY)');
  // A second connection sees only what was committed.
  const other = new Database(file);
  open.push(db, other);
  const committed = () => (other.prepare('SELECT n FROM t ORDER BY n').all() as { n: number }[]).map((r) => r.n);
  return { db, other, committed };
}

describe('groupCommit (SQLite)', () => {
  it('runs calls of one event-loop turn in one transaction and answers each after the commit', async () => {
    const { db, other, committed } = setup();
    const versions: number[] = [];
    const insert = groupCommit(db, (n: number) => {
      db.prepare('INSERT INTO t (n) VALUES (?)').run(n);
      // data_version, read on the other connection, moves with every commit made elsewhere.
      versions.push(other.pragma('data_version', { simple: true }) as number);
      return n * 10;
    });
    const seenAtAnswer: number[][] = [];
    const calls = [1, 2, 3, 4, 5].map((n) => insert(n).then((v) => (seenAtAnswer.push(committed()), v)));
    expect(committed()).toEqual([]); // nothing runs before the turn ends
    expect(await Promise.all(calls)).toEqual([10, 20, 30, 40, 50]);
    expect(new Set(versions).size).toBe(1); // no commit between the five calls
    // Every caller was answered after all five rows were committed.
    for (const seen of seenAtAnswer) expect(seen).toEqual([1, 2, 3, 4, 5]);
    // A later turn is a new transaction.
    await insert(6);
    expect(committed()).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('undoes and rejects only the call that throws; the others commit', async () => {
    const { db, committed } = setup();
    const insert = groupCommit(db, (n: number) => {
      db.prepare('INSERT INTO t (n) VALUES (?)').run(n);
      if (n === 2) throw new Error('refused 2');
      return n;
    });
    const results = await Promise.allSettled([insert(1), insert(2), insert(3)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('refused 2');
    expect(committed()).toEqual([1, 3]);
  });

  it('rejects the whole group when the transaction cannot start, writing nothing', async () => {
    const { db, other, committed } = setup();
    db.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE'); // another writer holds the lock
    const insert = groupCommit(db, (n: number) => db.prepare('INSERT INTO t (n) VALUES (?)').run(n).changes);
    const results = await Promise.allSettled([insert(1), insert(2)]);
    other.exec('ROLLBACK');
    expect(results.every((r) => r.status === 'rejected' && /locked|busy/i.test(String(r.reason)))).toBe(true);
    expect(committed()).toEqual([]);
  });
});
