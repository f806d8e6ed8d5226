/**
 * The storage interface. Every caller goes through it, so a second backend (PostgreSQL) plugs in
 * without touching them. Methods are async even though better-sqlite3 is synchronous, because a
 * networked backend will not be.
 */
import type { TCountry, TInsuranceType } from '../../../shared/policy.js';
import type { TPlan, TScope } from '../../../shared/account.js';

export type KeyMode = 'live' | 'test';
export type KeyStatus = 'active' | 'revoked' | 'deactivated';

export interface ApiKeyRecord {
  id: string;
  /** Public, non-secret part of the key used to find the row; the secret is only ever hashed. */
  lookup: string;
  /** SHA-256 of the whole key, hex. */
  hash: string;
  name: string;
  email: string | null;
  mode: KeyMode;
  plan: TPlan;
  scopes: TScope[];
  status: KeyStatus;
  /** Credits granted at the start of every billing period. */
  allowance: number;
  /** Credits left in `period`. */
  balance: number;
  /** Billing period the balance belongs to (YYYY-MM, UTC). */
  period: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface NewApiKey {
  id: string;
  lookup: string;
  hash: string;
  name: string;
  email?: string | null;
  mode: KeyMode;
  plan: TPlan;
  scopes: TScope[];
  allowance: number;
  period: string;
  created_at: string;
}

export interface LedgerEntry {
  id: number;
  key_id: string;
  /** Negative for a charge, positive for a refund or grant. */
  delta: number;
  reason: 'charge' | 'refund' | 'grant' | 'period_reset' | 'adjust';
  ref: string | null;
  balance_after: number;
  created_at: string;
}

export interface ChargeOutcome {
  ok: boolean;
  /** Balance after the charge, or the unchanged balance when refused. */
  balance: number;
}

export interface IdempotencyBegin {
  state: 'new' | 'replay' | 'in_progress' | 'mismatch';
  status?: number;
  body?: string;
}

export interface StoredResponse {
  status: number;
  body: string;
}

/** A response to complete an idempotency claim with, written in the same transaction as a charge. */
export interface IdempotentRecord {
  idemKey: string;
  response: StoredResponse;
}

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
  authorised: boolean;
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

export type RegistryPolicyStatus = 'active' | 'cancelled' | 'lapsed' | 'suspended';

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
  updated_at: string;
}

export interface SanctionRecord {
  name: string;
  country: TCountry | null;
  list: string;
  reference: string | null;
  demo: boolean;
}

export interface KeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByLookup(lookup: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
}

export interface CreditStore {
  /**
   * Charges `amount` if the balance covers it, in one atomic step with the check. Rolls the
   * balance over to a new billing period first when `period` is newer than the key's.
   */
  charge(keyId: string, amount: number, period: string, ref: string | null, at: string, record?: IdempotentRecord): Promise<ChargeOutcome>;
  /** Current balance, rolled over to `period` if that is newer. */
  balance(keyId: string, period: string, at: string): Promise<number>;
  /** Operator adjustment: set the allowance and/or add to the balance. */
  adjust(keyId: string, opts: { allowance?: number; add?: number; set?: number }, at: string): Promise<ApiKeyRecord | null>;
  ledger(keyId: string): Promise<LedgerEntry[]>;
}

export interface IdempotencyStore {
  /** Claims (keyId, idemKey) for a request with this body hash, or reports what is already there. */
  begin(keyId: string, idemKey: string, requestHash: string, at: string, staleBefore: string): Promise<IdempotencyBegin>;
  complete(keyId: string, idemKey: string, response: StoredResponse, at: string): Promise<void>;
  /** Drops a claim whose response must not be replayed (a transient failure): the client may retry. */
  release(keyId: string, idemKey: string): Promise<void>;
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
  setCoverage(rows: RegistryCoverage[]): Promise<void>;
  coverage(country: TCountry, type: TInsuranceType): Promise<RegistryCoverage | null>;
  count(): Promise<number>;
}

export interface SanctionStore {
  replaceList(list: string, rows: SanctionRecord[]): Promise<number>;
  all(): Promise<SanctionRecord[]>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  keys: KeyStore;
  credits: CreditStore;
  idempotency: IdempotencyStore;
  insurers: InsurerStore;
  registry: RegistryStore;
  sanctions: SanctionStore;
  /** True when the store answers; for /healthz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
