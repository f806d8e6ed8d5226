/**
 * Recording a verification result in the key's history (docs/history.md). Every path that gives a key
 * a result records it: sync requests, async jobs, batch items and watch runs. Where a result is settled
 * in a store transaction already (a sync charge, a job's or a batch item's finish), its row
 * (verificationRow) rides in that transaction; `recordVerification` writes one on its own.
 */
import { verificationRow, type VerificationEntry } from '../store/verification-row.js';
import type { Store } from '../store/types.js';

export { verificationRow, type VerificationEntry };

/** Records one result in a transaction of its own. */
export async function recordVerification(store: Pick<Store, 'history'>, entry: VerificationEntry): Promise<void> {
  await store.history.record(verificationRow(entry));
}
