/**
 * The PostgreSQL connection pool and the two helpers every sub-store uses: `tx` for a
 * transaction that is retried on a serialization failure or deadlock, and `migrate`.
 */
import pg from 'pg';
import type { Row } from '../rows.js';
import type { Migration } from '../migration.js';

export type Db = pg.Pool;
export type Tx = pg.PoolClient;
export type Queryable = pg.Pool | pg.PoolClient;
export type { Row };

const OID = { int8: 20, date: 1082, timestamp: 1114, timestamptz: 1184 } as const;

/**
 * Values come back in the interface's shapes: timestamps as the ISO strings callers wrote
 * (`toISOString()` form), dates as YYYY-MM-DD (pg's default would make a Date at local midnight),
 * bigint counters as numbers (ledger ids and versions stay far below 2^53).
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === OID.timestamptz || oid === OID.timestamp) return (v: string) => new Date(v).toISOString();
    if (oid === OID.date) return (v: string) => v;
    if (oid === OID.int8) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format ?? 'text');
  },
} as pg.CustomTypesConfig;

export function createPool(url: string, size: number): Db {
  const pool = new pg.Pool({
    connectionString: url,
    max: size,
    types,
    // UTC sessions: timestamps print as ...+00, which the parser above reads without guessing.
    options: '-c TimeZone=UTC',
    connectionTimeoutMillis: 10_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client losing its connection (database restart) must not crash the process; the pool
  // replaces it and the next query reports the error to its caller.
  pool.on('error', () => {});
  return pool;
}

const RETRYABLE = new Set(['40001', '40P01']); // serialization_failure, deadlock_detected

/** Runs `fn` in one transaction (READ COMMITTED); retried from the start on a deadlock or serialization failure. */
export async function tx<T>(db: Db, fn: (c: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await db.connect();
    let broken = false;
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (attempt < 5 && RETRYABLE.has((err as { code?: string }).code ?? '')) continue;
      throw err;
    } finally {
      client.release(broken);
    }
  }
}

export async function one<T = Row>(q: Queryable, sql: string, params: unknown[] = []): Promise<T | null> {
  const r = await q.query(sql, params);
  return (r.rows[0] as T | undefined) ?? null;
}

export async function all<T = Row>(q: Queryable, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await q.query(sql, params)).rows as T[];
}

export async function changed(q: Queryable, sql: string, params: unknown[] = []): Promise<number> {
  return (await q.query(sql, params)).rowCount ?? 0;
}

/**
 * Applies pending migrations. Several instances may start at once against one database: a
 * transaction-scoped advisory lock lets one migrate while the others wait, then find nothing to do.
 */
export async function migrate(db: Db, migrations: Migration[]): Promise<number[]> {
  const applied: number[] = [];
  await tx(db, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('covercheck.migrate'))");
    await c.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)',
    );
    const done = new Set((await all<{ id: number }>(c, 'SELECT id FROM schema_migrations')).map((r) => r.id));
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      await c.query(m.sql);
      await c.query('INSERT INTO schema_migrations (id, name, applied_at) VALUES ($1, $2, now())', [m.id, m.name]);
      applied.push(m.id);
    }
  });
  return applied;
}
