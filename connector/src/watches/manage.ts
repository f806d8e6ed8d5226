/**
 * A key's watches, as plain functions: list, read, pause, resume, delete. Another key's watch is
 * answered as an unknown id (not_found), and left as it was.
 */
import { WATCH_CHANGES_SHOWN, type TWatch } from '../../../shared/watches.js';
import { notFoundForKey } from '../errors.js';
import type { Store } from '../store/types.js';
import { watchView } from './views.js';

type WatchReads = Pick<Store, 'watches' | 'keys'>;

export async function listWatches(keyId: string, store: WatchReads): Promise<TWatch[]> {
  const read = await Promise.all((await store.watches.list(keyId)).map((w) => readWatch(w.id, store)));
  return read.flatMap((r) => (r && r.keyId === keyId ? [r.view] : []));
}

export async function getWatch(keyId: string, id: string, store: WatchReads): Promise<TWatch> {
  const r = await readWatch(id, store);
  if (!r || r.keyId !== keyId) throw notFoundForKey('watch', id);
  return r.view;
}

async function readWatch(id: string, store: WatchReads): Promise<{ view: TWatch; keyId: string } | null> {
  const snap = await store.watches.snapshot(id, WATCH_CHANGES_SHOWN);
  return snap ? { view: await watchView(snap, store), keyId: snap.watch.key_id } : null;
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
