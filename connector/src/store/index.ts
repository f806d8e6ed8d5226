/**
 * Opens the configured store: PostgreSQL when a database URL is given (several connector
 * instances share it), otherwise the embedded SQLite file (the default).
 */
import type { Store } from './types.js';
import { openSqliteStore } from './sqlite/index.js';

export type { Store } from './types.js';
export * from './types.js';

export interface StoreOptions {
  databasePath: string;
  /** postgres://... ; when set, `databasePath` is ignored. */
  databaseUrl?: string | undefined;
  /** PostgreSQL connections in this process's pool. */
  poolSize?: number;
  /** SQLite: sync the WAL in the background every this many ms (0 or omitted: never; see sqlite/wal-presync.ts). */
  walSyncMs?: number;
  /** SQLite: where a failing background sync is reported. */
  onWalSyncError?: (err: Error) => void;
}

export async function openStore(opts: StoreOptions): Promise<Store> {
  if (opts.databaseUrl) {
    // Loaded only when used: an embedded deployment never loads the pg driver.
    const { openPostgresStore } = await import('./postgres/index.js');
    return openPostgresStore(opts.databaseUrl, { poolSize: opts.poolSize ?? 10 });
  }
  return openSqliteStore(opts.databasePath, {
    walPresync: { intervalMs: opts.walSyncMs ?? 0, onError: opts.onWalSyncError ?? (() => {}) },
  });
}

/** Where the store lives, for logs: the SQLite path, or the PostgreSQL URL without its password. */
export function describeStore(opts: StoreOptions): string {
  if (!opts.databaseUrl) return opts.databasePath;
  const u = new URL(opts.databaseUrl);
  if (u.password) u.password = '***';
  return u.toString();
}
