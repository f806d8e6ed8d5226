/** A watch's cadence: when its next run is due, and what a month of runs may cost. */
import { RUNS_PER_MONTH, type TWatchCadence } from '../../../shared/watches.js';
import { isCharged } from '../credits/charge.js';
import type { ApiKeyRecord } from '../store/types.js';

export const CADENCE_MS: Record<TWatchCadence, number> = { daily: 86_400_000, weekly: 7 * 86_400_000 };

/** The next run, a period after this one started: a connector that was down runs a missed period once, not once per period. */
export function nextRunAfter(cadence: TWatchCadence, startedAt: Date): string {
  return new Date(startedAt.getTime() + CADENCE_MS[cadence]).toISOString();
}

/**
 * An upper bound of a month of the cadence's runs: every policy charged 1 credit (verified or unverified)
 * on each run of a 31-day month. Inconclusive results cost nothing; a sandbox key is never charged.
 */
export function projectedMonthlyCredits(key: Pick<ApiKeyRecord, 'mode'> | null, policies: number, cadence: TWatchCadence): number {
  return key && isCharged(key) ? policies * RUNS_PER_MONTH[cadence] : 0;
}
