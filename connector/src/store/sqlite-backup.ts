/**
 * Backup and restore of the SQLite store. A backup is taken with SQLite's online backup API, so it
 * is one consistent snapshot that includes what is committed in the WAL, while the connector keeps
 * writing; copying the file alone misses those commits. A restore checks a copy (integrity, schema)
 * before it replaces anything, and never replaces a database a process has open.
 *
 * Both write to a temporary file beside the destination and rename it into place, so the
 * destination is either the old file or the whole new one.
 */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { StoreCopyError } from './copy-error.js';
import { MIGRATIONS } from './sqlite/migrations.js';

export interface BackupReport {
  file: string;
  bytes: number;
  /** The last migration the copy has (schema_migrations). */
  schema_version: number;
  integrity: 'ok';
}

export interface RestoreReport extends BackupReport {
  to: string;
  /** Where the database the restore replaced was kept, or null when there was none. */
  replaced: string | null;
}

/** The schema this code writes: a copy from a later one may hold what this version would lose. */
export const LATEST_SCHEMA = Math.max(...MIGRATIONS.map((m) => m.id));

/**
 * Pages per backup step: all of them. Between steps SQLite drops its read lock, and a write by the
 * connector in that gap restarts the backup from the first page, which under steady writes may
 * never finish; one step holds one read snapshot instead (a WAL reader never blocks the writer).
 */
const ALL_PAGES = 0x7fffffff;

export async function backupSqlite(source: string, dest: string, opts: { force?: boolean } = {}): Promise<BackupReport> {
  const from = path.resolve(source);
  const to = path.resolve(dest);
  if (from === to) throw new StoreCopyError('exists', 'The backup file is the database itself: name another file.');
  if (!fs.existsSync(from)) throw new StoreCopyError('missing', `No database at ${from}.`);
  if (fs.existsSync(to) && !opts.force)
    throw new StoreCopyError('exists', `${to} exists: choose a new name, or pass --force to replace it.`);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  return stageAndInstall(to, async (staged) => {
    const db = new Database(from, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      await db.backup(staged, { progress: () => ALL_PAGES });
    } finally {
      db.close();
    }
    return checkCopy(staged, from);
  });
}

export async function restoreSqlite(backup: string, target: string, opts: { force?: boolean; now?: Date } = {}): Promise<RestoreReport> {
  const from = path.resolve(backup);
  const to = path.resolve(target);
  if (from === to) throw new StoreCopyError('exists', 'The backup file is the database itself: name the backup to restore.');
  if (!fs.existsSync(from)) throw new StoreCopyError('missing', `No backup at ${from}.`);
  const replacing = fs.existsSync(to);
  if (replacing && !opts.force)
    throw new StoreCopyError('exists', `${to} exists: pass --force to replace it (the current database is kept beside it).`);
  if (replacing) assertNotInUse(to);
  fs.mkdirSync(path.dirname(to), { recursive: true });
  let replaced: string | null = null;
  const report = await stageAndInstall(
    to,
    async (staged) => {
      const db = openSource(from);
      try {
        await db.backup(staged, { progress: () => ALL_PAGES });
      } finally {
        db.close();
      }
      return checkCopy(staged, from);
    },
    () => {
      if (!replacing) return;
      // Checked again at the last moment: the first check was before the copy, which takes a while.
      assertNotInUse(to, { checkpoint: true });
      replaced = `${to}.replaced-${(opts.now ?? new Date()).toISOString().replace(/[:.]/g, '-')}`;
      fs.renameSync(to, replaced);
      // A WAL or shared-memory file left beside the path belongs to the old database: SQLite would
      // replay that WAL into the restored file.
      for (const suffix of ['-wal', '-shm']) fs.rmSync(`${to}${suffix}`, { force: true });
    },
  );
  return { ...report, file: from, to, replaced };
}

/** The source of a restore, opened for writing: a copy left in WAL mode is then read with its WAL, and leaves no files beside it. */
function openSource(file: string): Database.Database {
  try {
    return new Database(file, { fileMustExist: true });
  } catch (err) {
    throw new StoreCopyError('invalid', `${file} is not a readable SQLite database: ${(err as Error).message}`);
  }
}

/**
 * Builds the copy in a temporary file beside `to`, lets `beforeInstall` move the old file aside,
 * then renames the copy into place. The temporary file is removed whatever fails.
 */
async function stageAndInstall(
  to: string,
  build: (staged: string) => Promise<BackupReport>,
  beforeInstall: () => void = () => {},
): Promise<BackupReport> {
  const staged = `${to}.partial-${process.pid}`;
  const litter = [staged, `${staged}-journal`, `${staged}-wal`, `${staged}-shm`];
  for (const f of litter) fs.rmSync(f, { force: true });
  try {
    const report = await build(staged);
    syncFile(staged);
    beforeInstall();
    fs.renameSync(staged, to);
    syncFile(path.dirname(to));
    return { ...report, file: to };
  } finally {
    for (const f of litter) fs.rmSync(f, { force: true });
  }
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Checks a finished copy and makes it one self-contained file (rollback journal mode: no WAL beside
 * it; the connector turns WAL back on when it opens the file). `origin` names it in messages.
 */
function checkCopy(file: string, origin: string): BackupReport {
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { fileMustExist: true });
    db.pragma('journal_mode = DELETE');
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (problems.length !== 1 || problems[0] !== 'ok')
      throw new StoreCopyError('invalid', `${origin} fails SQLite's integrity check: ${problems.slice(0, 5).join('; ')}`);
    const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!hasMigrations) throw new StoreCopyError('invalid', `${origin} is not a Covercheck database (it has no schema_migrations table).`);
    const version = (db.prepare('SELECT max(id) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
    if (version > LATEST_SCHEMA)
      throw new StoreCopyError(
        'invalid',
        `${origin} was made by a newer Covercheck (schema ${version}; this one knows up to ${LATEST_SCHEMA}): use that version.`,
      );
    return { file, bytes: fs.statSync(file).size, schema_version: version, integrity: 'ok' };
  } catch (err) {
    if (err instanceof StoreCopyError) throw err;
    throw new StoreCopyError('invalid', `${origin} is not a readable SQLite database: ${(err as Error).message}`);
  } finally {
    db?.close();
  }
}

/**
 * Opens the database for this process alone, or refuses when another connection has it open. A
 * connection in exclusive locking mode cannot start a write transaction on a WAL database while any
 * other connection, even an idle one, holds its shared-memory index; once it has, it keeps the lock
 * until closed, so no connector can open the file meanwhile.
 */
export function openExclusive(file: string): Database.Database {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE; COMMIT');
    return db;
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY'))
      throw new StoreCopyError('in_use', `${file} is in use (a running connector has it open): stop the connector first.`);
    throw err;
  }
}

/** Refuses when another connection has the database open; with `checkpoint`, folds the WAL into the file, so that a file moved aside afterwards is whole. */
export function assertNotInUse(file: string, opts: { checkpoint?: boolean } = {}): void {
  const db = openExclusive(file);
  try {
    if (opts.checkpoint) db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}
