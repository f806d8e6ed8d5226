/** A candidate value of a ranked field, and what every candidate generator is given. */
import type { TCountry, TInsuranceType } from '../../../../../shared/packs/index.js';
import type { Line } from '../../reading/lines.js';

export const RANKED_FIELDS = ['policy_number', 'insurer', 'start_date', 'end_date', 'vehicle_registration'] as const;
export type RankedField = (typeof RANKED_FIELDS)[number];

export interface FieldCandidate {
  field: RankedField;
  /** The value as it would be returned. */
  value: string;
  /** Grouping key: candidates with one key are one value. */
  key: string;
  line: number;
  features: Record<string, number>;
  /** Insurer candidates: the register's country when the name matched it. */
  registerCountry?: TCountry;
}

/** Finds the register's canonical name for insurer text in one country; null when nothing is close. */
export type NameMatcher = (country: TCountry, text: string) => { name: string; score: number } | null;

export interface CandidateContext {
  lines: Line[];
  country?: TCountry;
  type?: TInsuranceType;
  matcher: NameMatcher;
  countries: readonly TCountry[];
}
