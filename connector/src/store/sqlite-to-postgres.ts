/**
 * Moves a SQLite store into PostgreSQL: every row of every table, in one PostgreSQL transaction, so
 * that keys keep working (their hashes are copied as they are), balances and the credit ledger carry
 * on, and accepted work, webhook deliveries, Sheets state, portal requests and idempotency records
 * resume on the new store.
 *
 * Each SQLite table is either in COPIED_TABLES or in SKIPPED_TABLES with the reason; a table or column
 * the move does not know stops it before anything is written, so a table added later can't be left
 * behind unnoticed. Columns are matched by name and converted by their PostgreSQL type (SQLite keeps
 * booleans as 0/1 and lists as comma-separated text; JSON text and ISO timestamps read as they are).
 */
import type Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { StoreCopyError } from './copy-error.js';
import { fold } from './postgres/datasets.js';
import { createPool, migrate as migratePostgres, tx, type Tx } from './postgres/db.js';
import { PG_MIGRATIONS } from './postgres/migrations.js';
import { openExclusive } from './sqlite-backup.js';
import { migrate as migrateSqlite } from './sqlite/db.js';
import { MIGRATIONS } from './sqlite/migrations.js';

/** The tables copied, each after the tables it references. */
export const COPIED_TABLES = [
  'meta',
  'api_keys',
  'credit_ledger',
  'idempotency',
  'insurers',
  'registry_policies',
  'registry_coverage',
  'sanctions',
  'jobs',
  'job_documents',
  'key_document_bytes',
  'batches',
  'batch_items',
  'verifications',
  'expired_work',
  'webhook_outbox',
  'webhook_attempts',
  'datasets',
  'dataset_points',
  'sheet_writebacks',
  'sheet_schedules',
  'sheet_schedule_runs',
  'sheet_bindings',
  'portal_key_requests',
  'watches',
  'watch_items',
  'watch_runs',
  'watch_changes',
  'watch_mails',
] as const;

const FTS = "part of datasets_fts, SQLite's full-text index of datasets";

/** SQLite tables deliberately not copied, and why. Tables named sqlite_* are SQLite's own and never copied. */
export const SKIPPED_TABLES: Readonly<Record<string, string>> = {
  schema_migrations: "each backend records its own migrations; PostgreSQL's are applied when the target is opened",
  datasets_fts: "SQLite's full-text index of datasets; PostgreSQL's search column is built from the copied datasets rows",
  datasets_fts_data: FTS,
  datasets_fts_idx: FTS,
  datasets_fts_content: FTS,
  datasets_fts_docsize: FTS,
  datasets_fts_config: FTS,
};

type Row = Record<string, unknown>;

/** PostgreSQL columns with no SQLite counterpart that the move fills in from the row. */
const COMPUTED: Record<string, Record<string, (row: Row, param: (v: unknown) => string) => string>> = {
  datasets: {
    // As postgres/datasets.ts builds it on upsert: accent-folded title A, category and source B, description C.
    search: (r, p) =>
      `setweight(to_tsvector('simple', ${p(fold(String(r.title)))}), 'A') || ` +
      `setweight(to_tsvector('simple', ${p(fold(`${String(r.category)} ${String(r.source)}`))}), 'B') || ` +
      `setweight(to_tsvector('simple', ${p(fold(String(r.description)))}), 'C')`,
  },
};

export interface MoveReport {
  /** Schema versions: the SQLite file's last migration, PostgreSQL's. */
  schema: { sqlite: number; postgres: number };
  /** Rows copied, by table. */
  copied: Record<string, number>;
  skipped: Readonly<Record<string, string>>;
}

interface PgColumn {
  name: string;
  dataType: string;
  required: boolean;
  serial: boolean;
}

interface ColumnPlan {
  name: string;
  convert: (v: unknown) => unknown;
}

interface TablePlan {
  table: string;
  columns: ColumnPlan[];
  computed: [string, (row: Row, param: (v: unknown) => string) => string][];
  /** Copied columns PostgreSQL numbers from a sequence: the sequence goes on from the largest copied value. */
  serials: string[];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The tables of a SQLite store, SQLite's own (sqlite_*) left out. */
export function sqliteTables(db: Database.Database): string[] {
  return (
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
}

/** What the table lists get wrong for this SQLite schema: tables in neither list, and entries naming no table. */
export function tableListProblems(db: Database.Database): string[] {
  const present = new Set(sqliteTables(db));
  const listed = new Set<string>([...COPIED_TABLES, ...Object.keys(SKIPPED_TABLES)]);
  return [
    ...[...present].filter((t) => !listed.has(t)).map((t) => `table ${t} is neither copied nor skipped`),
    ...COPIED_TABLES.filter((t) => !present.has(t)).map((t) => `table ${t} is listed as copied but SQLite has no such table`),
  ];
}

/** PostgreSQL's columns of a table, in the target's schema. */
async function pgColumns(c: Tx, table: string): Promise<PgColumn[]> {
  const rows = (
    await c.query(
      `SELECT column_name, data_type, is_nullable, column_default, is_generated FROM information_schema.columns
       WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    )
  ).rows as { column_name: string; data_type: string; is_nullable: string; column_default: string | null; is_generated: string }[];
  return rows.map((r) => ({
    name: r.column_name,
    dataType: r.data_type,
    required: r.is_nullable === 'NO' && r.column_default === null && r.is_generated !== 'ALWAYS',
    serial: r.column_default?.startsWith('nextval(') ?? false,
  }));
}

/** How a SQLite value becomes the PostgreSQL column's: by the target's type. */
function converter(dataType: string): (v: unknown) => unknown {
  if (dataType === 'boolean') return (v) => (v === null ? null : v !== 0);
  if (dataType === 'ARRAY') return (v) => (v === null ? null : String(v).split(',').filter(Boolean));
  // jsonb takes the JSON text as it is; timestamptz and date take ISO text; bytea a Buffer.
  return (v) => v;
}

/** Matches each copied table's columns, or lists every column that has no place on the other side. */
async function plan(db: Database.Database, c: Tx): Promise<TablePlan[]> {
  const problems = tableListProblems(db);
  const plans: TablePlan[] = [];
  for (const table of COPIED_TABLES) {
    if (problems.some((p) => p.startsWith(`table ${table} `))) continue;
    const sqliteCols = (db.pragma(`table_info(${quote(table)})`) as { name: string }[]).map((r) => r.name);
    const pgCols = await pgColumns(c, table);
    if (pgCols.length === 0) {
      problems.push(`table ${table} does not exist in PostgreSQL`);
      continue;
    }
    const computed = Object.entries(COMPUTED[table] ?? {});
    const byName = new Map(pgCols.map((col) => [col.name, col]));
    for (const name of sqliteCols) if (!byName.has(name)) problems.push(`column ${table}.${name} has no PostgreSQL column`);
    for (const col of pgCols)
      if (col.required && !sqliteCols.includes(col.name) && !computed.some(([n]) => n === col.name))
        problems.push(`column ${table}.${col.name} is required in PostgreSQL and SQLite has no value for it`);
    const copied = sqliteCols.filter((n) => byName.has(n));
    plans.push({
      table,
      columns: copied.map((name) => ({ name, convert: converter(byName.get(name)!.dataType) })),
      computed,
      serials: copied.filter((n) => byName.get(n)!.serial),
    });
  }
  if (problems.length) throw new StoreCopyError('unmapped', `The move does not know how to copy:\n  ${problems.join('\n  ')}`);
  return plans;
}

/** Parameters per INSERT stay well under PostgreSQL's 65535, and a statement's values under a few MB (documents are large). */
const MAX_PARAMS = 30_000;
const MAX_BYTES = 8 * 1024 * 1024;

async function copyTable(db: Database.Database, c: Tx, p: TablePlan): Promise<number> {
  const names = [...p.columns.map((col) => col.name), ...p.computed.map(([n]) => n)];
  const head = `INSERT INTO ${quote(p.table)} (${names.map(quote).join(', ')}) VALUES `;
  let tuples: string[] = [];
  let params: unknown[] = [];
  let bytes = 0;
  let copied = 0;
  const flush = async () => {
    if (tuples.length === 0) return;
    await c.query(head + tuples.join(', '), params);
    copied += tuples.length;
    tuples = [];
    params = [];
    bytes = 0;
  };
  const select = db.prepare(`SELECT ${p.columns.map((col) => quote(col.name)).join(', ')} FROM ${quote(p.table)}`);
  for (const row of select.iterate() as IterableIterator<Row>) {
    const param = (v: unknown) => {
      params.push(v);
      if (typeof v === 'string' || Buffer.isBuffer(v)) bytes += v.length;
      return `$${params.length}`;
    };
    const values = p.columns.map((col) => param(col.convert(row[col.name])));
    for (const [, expr] of p.computed) values.push(expr(row, param));
    tuples.push(`(${values.join(', ')})`);
    if (params.length + names.length * 2 > MAX_PARAMS || bytes > MAX_BYTES) await flush();
  }
  await flush();
  for (const col of p.serials) {
    await c.query(
      `SELECT setval(pg_get_serial_sequence($1, $2), coalesce(max(${quote(col)}), 1), max(${quote(col)}) IS NOT NULL) FROM ${quote(p.table)}`,
      [p.table, col],
    );
  }
  return copied;
}

/**
 * Copies the SQLite store at `sqlitePath` into the PostgreSQL database at `url` (migrated first if
 * empty). Refuses while another process has the SQLite file open (writes made after the copy would
 * be lost), and a target that holds rows unless `force`, which replaces them. The SQLite file is
 * brought to the current schema first, as a connector start would.
 */
export async function copySqliteToPostgres(sqlitePath: string, url: string, opts: { force?: boolean } = {}): Promise<MoveReport> {
  if (!fs.existsSync(sqlitePath)) throw new StoreCopyError('missing', `No database at ${path.resolve(sqlitePath)}.`);
  const db = openExclusive(sqlitePath);
  const pool = createPool(url, 1);
  try {
    migrateSqlite(db, MIGRATIONS);
    await migratePostgres(pool, PG_MIGRATIONS);
    return await tx(pool, async (c) => {
      const plans = await plan(db, c);
      const holding: string[] = [];
      for (const { table } of plans) {
        // The migration's own row in meta is not data.
        if (table === 'meta') continue;
        if ((await c.query(`SELECT 1 FROM ${quote(table)} LIMIT 1`)).rowCount) holding.push(table);
      }
      if (holding.length && !opts.force)
        throw new StoreCopyError(
          'not_empty',
          `The PostgreSQL database is not empty (rows in ${holding.join(', ')}): pass --force to replace them.`,
        );
      await c.query(`TRUNCATE ${plans.map((p) => quote(p.table)).join(', ')} RESTART IDENTITY`);
      const copied: Record<string, number> = {};
      for (const p of plans) {
        copied[p.table] = await copyTable(db, c, p);
        const expected = (db.prepare(`SELECT count(*) AS n FROM ${quote(p.table)}`).get() as { n: number }).n;
        if (copied[p.table] !== expected) throw new Error(`${p.table}: copied ${copied[p.table]} rows of ${expected}`);
      }
      const sqliteVersion = (db.prepare('SELECT max(id) AS v FROM schema_migrations').get() as { v: number }).v;
      const pgVersion = Number((await c.query('SELECT max(id) AS v FROM schema_migrations')).rows[0].v);
      return { schema: { sqlite: sqliteVersion, postgres: pgVersion }, copied, skipped: SKIPPED_TABLES };
    });
  } finally {
    db.close();
    await pool.end();
  }
}
