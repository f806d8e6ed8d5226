/**
 * A watch's limits as plain values, apart from the schemas (shared/watches.ts re-exports them): the add-on
 * checks a selection against them before it sends one, without bundling the watch schemas for three values.
 */

/** Policies one watch may hold. */
export const MAX_WATCH_POLICIES = 10_000;
export const WATCH_CADENCES = ['daily', 'weekly'] as const;
export type TWatchCadence = (typeof WATCH_CADENCES)[number];
export const MAX_EXPIRY_WINDOW_DAYS = 365;
