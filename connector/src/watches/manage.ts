/**
 * A key's watches, as plain functions: list, read, pause, resume, delete. Another key's watch is
 * answered as an unknown id (not_found), and left as it was.
 */
import type { TWatch } from '../../../shared/watches.js';
import { notFoundForKey } from '../errors.js';
import type { Store } from '../store/types.js';
import { watchView } from './views.js';

type WatchReads = Pick<Store, 'watches' | 'keys'>;

export async function listWatches(keyId: string, store: WatchReads): Promise<TWatch[]> {
  return Promise.all((await store.watches.list(keyId)).map((w) => watchView(w, store)));
}

export async function getWatch(keyId: string, id: string, store: WatchReads): Promise<TWatch> {
  const w = await store.watches.get(id);
  if (!w || w.key_id !== keyId) throw notFoundForKey('watch', id);
  return watchView(w, store);
}

/** No run starts while paused; a run under way stops after the chunk in hand (run.ts), reporting what it found. */
export async function pauseWatch(keyId: string, id: string, deps: { store: WatchReads; now: () => Date }): Promise<TWatch> {
  if (!(await deps.store.watches.pause(id, keyId, deps.now().toISOString()))) throw notFoundForKey('watch', id);
  return getWatch(keyId, id, deps.store);
}

/** A run the cadence missed while paused is due at once (once, not once per missed period). */
export async function resumeWatch(keyId: string, id: string, deps: { store: WatchReads; notify: () => void }): Promise<TWatch> {
  if (!(await deps.store.watches.resume(id, keyId))) throw notFoundForKey('watch', id);
  deps.notify();
  return getWatch(keyId, id, deps.store);
}

export async function deleteWatch(keyId: string, id: string, store: Pick<Store, 'watches'>): Promise<void> {
  if (!(await store.watches.delete(id, keyId))) throw notFoundForKey('watch', id);
}
