/**
 * Lets a GET with ?wait=N return as soon as its job or batch finishes in this process. Work
 * finished by another instance is seen by the waiter's own periodic re-read, so this is an
 * optimisation of latency, never the only way a waiter learns of completion.
 */
export class Completions {
  private readonly waiters = new Map<string, Set<() => void>>();

  done(id: string): void {
    const set = this.waiters.get(id);
    if (!set) return;
    this.waiters.delete(id);
    for (const wake of set) wake();
  }

  /** Resolves on done(id) or after `ms`, whichever is first. */
  wait(id: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const set = this.waiters.get(id) ?? new Set<() => void>();
      const finish = () => {
        clearTimeout(timer);
        set.delete(finish);
        if (set.size === 0 && this.waiters.get(id) === set) this.waiters.delete(id);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      set.add(finish);
      this.waiters.set(id, set);
    });
  }
}

/** How often a waiter re-reads the store (for work another instance finishes). */
export const WAIT_RECHECK_MS = 500;

/** Holds until `isDone()` or `seconds` pass, waking early on completion in this process. */
export async function waitFor(completions: Completions, id: string, seconds: number, isDone: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline && !(await isDone())) {
    await completions.wait(id, Math.min(WAIT_RECHECK_MS, deadline - Date.now()));
  }
}
