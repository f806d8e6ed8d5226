/** When to retry a failed webhook delivery. */

/**
 * Seconds to wait before each retry: 10 s, 30 s, 2 min, 10 min, 30 min, 2 h, 6 h, 12 h. Eight retries
 * after the first attempt, 74,560 s (about 20.7 hours) in all before jitter, so a receiver that is
 * down for most of a day still gets the event, and early retries cover brief blips.
 */
export const RETRY_DELAYS_S = [10, 30, 120, 600, 1800, 7200, 21600, 43200] as const;

/** The first attempt plus one per retry delay. */
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

/** Spread of the jitter either way; spreads out retries of deliveries that failed together. */
const JITTER = 0.2;

export interface BackoffOptions {
  /** Multiplies the base delays (default 1); tests pass 0.001 to run the schedule in milliseconds. */
  scale?: number;
  /** Uniform in [0, 1); Math.random by default. */
  random?: () => number;
}

/**
 * Milliseconds to wait before the next attempt after `attemptsMade` failed attempts (1-based: 1
 * after the first attempt failed), with the base delay multiplied by a uniform factor in
 * [0.8, 1.2]. Null once MAX_ATTEMPTS have been made: give up and mark the delivery failed.
 */
export function nextRetryDelayMs(attemptsMade: number, opts: BackoffOptions = {}): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1)
    throw new RangeError(`attemptsMade must be an integer >= 1, got ${attemptsMade}`);
  const baseS = RETRY_DELAYS_S[attemptsMade - 1];
  if (baseS === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * (opts.random ?? Math.random)();
  return Math.round(baseS * 1000 * (opts.scale ?? 1) * factor);
}
