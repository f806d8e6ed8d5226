/**
 * Erasing one job at its key's request (DELETE /api/v1/jobs/{id}): at once, what retention would
 * remove later (jobs/retention.ts), its document's bytes off the key's quota.
 */
import type { TJobDeleted } from '../../../shared/job.js';
import { AppError, notFoundForKey } from '../errors.js';
import type { Store } from '../store/types.js';

export async function eraseJob(
  keyId: string,
  id: string,
  deps: { store: Pick<Store, 'retention'>; now: () => Date },
): Promise<TJobDeleted> {
  const erased = await deps.store.retention.eraseJob(id, keyId);
  // Another key's job answers as an unknown one: whether an id exists is never revealed.
  if (erased.outcome === 'not_found') throw notFoundForKey('job', id);
  if (erased.outcome === 'pending') {
    throw new AppError(
      'job_pending',
      `Job ${id} is still pending; delete it once it has finished (GET it with ?wait=25 to wait for that).`,
    );
  }
  return { job_id: id, deleted: true, document_bytes: erased.document_bytes, deleted_at: deps.now().toISOString() };
}
