/**
 * npm run migrate:pg -- --from SQLITE_FILE --to postgres://... [--force]
 * Moves a SQLite store into PostgreSQL (store/sqlite-to-postgres.ts): keys keep working, balances
 * and the ledger carry on, accepted work resumes. Prints {from, to, schema, copied, skipped}.
 */
import { describeStore } from '../store/index.js';
import { copySqliteToPostgres } from '../store/sqlite-to-postgres.js';
import { runCli, UsageError } from './args.js';
import { parseFlags } from './copy-args.js';

const USAGE = `Usage: npm run migrate:pg -- --from SQLITE_FILE --to postgres://USER:PASSWORD@HOST/DATABASE [--force]
Copies every row of the SQLite store into the PostgreSQL database (its tables made first if it is empty), in one
transaction: keys (by their hashes: nothing is re-issued), credits and the ledger, jobs with documents and results,
batches, webhook deliveries, Sheets write-backs, schedules and bindings, portal requests, idempotency records,
reference data and datasets. Stop the connector first: a SQLite file in use is refused.
Options: --force   replace what the PostgreSQL database already holds (refused otherwise)`;

async function main(): Promise<void> {
  const { positionals, values } = parseFlags({ from: { type: 'string' }, to: { type: 'string' }, force: { type: 'boolean' } });
  if (positionals.length) throw new UsageError(`Unexpected argument "${positionals[0]}"`);
  if (!values.from) throw new UsageError('--from SQLITE_FILE is required');
  if (!values.to) throw new UsageError('--to postgres://... is required');
  if (!/^postgres(ql)?:\/\//.test(values.to)) throw new UsageError('--to must be a postgres:// URL');
  const report = await copySqliteToPostgres(values.from, values.to, { force: values.force ?? false });
  const to = describeStore({ databasePath: '', databaseUrl: values.to });
  process.stdout.write(`${JSON.stringify({ from: values.from, to, ...report })}\n`);
}

runCli(main, USAGE);
