/**
 * The document lock around the add-on's read-modify-write sections. Several executions of one
 * spreadsheet run at once: two users' formulas, Sheets running many custom-function cells in
 * parallel, the hourly trigger beside a sidebar call. Properties and CacheService have no
 * compare-and-set, so without the lock two executions both see "not submitted yet" and both pay,
 * or the second write of a list, a cache pack or a run history silently drops the first's change.
 *
 * Sections stay short (milliseconds, one fetchAll at most): long work (a dataset import) runs
 * outside the lock under a lease taken inside it (datasets.ts). Waits differ by caller: a custom
 * function has 30 s and many siblings, so it waits briefly and answers a "try again" text; a
 * sidebar call waits longer and tells the user; the trigger waits longest and otherwise leaves its
 * work due for the next hour.
 */

export const LOCK_WAIT_MS = {
  /** A custom-function cell: short, so a busy spreadsheet answers quickly with a text that says what to do. */
  customFunction: 5_000,
  sidebar: 20_000,
  trigger: 60_000,
} as const;

/**
 * Runs `section` holding the document lock, or returns `busy()` when the lock isn't had within
 * `waitMs`. Without a document (a time-driven run with no active spreadsheet: getDocumentLock
 * answers null) there is no document state to guard, and the section runs unlocked.
 */
export function withDocumentLock<T>(waitMs: number, section: () => T, busy: () => T): T {
  const lock = LockService.getDocumentLock();
  if (!lock) return section();
  if (!lock.tryLock(waitMs)) return busy();
  try {
    return section();
  } finally {
    lock.releaseLock();
  }
}

/** The same with the current user's lock: state every spreadsheet of one user shares (user properties). */
export function withUserLock<T>(waitMs: number, section: () => T, busy: () => T): T {
  const lock = LockService.getUserLock();
  if (!lock.tryLock(waitMs)) return busy();
  try {
    return section();
  } finally {
    lock.releaseLock();
  }
}

/** The text a sidebar call throws when another execution holds the document lock too long. */
export const BUSY_SIDEBAR =
  'Another Covercheck action in this spreadsheet (another editor, or the hourly refresh) is still saving. Nothing was changed; try again in a moment.';
