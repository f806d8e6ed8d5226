/** What the store-copy CLIs (backup, restore, migrate:pg) share: their flags, the SQLite file they work on, refusals as exit codes. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { loadConfig } from '../config.js';
import { StoreCopyError } from '../store/copy-error.js';
import { UsageError } from './args.js';

/** parseArgs, with an unknown or malformed flag reported as a usage error (exit 2). */
export function parseFlags<T extends ParseArgsConfig['options']>(options: T) {
  try {
    return parseArgs({ allowPositionals: true, options: options! as NonNullable<T> });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The SQLite file: --db, else the configured one; a PostgreSQL store has its own tools. */
export function sqliteFile(flag: string | undefined, postgresAdvice: string): string {
  if (flag !== undefined) return flag;
  const config = loadConfig();
  if (config.databaseUrl) throw new Error(`The store is PostgreSQL (COVERCHECK_DATABASE_URL): ${postgresAdvice}`);
  return config.databasePath;
}

/** A destination that exists without --force is a usage error (exit 2); every other refusal exits 1 with its message. */
export async function refusalsAsExitCodes<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreCopyError && err.refusal === 'exists') throw new UsageError(err.message);
    throw err;
  }
}
