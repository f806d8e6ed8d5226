/**
 * LockService (reference/lock/lock-service, reference/lock/lock), as the add-on meets it:
 * - getDocumentLock: "prevents any user of the current document from concurrently running a
 *   section of code"; null "if this method is called outside of the context of a containing
 *   document". getScriptLock: every user of the script; getUserLock: the current user.
 * - A Lock is not held until tryLock or waitLock; tryLock answers false when the timeout passes,
 *   waitLock throws. The exception's text is the one Apps Script logs ("Lock timeout: another
 *   process was holding the lock for too long."); the reference says only that it throws.
 * - The custom functions guide's service table lists Lock as working in custom functions (so the
 *   AuthMode rule lets CUSTOM_FUNCTION call it).
 *
 * Concurrency is modelled by nesting (World.interleave): a second execution runs while the first
 * is suspended at one of its service calls. A lock held by a suspended execution cannot be freed
 * before the waiter's timeout, so a waiter spends its whole timeout on the simulated clock and
 * fails, as it would behind a holder that outlasts it. That the waiter gets the lock once it is
 * released is the sequential case, which every other test runs.
 *
 * Reference gap, made strict: the pages do not say what happens to a lock an execution never
 * releases. Here it is released when the execution ends and counted in `leaked`, so a test can
 * require that every section releases what it took.
 */
import { GasError, type Clock, type Execution, type Guard } from './runtime.js';

export const LOCK_TIMEOUT_MESSAGE = 'Lock timeout: another process was holding the lock for too long.';

export interface LockTable {
  /** Lock scope -> the execution holding it. */
  held: Map<string, Execution>;
  /** Locks executions ended without releasing (scope names, in order). */
  leaked: string[];
  /** Failed acquisitions (scope names, in order), for tests. */
  refused: string[];
}

export function newLockTable(): LockTable {
  return { held: new Map(), leaked: [], refused: [] };
}

/** Frees every lock `exec` still holds when it ends, counting each as leaked. */
export function releaseAll(table: LockTable, exec: Execution): void {
  for (const [scope, holder] of table.held) {
    if (holder !== exec) continue;
    table.held.delete(scope);
    table.leaked.push(scope);
  }
}

function makeLock(scope: string, table: LockTable, guard: Guard, clock: Clock) {
  const acquire = (method: string, timeoutMs: number): boolean => {
    const e = guard.call(method)!;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0) throw new GasError(`Invalid argument: timeoutInMillis`);
    const holder = table.held.get(scope);
    if (!holder || holder === e) {
      table.held.set(scope, e);
      return true;
    }
    // The holder is suspended (nested model): the waiter waits out its timeout.
    clock.advance(timeoutMs);
    table.refused.push(scope);
    guard.checkTime();
    return false;
  };
  return {
    tryLock: (timeoutMs: number) => acquire('Lock.tryLock', timeoutMs),
    waitLock: (timeoutMs: number) => {
      if (!acquire('Lock.waitLock', timeoutMs)) throw new GasError(LOCK_TIMEOUT_MESSAGE);
    },
    hasLock: () => {
      const e = guard.call('Lock.hasLock');
      return table.held.get(scope) === e;
    },
    releaseLock: () => {
      const e = guard.call('Lock.releaseLock');
      if (table.held.get(scope) === e) table.held.delete(scope);
    },
  };
}

export function makeLockService(host: {
  table: LockTable;
  guard: Guard;
  clock: Clock;
  documentId: () => string | null;
  user: () => string;
}) {
  const { table, guard, clock } = host;
  return {
    getDocumentLock: () => {
      guard.call('LockService.getDocumentLock');
      const doc = host.documentId();
      return doc ? makeLock(`document:${doc}`, table, guard, clock) : null;
    },
    getScriptLock: () => (guard.call('LockService.getScriptLock'), makeLock('script', table, guard, clock)),
    getUserLock: () => (guard.call('LockService.getUserLock'), makeLock(`user:${host.user()}`, table, guard, clock)),
  };
}
