/**
 * The field keys of a review list: the top-level fields, then `coverage.<detail>`. Alone in this file
 * so that the language packs can name them without importing the review (which imports the job
 * contract, which imports the packs).
 */
export const REVIEW_KEYS = [
  'policy_number',
  'insurer',
  'insurance_type',
  'start_date',
  'end_date',
  'vehicle_registration',
  'coverage.motor_cover',
  'coverage.trip_type',
  'coverage.region',
  'coverage.health_plan',
] as const;
export type TReviewKey = (typeof REVIEW_KEYS)[number];
