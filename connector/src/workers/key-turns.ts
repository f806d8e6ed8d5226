/**
 * Keys taking turns at a shared worker (documents to read, spreadsheets to write): among the keys
 * with work waiting, the one served longest ago by this process goes first (never served first),
 * then the one whose work has waited longest. Turns are remembered per process.
 */

/** Keys remembered: older turns are forgotten (a forgotten key counts as never served, so it goes first: fair enough). */
const REMEMBERED = 10_000;

export class KeyTurns {
  private served = new Map<string, number>();
  private count = 0;

  /** The keys of `waiting`, in turn order; `oldest` is when a key's first waiting unit came (ISO), null when unknown. */
  order(waiting: readonly { key_id: string; oldest: string | null }[]): string[] {
    return [...waiting]
      .sort(
        (a, b) => (this.served.get(a.key_id) ?? -1) - (this.served.get(b.key_id) ?? -1) || (a.oldest ?? '').localeCompare(b.oldest ?? ''),
      )
      .map((e) => e.key_id);
  }

  /** `keyId` got a turn now. */
  took(keyId: string): void {
    this.served.delete(keyId);
    this.served.set(keyId, ++this.count);
    // A Map iterates in insertion order: the first entries are the longest unserved.
    if (this.served.size > REMEMBERED) this.served.delete(this.served.keys().next().value!);
  }
}
