/**
 * PostgreSQL implementation of the storage interface (`pg`), for several connector instances on
 * one database, composed from one file per section. Same guarantees as the SQLite store, obtained
 * differently: conditional UPDATEs under row locks instead of one writer at a time, and FOR UPDATE
 * SKIP LOCKED for leasing work.
 */
import type { Store } from '../types.js';
import { creditStore } from './credits.js';
import { datasetStore } from './datasets.js';
import { createPool, migrate, one } from './db.js';
import { historyStore } from './history.js';
import { idempotencyStore } from './idempotency.js';
import { keyStore } from './keys.js';
import { PG_MIGRATIONS } from './migrations.js';
import { outboxStore } from './outbox.js';
import { portalStore } from './portal.js';
import { referenceDataStores } from './reference-data.js';
import { retentionStore } from './retention.js';
import { sheetStores } from './sheets.js';
import { watchStore } from './watches.js';
import { workStores } from './work.js';

export async function openPostgresStore(url: string, opts: { poolSize: number }): Promise<Store> {
  const db = createPool(url, opts.poolSize);
  try {
    await migrate(db, PG_MIGRATIONS);
  } catch (err) {
    await db.end();
    throw err;
  }

  return {
    kind: 'postgres',
    keys: keyStore(db),
    credits: creditStore(db),
    idempotency: idempotencyStore(db),
    ...referenceDataStores(db),
    ...workStores(db),
    outbox: outboxStore(db),
    datasets: datasetStore(db),
    ...sheetStores(db),
    portal: portalStore(db),
    retention: retentionStore(db),
    history: historyStore(db),
    watches: watchStore(db),
    async ping() {
      try {
        return (await one<{ ok: number }>(db, 'SELECT 1 AS ok'))?.ok === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (!db.ended) await db.end();
    },
  };
}
