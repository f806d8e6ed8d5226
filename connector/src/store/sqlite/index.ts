/** SQLite implementation of the storage interface (better-sqlite3, WAL), composed from one file per section. */
import path from 'node:path';
import type { Store } from '../types.js';
import { creditOps } from './credit-ops.js';
import { creditStore } from './credits.js';
import { datasetStore } from './datasets.js';
import { migrate, openDatabase } from './db.js';
import { historyStore } from './history.js';
import { idempotencyStore } from './idempotency.js';
import { keyStore } from './keys.js';
import { MIGRATIONS } from './migrations.js';
import { outboxStore } from './outbox.js';
import { portalStore } from './portal.js';
import { referenceDataStores } from './reference-data.js';
import { retentionStore } from './retention.js';
import { sheetStores } from './sheets.js';
import { startWalPresync, type WalPresyncOptions } from './wal-presync.js';
import { watchStore } from './watches.js';
import { workStores } from './work.js';

export interface SqliteStoreOptions {
  /** Background syncs of the WAL (wal-presync.ts); omitted or an interval of 0: none (CLIs, tests of the store). */
  walPresync?: WalPresyncOptions;
}

export function openSqliteStore(databasePath: string, opts: SqliteStoreOptions = {}): Store {
  const db = openDatabase(databasePath);
  migrate(db, MIGRATIONS);
  const presync =
    opts.walPresync && opts.walPresync.intervalMs > 0 && databasePath !== ':memory:'
      ? startWalPresync(`${path.resolve(databasePath)}-wal`, opts.walPresync)
      : null;
  const credits = creditOps(db);

  return {
    kind: 'sqlite',
    keys: keyStore(db),
    credits: creditStore(db, credits),
    idempotency: idempotencyStore(db),
    ...referenceDataStores(db),
    ...workStores(db, credits),
    outbox: outboxStore(db),
    datasets: datasetStore(db),
    ...sheetStores(db),
    portal: portalStore(db),
    retention: retentionStore(db),
    history: historyStore(db),
    watches: watchStore(db, credits),
    async ping() {
      return (db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
    },
    async close() {
      await presync?.stop();
      if (db.open) db.close();
    },
  };
}
