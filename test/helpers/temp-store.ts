/**
 * A SQLite store on a file in a temporary directory of its own, for unit tests that need a real store:
 * open one per test (or several, two on one file included), and let `afterEach(closeTempStores)`
 * close them all and remove their directories.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStore, type SqliteStoreOptions } from '../../connector/src/store/sqlite/index.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from './server.js';

export interface TempStore {
  store: Store;
  /** The database file, for a second store or a raw connection on it. */
  file: string;
}

const opened: TempStore[] = [];

/** `label` names the directory (covercheck-<label>-...); `file` opens an existing temporary file instead of a new one. */
export function openTempStore(label = 'store', options: SqliteStoreOptions & { file?: string } = {}): TempStore {
  const { file = tempDbPath(label), ...storeOptions } = options;
  const temp = { store: openSqliteStore(file, storeOptions), file };
  opened.push(temp);
  return temp;
}

/** Closes every store opened since the last call, then removes their directories. */
export async function closeTempStores(): Promise<void> {
  const all = opened.splice(0);
  for (const { store } of all) await store.close();
  for (const { file } of all) fs.rmSync(path.dirname(file), { recursive: true, force: true });
}
