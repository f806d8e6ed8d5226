/** Country policy registries: the store's own table and upstream services, behind one interface. */
import type { TCountry, TInsuranceType } from '../../../../shared/policy.js';
import type { RegistryPolicyRecord } from '../../store/types.js';

export interface RegistryQuery {
  country: TCountry;
  insurance_type: TInsuranceType;
  /** Normalised policy number. */
  policy_number: string;
}

export type RegistryAnswer =
  /** The registry holds the number; records may be of another insurance type than asked. */
  | { kind: 'found'; records: RegistryPolicyRecord[]; source: string; demo: boolean }
  /** The registry covers this country and type and does not know the number. */
  | { kind: 'not_found'; source: string; demo: boolean }
  /** The registry does not cover this country and type: it can neither confirm nor deny. */
  | { kind: 'no_coverage'; source: string }
  /** Timeout, outage or a broken answer: never an error for the caller, an inconclusive result. */
  | { kind: 'unavailable'; source: string; reason: string };

export interface RegistryAdapter {
  readonly name: string;
  /** `signal`: the caller's cancellation, if it can cancel. */
  lookup(query: RegistryQuery, signal?: AbortSignal): Promise<RegistryAnswer>;
}
