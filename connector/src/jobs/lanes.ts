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
import { KeyTurns } from '../workers/index.js';

export interface DocumentShares {
  /** Documents one live key may have in the readers at once. */
  perLiveKey: number;
  /** The same for a sandbox (pk_test_) key: a free key gets the smaller share. */
  perSandboxKey: number;
}

/** Turns (workers/key-turns.ts) among the keys with a document that can be leased now and room in their share. */
export class DocumentTurns {
  private readonly turns = new KeyTurns();

  constructor(private readonly shares: DocumentShares) {}

  /** The keys to try, in order. */
  order(queue: DocumentQueueEntry[]): string[] {
    return this.turns.order(
      queue.filter((e) => e.leasable > 0 && e.active < (e.mode === 'test' ? this.shares.perSandboxKey : this.shares.perLiveKey)),
    );
  }

  /** `keyId` got a turn now. */
  took(keyId: string): void {
    this.turns.took(keyId);
  }
}
