/**
 * npm run backup -- FILE [--db PATH] [--force]
 * Copies the SQLite store into FILE with SQLite's online backup API while the connector runs: one
 * consistent snapshot, WAL included. Prints {file, bytes, schema_version, integrity}.
 */
import { backupSqlite } from '../store/sqlite-backup.js';
import { runCli, UsageError } from './args.js';
import { parseFlags, refusalsAsExitCodes, sqliteFile } from './copy-args.js';

const USAGE = `Usage: npm run backup -- FILE [--db PATH] [--force]
Copies the SQLite store into FILE while the connector runs (SQLite's online backup; what is in the WAL included),
checks the copy (PRAGMA integrity_check) and prints {file, bytes, schema_version, integrity}.
Options: --db PATH   the database (default $COVERCHECK_DB or data/covercheck.db)
         --force     replace FILE if it exists
A PostgreSQL store (COVERCHECK_DATABASE_URL) is backed up with pg_dump: see docs/backups.md.`;

async function main(): Promise<void> {
  const { positionals, values } = parseFlags({ db: { type: 'string' }, force: { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError(positionals.length ? 'Give one FILE' : 'FILE is required');
  const source = sqliteFile(values.db, 'back it up with pg_dump (docs/backups.md).');
  const report = await refusalsAsExitCodes(() => backupSqlite(source, positionals[0]!, { force: values.force ?? false }));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

runCli(main, USAGE);
