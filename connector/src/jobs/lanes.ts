/**
 * Whose document is read next. Jobs that carry a document (extractions, verifications sent with
 * one) run in their own lane of workers, so a verification never waits behind a PDF; within that
 * lane keys take turns: a key may have only so many documents in the readers at once (sandbox keys
 * fewer), and among the keys with work waiting, the one served longest ago goes first, its oldest
 * document first. One key's fifty uploads then delay another key's one by at most the documents
 * already being read, not by the fifty.
 *
 * Turns are remembered per process: with several instances each takes turns on its own, while the
 * per-key bound on documents being read holds across them (it is counted in the store).
 */
import type { DocumentQueueEntry } from '../store/types.js';

export interface DocumentShares {
  /** Documents one live key may have in the readers at once. */
  perLiveKey: number;
  /** The same for a sandbox (pk_test_) key: a free key gets the smaller share. */
  perSandboxKey: number;
}

/** Keys remembered: older turns are forgotten (a forgotten key counts as never served, so it goes first: fair enough). */
const REMEMBERED = 10_000;

export class DocumentTurns {
  private served = new Map<string, number>();

  constructor(private readonly shares: DocumentShares) {}

  /** The keys to try, in order: those with a document that can be leased now and room in their share. */
  order(queue: DocumentQueueEntry[]): string[] {
    return queue
      .filter((e) => e.leasable > 0 && e.active < (e.mode === 'test' ? this.shares.perSandboxKey : this.shares.perLiveKey))
      .sort(
        (a, b) => (this.served.get(a.key_id) ?? -1) - (this.served.get(b.key_id) ?? -1) || (a.oldest ?? '').localeCompare(b.oldest ?? ''),
      )
      .map((e) => e.key_id);
  }

  /** `keyId` got a turn now. */
  took(keyId: string, at: number): void {
    this.served.delete(keyId);
    this.served.set(keyId, at);
    // A Map iterates in insertion order: the first entries are the longest unserved.
    if (this.served.size > REMEMBERED) this.served.delete(this.served.keys().next().value!);
  }
}
