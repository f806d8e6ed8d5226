/**
 * The closed lists a verification result's flags and check outcomes take. They live apart from the zod
 * schemas (verification.ts) because the language packs name every flag and outcome, and the packs sit
 * below verification.ts (which reads the country packs): one list, no import circle.
 */
/** Warning flags. Each is documented in the README's "Flags" table. */
export const FLAGS = [
  'expired',
  'not_yet_active',
  'cancelled',
  'suspended',
  'sanctioned',
  'insurer_not_authorised',
  'provider_mismatch',
  'provider_not_found',
  'type_mismatch',
  'registry_unavailable',
  'no_registry_coverage',
  'demo_data',
  'document_mismatch',
  /** A pk_test_ key: only demo data was consulted, never an upstream registry (docs/data-sources.md). */
  'sandbox',
  /** The provider named is a broker or other intermediary on the register, not an insurer: never accepted as the insurer. */
  'provider_is_intermediary',
  /** No real sanctions list is loaded, so no sanctions check ran (live keys; docs/data-sources.md). */
  'sanctions_not_checked',
] as const;
export type TFlag = (typeof FLAGS)[number];

/**
 * Outcomes of one check in checks[]. `unavailable`: the source exists and could not answer now.
 * `not_available`: no real source is configured for this country and type (the detail says how to
 * configure one). `not_checked`: the check could not run (no sanctions list loaded). `unknown`: the
 * source ran and cannot say (a name absent from a partial register extract is not "not authorised").
 */
export const CHECK_OUTCOMES = ['pass', 'fail', 'warn', 'unavailable', 'skipped', 'not_available', 'not_checked', 'unknown'] as const;
export type TCheckOutcome = (typeof CHECK_OUTCOMES)[number];
