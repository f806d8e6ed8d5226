/**
 * Room in the store for one more document (docs/document-limits.md, "Storage"): a key may hold so many
 * bytes of documents (a sandbox key fewer), and no document is stored when it would leave the store's
 * filesystem with less than its reserve free.
 *
 * A key past its quota gets 429 with a long retry delay: it is the key's own doing, and only retention
 * removing its older documents makes room again. A disk past its reserve gets 507 for everyone: no
 * retry soon helps until an operator makes room. The count and the insert are not one transaction,
 * so concurrent uploads of one key may pass the quota by a few documents; the per-key share of bodies
 * in flight (http/body-budget.ts) bounds how many.
 */
import fs from 'node:fs';
import { AppError } from '../errors.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

/** What the free space of a filesystem is read as: fs.statfs's block counts. */
export type Statfs = (path: string) => Promise<{ bavail: number; bsize: number }>;

export interface DocumentStorage {
  /** Bytes of documents one key may hold: a live key, a sandbox (pk_test_) key. */
  quotaBytes: { live: number; sandbox: number };
  /** A folder on the store's filesystem; null: no disk guard (the store is on another machine). */
  diskGuardPath: string | null;
  /** Free bytes the filesystem keeps: a document that would leave less is refused. */
  diskReserveBytes: number;
  /** fs.promises.statfs unless given (tests pass their own). */
  statfs?: Statfs;
}

/** An hour: the retry delay of a key at its quota, which no quick retry clears. */
export const QUOTA_RETRY_AFTER_S = 3600;

const mb = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/** Throws the refusal when a document of `bytes` may not be stored for `key`. */
export async function requireDocumentStorage(
  key: Pick<ApiKeyRecord, 'id' | 'mode'>,
  bytes: number,
  store: Pick<Store, 'jobs'>,
  storage: DocumentStorage,
): Promise<void> {
  const quota = key.mode === 'live' ? storage.quotaBytes.live : storage.quotaBytes.sandbox;
  const held = await store.jobs.documentBytes(key.id);
  if (held + bytes > quota) {
    throw new AppError(
      'document_quota_exceeded',
      `This key holds ${mb(held)} of documents; its quota is ${mb(quota)}, and this document (${mb(bytes)}) does not fit.`,
      {
        retryAfter: QUOTA_RETRY_AFTER_S,
      },
    );
  }
  if (storage.diskGuardPath === null) return;
  let free: number;
  try {
    const s = await (storage.statfs ?? fs.promises.statfs)(storage.diskGuardPath);
    free = s.bavail * s.bsize;
  } catch (err) {
    // Closed when the free space can't be read: a guard that skips silently guards nothing.
    throw new AppError('insufficient_storage', 'The server cannot check its free storage; no new document is stored for now.', {
      internal: `statfs ${storage.diskGuardPath}: ${(err as Error).message}`,
      cause: err,
    });
  }
  if (free - bytes < storage.diskReserveBytes) {
    throw new AppError('insufficient_storage', 'The server is low on storage and stores no new document for now; try again later.', {
      internal: `${mb(free)} free on ${storage.diskGuardPath}, reserve ${mb(storage.diskReserveBytes)}`,
    });
  }
}
