/**
 * npm run restore -- FILE [--db PATH] [--force]
 * Puts a backup in place of the SQLite store, with the connector stopped: checks the backup
 * (integrity, schema version), copies it beside the database and renames it into place; the
 * database it replaces is kept as <database>.replaced-<time>. Prints {file, to, replaced, ...}.
 */
import { restoreSqlite } from '../store/sqlite-backup.js';
import { runCli, UsageError } from './args.js';
import { parseFlags, refusalsAsExitCodes, sqliteFile } from './copy-args.js';

const USAGE = `Usage: npm run restore -- FILE [--db PATH] [--force]
Puts the backup FILE in place of the SQLite store. Stop the connector first: a database in use is never replaced.
The backup is checked first (PRAGMA integrity_check, a schema this version knows); an existing database is
replaced only with --force, and kept beside it as <database>.replaced-<time>.
Options: --db PATH   the database to restore into (default $COVERCHECK_DB or data/covercheck.db)
         --force     replace an existing database
A PostgreSQL store (COVERCHECK_DATABASE_URL) is restored with pg_restore: see docs/backups.md.`;

async function main(): Promise<void> {
  const { positionals, values } = parseFlags({ db: { type: 'string' }, force: { type: 'boolean' } });
  if (positionals.length !== 1) throw new UsageError(positionals.length ? 'Give one FILE' : 'FILE is required');
  const target = sqliteFile(values.db, 'restore it with pg_restore (docs/backups.md).');
  const report = await refusalsAsExitCodes(() => restoreSqlite(positionals[0]!, target, { force: values.force ?? false }));
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

runCli(main, USAGE);
