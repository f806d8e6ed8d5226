/**
 * Room for one more document waiting to be read. Three bounds, so that neither one key nor a crowd
 * of free keys can fill the queue for everyone:
 * - per key: at most `perKey` documents pending (refused with rate_limit_exceeded: the caller's own doing);
 * - sandbox keys together: at most `sandboxSharePct` of the global bound (sandbox keys are free to
 *   make, so ten of them must not lock paying keys out);
 * - everyone: at most `max` (refused with service_unavailable: the server is busy).
 * Counts and inserts are not one transaction: concurrent uploads may pass a bound by a few.
 */
import { AppError } from '../errors.js';
import type { ApiKeyRecord, Store } from '../store/types.js';

/** Seconds a refused upload is told to wait: a document takes a few seconds to read. */
export const DOCUMENT_RETRY_AFTER_S = 10;

export interface DocumentRoomLimits {
  perKey: number;
  max: number;
  sandboxSharePct: number;
}

export async function requireDocumentRoom(
  key: ApiKeyRecord,
  store: Pick<Store, 'jobs'>,
  limits: DocumentRoomLimits,
  now: Date,
): Promise<void> {
  const queue = await store.jobs.documentQueue(now.toISOString());
  const mine = queue.find((e) => e.key_id === key.id)?.pending ?? 0;
  if (mine >= limits.perKey) {
    throw new AppError(
      'rate_limit_exceeded',
      `This key already has ${mine} document${mine === 1 ? '' : 's'} waiting to be read, the limit per key; retry when one has finished.`,
      {
        retryAfter: DOCUMENT_RETRY_AFTER_S,
      },
    );
  }
  const total = queue.reduce((n, e) => n + e.pending, 0);
  const sandbox = queue.reduce((n, e) => n + (e.mode === 'test' ? e.pending : 0), 0);
  // At least one place when sandbox keys have any share: a small global bound must not shut them out.
  const sandboxMax = limits.sandboxSharePct > 0 ? Math.max(1, Math.floor((limits.max * limits.sandboxSharePct) / 100)) : 0;
  if (key.mode === 'test' && sandbox >= sandboxMax) {
    throw new AppError(
      'service_unavailable',
      `Sandbox keys have ${sandbox} documents waiting to be read, all the places kept for them; retry shortly.`,
      { retryAfter: DOCUMENT_RETRY_AFTER_S },
    );
  }
  if (total >= limits.max) {
    throw new AppError('service_unavailable', `Too many documents are waiting to be read (${limits.max}); retry shortly.`, {
      retryAfter: DOCUMENT_RETRY_AFTER_S,
    });
  }
}
