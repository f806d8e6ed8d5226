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
  /** A pk_test_ key: only demo data was consulted, never an upstream registry (docs/sandbox.md). */
  'sandbox',
] as const;
export type TFlag = (typeof FLAGS)[number];

/** Outcomes of one check in checks[]. */
export const CHECK_OUTCOMES = ['pass', 'fail', 'warn', 'unavailable', 'skipped'] as const;
export type TCheckOutcome = (typeof CHECK_OUTCOMES)[number];
