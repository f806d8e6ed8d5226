/**
 * Small helpers shared by the operator CLIs: a store from --db (a SQLite file), else the
 * configured one (COVERCHECK_DATABASE_URL, PostgreSQL, else COVERCHECK_DB); and clean failure.
 */
import { loadConfig } from '../config.js';
import { openStore } from '../store/index.js';
import type { Store } from '../store/types.js';

export class UsageError extends Error {}

/** --db names a SQLite file; without it the environment is read and checked by config.ts, as the server does. */
function storeOptions(flag: string | undefined): { databasePath: string; databaseUrl?: string | undefined } {
  if (flag !== undefined) return { databasePath: flag };
  const config = loadConfig();
  return { databasePath: config.databasePath, databaseUrl: config.databaseUrl };
}

export async function withStore<T>(flag: string | undefined, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openStore({ ...storeOptions(flag), poolSize: 2 });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/** Whether the arguments ask for usage: --help or -h anywhere, or `help` as the command. */
export function wantsHelp(args: readonly string[] = process.argv.slice(2)): boolean {
  return args[0] === 'help' || args.some((a) => a === '--help' || a === '-h');
}

/** Runs a CLI main: --help prints the usage and exits 0; usage errors exit 2 with the message, anything else exits 1. */
export function runCli(main: () => Promise<void>, usage: string): void {
  if (wantsHelp()) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  main().catch((err: unknown) => {
    if (err instanceof UsageError) {
      process.stderr.write(`${err.message}\n\n${usage}\n`);
      process.exit(2);
    }
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
}
