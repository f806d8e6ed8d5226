/**
 * Reading a job or a batch for the key that created it, as the contract's body: optionally held
 * until the work finishes (GET ?wait=N), with its webhook and sheet write-back state.
 */
import type { TBatch } from '../../../shared/batch.js';
import type { TJob } from '../../../shared/job.js';
import { AppError, notFoundForKey } from '../errors.js';
import { writebackView } from '../sheets/views.js';
import type { Store } from '../store/types.js';
import { waitFor, type Completions } from './completions.js';
import { batchView, jobView } from './views.js';

export interface ReadDeps {
  store: Pick<Store, 'jobs' | 'batches' | 'outbox' | 'writebacks' | 'retention'>;
  /** Wakes a waiter when work finishes in this process. */
  completions: Completions;
  /** Days a finished job or batch is kept (jobs/retention.ts), named when one has expired. */
  resultRetentionDays?: number;
}

/**
 * Why the key can't read `id`: it expired (told to its own key only), or not_found, the same answer
 * for an unknown id and another key's.
 */
async function unreadable(what: 'job' | 'batch', keyId: string, id: string, deps: ReadDeps): Promise<AppError> {
  const gone = await deps.store.retention.expired(id);
  if (!gone || gone.key_id !== keyId || gone.kind !== what) return notFoundForKey(what, id);
  const after = deps.resultRetentionDays ? `after ${deps.resultRetentionDays} days` : 'after the retention period';
  return new AppError(
    what === 'job' ? 'job_expired' : 'batch_expired',
    `The ${what} ${id} finished on ${gone.finished_at.slice(0, 10)} and was removed ${after}, with its result; it is no longer kept.`,
  );
}

/** The view with `sheet_writeback` when the work had a sheet target (null until a write-back exists). */
async function withWriteback<T extends object>(view: T, subjectId: string, hasTarget: boolean, deps: ReadDeps): Promise<T> {
  if (!hasTarget) return view;
  const wb = await deps.store.writebacks.forSubject(subjectId);
  return { ...view, sheet_writeback: wb ? writebackView(wb) : null };
}

/** `waitS`: seconds to hold a pending job for it to finish (0: answer at once). */
export async function readJob(keyId: string, id: string, waitS: number, deps: ReadDeps): Promise<TJob> {
  let job = await deps.store.jobs.get(id);
  if (!job || job.key_id !== keyId) throw await unreadable('job', keyId, id, deps);
  if (waitS > 0 && job.status === 'pending') {
    await waitFor(deps.completions, id, waitS, async () => (await deps.store.jobs.get(id))?.status !== 'pending');
    // Erased by its key while this answer was held: answered as after the erasure.
    const finished = await deps.store.jobs.get(id);
    if (!finished) throw await unreadable('job', keyId, id, deps);
    job = finished;
  }
  const view = jobView(job, job.webhook_url ? await deps.store.outbox.forSubject(job.id) : undefined);
  return withWriteback(view, job.id, job.sheet_target !== null, deps);
}

/** `waitS`: seconds to hold an unfinished batch for it to complete (0: answer at once). */
export async function readBatch(keyId: string, id: string, waitS: number, deps: ReadDeps): Promise<TBatch> {
  let batch = await deps.store.batches.get(id);
  if (!batch || batch.key_id !== keyId) throw await unreadable('batch', keyId, id, deps);
  if (waitS > 0 && batch.status !== 'complete') {
    await waitFor(deps.completions, id, waitS, async () => (await deps.store.batches.get(id))?.status === 'complete');
    batch = (await deps.store.batches.get(id))!;
  }
  const view = batchView(batch, await deps.store.batches.items(id), batch.webhook_url ? await deps.store.outbox.forSubject(id) : undefined);
  return withWriteback(view, id, batch.sheet_target !== null, deps);
}
