/** Storage of the reference data verification reads: insurers, registry policies and coverage, sanctions lists. */

import type { TCountry, TInsuranceType } from '../../../../shared/policy.js';
import type { TRegistryStatus } from '../../../../shared/verification.js';

export const INSURER_KINDS = ['insurer', 'intermediary'] as const;
export type InsurerKind = (typeof INSURER_KINDS)[number];

export type ReferenceScheme = 'fca_frn' | 'bafin_reg_nr' | 'acam_code' | 'eiopa_id' | 'demo';

export interface InsurerRecord {
  country: TCountry;
  /** The regulator reference: FRN, BaFin register number, ACAM code. Unique per country. */
  reference: string;
  scheme: ReferenceScheme;
  name: string;
  /** Other names the insurer goes by (commercial names, labels in source lists). */
  aliases: string[];
  regulated: 'YES' | 'NO';
  /**
   * True only where the source states a current authorisation. With `status_text` null the source
   * states none, and the register check says the status is unknown instead of "not authorised".
   */
  authorised: boolean;
  /** The status as the source words it ("Authorised", "Deemed authorised", "No longer authorised"); null when it states none. */
  status_text: string | null;
  /**
   * An intermediary (broker, MGA, distributor) is on the regulator's register but does not carry the
   * risk: it is never accepted as a policy's insurer.
   */
  kind: InsurerKind;
  lei: string | null;
  /** Importer that produced the row, e.g. `eiopa-register`, `fca-register`, `demo`. */
  source: string;
  /** Provenance a person can follow: file, publisher, commit. */
  source_detail: string | null;
  demo: boolean;
  /**
   * Which source wins when two importers hold the same (country, reference): a regulator's own
   * export (30) outranks a secondary list (20), which outranks demo rows (10). An upsert never
   * replaces a row of higher priority.
   */
  priority: number;
  updated_at: string;
}

export type RegistryPolicyStatus = TRegistryStatus;

export interface RegistryPolicyRecord {
  /** Normalised: upper case, no spaces, dashes, dots or slashes. */
  policy_number: string;
  country: TCountry;
  insurance_type: TInsuranceType;
  insurer_reference: string | null;
  start_date: string | null;
  end_date: string | null;
  status: RegistryPolicyStatus;
  vehicle_registration: string | null;
  source: string;
  demo: boolean;
}

export interface RegistryCoverage {
  country: TCountry;
  insurance_type: TInsuranceType;
  source: string;
  demo: boolean;
  /**
   * A demo source covers it, whatever else does too: the only coverage a sandbox key sees
   * (docs/data-sources.md). Set by any demo load, never cleared by a real one.
   */
  demo_covered: boolean;
  updated_at: string;
}

/** What a registry load declares: `demo_covered` follows from `demo`. */
export type NewRegistryCoverage = Omit<RegistryCoverage, 'demo_covered'>;

export interface SanctionRecord {
  name: string;
  country: TCountry | null;
  list: string;
  reference: string | null;
  demo: boolean;
}

export interface InsurerStore {
  upsertMany(rows: InsurerRecord[]): Promise<number>;
  listByCountry(country: TCountry): Promise<InsurerRecord[]>;
  get(country: TCountry, reference: string): Promise<InsurerRecord | null>;
  count(): Promise<number>;
  /** Changes whenever insurer or sanctions rows change, so in-memory indexes know when to reload. */
  version(): Promise<number>;
}

export interface RegistryStore {
  upsertMany(rows: RegistryPolicyRecord[]): Promise<number>;
  find(country: TCountry, policyNumber: string): Promise<RegistryPolicyRecord[]>;
  setCoverage(rows: NewRegistryCoverage[]): Promise<void>;
  coverage(country: TCountry, type: TInsuranceType): Promise<RegistryCoverage | null>;
  count(): Promise<number>;
}

export interface SanctionStore {
  replaceList(list: string, rows: SanctionRecord[]): Promise<number>;
  all(): Promise<SanctionRecord[]>;
}
