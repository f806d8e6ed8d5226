/**
 * Group commit for SQLite: calls made in the same turn of the event loop run in one immediate
 * transaction, each in its own savepoint, and every caller is answered after that one COMMIT.
 *
 * A SQLite transaction costs about 34 µs here whatever it holds, and a credit charge is one small
 * transaction per charged verification: ten charges in one commit cost about 9.5 µs each instead
 * (measured on the store's own charge statements, WAL, synchronous=NORMAL). Each call keeps its own atomicity (its savepoint is undone
 * alone if it throws) and its durability (nobody is answered before the commit).
 */
import type Database from 'better-sqlite3';

interface Pending<A extends unknown[], R> {
  args: A;
  resolve(value: R): void;
  reject(err: unknown): void;
}

export function groupCommit<A extends unknown[], R>(db: Database.Database, fn: (...args: A) => R): (...args: A) => Promise<R> {
  // better-sqlite3 runs a transaction function called inside another as a savepoint.
  const one = db.transaction(fn);
  let queue: Pending<A, R>[] = [];
  const outcomes: ({ ok: true; value: R } | { ok: false; err: unknown })[] = [];
  const all = db.transaction((batch: Pending<A, R>[]) => {
    outcomes.length = 0;
    for (const p of batch) {
      try {
        outcomes.push({ ok: true, value: one(...p.args) });
      } catch (err) {
        outcomes.push({ ok: false, err });
      }
    }
  });
  const flush = () => {
    const batch = queue;
    queue = [];
    try {
      all.immediate(batch);
    } catch (err) {
      // The commit itself failed (disk full, I/O error): nothing of the batch was written.
      for (const p of batch) p.reject(err);
      return;
    }
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if (o.ok) p.resolve(o.value);
      else p.reject(o.err);
    });
  };
  return (...args: A) =>
    new Promise<R>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ args, resolve, reject });
    });
}
