/** Opens the configured store. SQLite is the embedded default; PostgreSQL plugs in here. */
import type { Store } from './types.js';
import { openSqliteStore } from './sqlite/index.js';

export type { Store } from './types.js';
export * from './types.js';

export async function openStore(opts: { databasePath: string }): Promise<Store> {
  return openSqliteStore(opts.databasePath);
}
