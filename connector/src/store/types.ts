/**
 * The storage interface. Every caller goes through it, so a second backend (PostgreSQL) plugs in
 * without touching them. Methods are async even though better-sqlite3 is synchronous, because a
 * networked backend will not be.
 */
import type { TCountry, TInsuranceType } from '../../../shared/policy.js';
import type { TRegistryStatus } from '../../../shared/verification.js';
import type { TPlan, TScope } from '../../../shared/account.js';
import type { BalanceAdjustment } from './balance-adjustment.js';

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
  /** Signs this key's webhook deliveries (Standard Webhooks `whsec_...`); shown once, at creation. */
  webhook_secret: string | null;
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
  webhook_secret?: string | null;
}

export interface LedgerEntry {
  id: number;
  key_id: string;
  /** Negative for a charge, positive for a refund or grant. */
  delta: number;
  reason: 'charge' | 'reserve' | 'refund' | 'grant' | 'period_reset' | 'adjust';
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
   * (docs/sandbox.md). Set by any demo load, never cleared by a real one.
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

export interface KeyStore {
  create(key: NewApiKey): Promise<ApiKeyRecord>;
  findByLookup(lookup: string): Promise<ApiKeyRecord | null>;
  get(id: string): Promise<ApiKeyRecord | null>;
  list(): Promise<ApiKeyRecord[]>;
  revoke(id: string, at: string): Promise<boolean>;
  touch(id: string, at: string): Promise<void>;
  setWebhookSecret(id: string, secret: string): Promise<void>;
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
  adjust(keyId: string, opts: BalanceAdjustment, at: string): Promise<ApiKeyRecord | null>;
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
  setCoverage(rows: NewRegistryCoverage[]): Promise<void>;
  coverage(country: TCountry, type: TInsuranceType): Promise<RegistryCoverage | null>;
  count(): Promise<number>;
}

export interface SanctionStore {
  replaceList(list: string, rows: SanctionRecord[]): Promise<number>;
  all(): Promise<SanctionRecord[]>;
}

// ---- Durable work: jobs, batches, webhook outbox -------------------------------------------

export type JobKind = 'verification' | 'extraction';
export type JobStatus = 'pending' | 'complete' | 'failed';

export interface JobRecord {
  id: string;
  key_id: string;
  kind: JobKind;
  status: JobStatus;
  /** The accepted request, as JSON text (validated before it was stored). */
  payload: string;
  /** JSON text of the result when complete. */
  result: string | null;
  /** JSON text of the error body when failed. */
  error: string | null;
  webhook_url: string | null;
  reserved: number;
  charged: number;
  attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
  /** The worker (lease owner: process and instance) that finished the job; for operators tracing work across instances. */
  finished_by: string | null;
  /** Size of the stored document, when the job came with one. */
  document_bytes: number | null;
  /** JSON text: what extraction made of the document (async verification with a document). */
  document_outcome: string | null;
  sheet_target: string | null;
}

export interface NewJob {
  id: string;
  key_id: string;
  kind: JobKind;
  payload: string;
  webhook_url: string | null;
  created_at: string;
  document?: Buffer;
  /** JSON text of the TSheetTarget, when results go to a sheet. */
  sheet_target?: string | null;
}

/** Credits to reserve with a submission, in the same transaction as the insert. */
export interface Reservation {
  amount: number;
  period: string;
  ref: string;
}

export type SubmitOutcome = { ok: true } | { ok: false; balance: number };

export interface NewOutbox {
  id: string;
  key_id: string;
  url: string;
  event_type: string;
  subject_id: string;
  body: string;
  created_at: string;
}

/** How a finished unit of work settles its credits: keep `charge`, give back `refund` (charge + refund = reserved). */
export interface Settlement {
  charge: number;
  refund: number;
  ref: string;
}

export interface FinishJob {
  id: string;
  owner: string;
  status: 'complete' | 'failed';
  result: string | null;
  error: string | null;
  settlement: Settlement;
  outbox: NewOutbox | null;
  at: string;
  document_outcome?: string | null;
  /** Sheet write-back to queue with the result (same transaction). */
  writeback?: NewWriteback | null;
}

export interface JobStore {
  /** Pending jobs of a kind, for back-pressure on uploads. */
  pendingCount(kind: JobKind): Promise<number>;
  /** Pending jobs of one key that carry a document (extractions, and verifications with one), for the per-key bound on them. */
  pendingDocuments(keyId: string): Promise<number>;
  /** Inserts the job (and its document) and reserves credits in one transaction; refused when the balance can't cover it. */
  create(job: NewJob, reserve: Reservation | null): Promise<SubmitOutcome>;
  get(id: string): Promise<JobRecord | null>;
  document(id: string): Promise<Buffer | null>;
  /** Claims the oldest pending job whose lease is free or expired, or null. */
  lease(owner: string, now: string, leaseUntil: string): Promise<JobRecord | null>;
  renew(id: string, owner: string, leaseUntil: string): Promise<boolean>;
  /**
   * Result, status, credit settlement and webhook outbox row in one transaction, only if the job
   * is still pending and leased by `owner`: a job is finished once, whoever else took it over.
   */
  finish(f: FinishJob): Promise<boolean>;
  /** Gives a job back after a failed attempt; it is retried after `retryAt`. */
  release(id: string, owner: string, retryAt: string): Promise<void>;
}

export type BatchStatus = 'pending' | 'processing' | 'complete';

export interface BatchRecord {
  id: string;
  key_id: string;
  status: BatchStatus;
  total_count: number;
  completed_count: number;
  webhook_url: string | null;
  sheet_target: string | null;
  attempts: number;
  lease_owner: string | null;
  lease_until: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface BatchItemRecord {
  batch_id: string;
  idx: number;
  policy_number: string | null;
  /** The item as submitted, JSON text. */
  input: string;
  state: 'pending' | 'done';
  result: string | null;
  error: string | null;
  reserved: number;
  charged: number;
}

export interface NewBatch {
  id: string;
  key_id: string;
  webhook_url: string | null;
  created_at: string;
  sheet_target?: string | null;
  /** Items refused at submission are stored done with their error and nothing reserved. */
  items: Omit<BatchItemRecord, 'batch_id' | 'charged'>[];
}

export interface FinishBatchItem {
  batch_id: string;
  idx: number;
  owner: string;
  result: string | null;
  error: string | null;
  settlement: Settlement;
  at: string;
}

export interface BatchStore {
  create(batch: NewBatch, reserve: Reservation | null): Promise<SubmitOutcome>;
  get(id: string): Promise<BatchRecord | null>;
  items(id: string): Promise<BatchItemRecord[]>;
  lease(owner: string, now: string, leaseUntil: string): Promise<BatchRecord | null>;
  renew(id: string, owner: string, leaseUntil: string): Promise<boolean>;
  /** One item's result and credit settlement, once; the batch moves to processing. */
  finishItem(f: FinishBatchItem): Promise<boolean>;
  /** Marks the batch complete (every item done) with its outbox row, once. */
  complete(id: string, owner: string, outbox: NewOutbox | null, at: string, writeback?: NewWriteback | null): Promise<boolean>;
  release(id: string, owner: string, retryAt: string): Promise<void>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxRecord {
  id: string;
  key_id: string;
  url: string;
  event_type: string;
  subject_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface OutboxStore {
  /** Claims the next due pending delivery for `leaseUntil`, or null. */
  lease(now: string, leaseUntil: string): Promise<OutboxRecord | null>;
  /** Records one attempt and the delivery's new state in one transaction. */
  recordAttempt(id: string, attempt: AttemptRecord, next: { status: DeliveryStatus; next_attempt_at: string | null }): Promise<void>;
  get(id: string): Promise<OutboxRecord | null>;
  list(keyId: string, page: { limit: number; offset: number }): Promise<{ items: (OutboxRecord & { attempt_log: AttemptRecord[] })[]; total: number }>;
  forSubject(subjectId: string): Promise<OutboxRecord[]>;
}

// ---- Dataset catalogue ----------------------------------------------------------------------

export type Cadence = 'daily' | 'weekly' | 'monthly' | 'quarterly';

/** Where and how the refresher fetches a dataset's points (CSV or JSON adapter). */
export interface RefreshSource {
  url: string;
  format: 'csv' | 'json';
  date_column?: string;
  value_column?: string;
  /** JSON: dotted path to the array of points in the document (default: the document itself). */
  path?: string;
}

export interface DatasetMeta {
  slug: string;
  title: string;
  description: string;
  category: string;
  source: string;
  source_url: string;
  licence: string | null;
  cadence: Cadence;
  unit: string;
  refresh: RefreshSource | null;
}

export interface DatasetRecord extends DatasetMeta {
  first_date: string | null;
  last_date: string | null;
  point_count: number;
  last_refreshed_at: string | null;
  last_refresh_attempt_at: string | null;
  last_refresh_error: string | null;
  updated_at: string;
}

export interface SeriesPoint {
  date: string;
  value: number;
}

export interface DatasetQuery {
  /** Search words from datasets/search-query.ts; every one must match, as a prefix. */
  terms?: string[];
  category?: string;
  source?: string;
  cadence?: Cadence;
  limit: number;
  offset: number;
}

export interface DatasetStore {
  /** Creates or updates the metadata (and its search index entry); points are untouched. */
  upsert(meta: DatasetMeta, at: string): Promise<void>;
  /**
   * Writes points: `replace` swaps the whole series, `merge` adds and overwrites by date. In one
   * transaction with the dataset's counts, range and last_refreshed_at.
   */
  writePoints(slug: string, points: SeriesPoint[], mode: 'replace' | 'merge', at: string): Promise<number>;
  recordRefreshFailure(slug: string, error: string, at: string): Promise<void>;
  get(slug: string): Promise<DatasetRecord | null>;
  /** Ranked by relevance when `terms` are given (title counts most), otherwise by title. */
  search(query: DatasetQuery): Promise<{ items: DatasetRecord[]; total: number }>;
  /** `limit` points from the latest or earliest end, returned in ascending date order. */
  series(slug: string, limit: number, direction: 'latest' | 'earliest'): Promise<SeriesPoint[]>;
  /** Datasets with a refresh source. */
  refreshable(): Promise<DatasetRecord[]>;
  count(): Promise<number>;
}

// ---- Sheets write-back and schedules --------------------------------------------------------

/** One result to place: the policy number that identifies its row, and cell values by column letter. */
export interface WritebackRow {
  policy_number: string;
  cells: Record<string, string | number>;
  /** Extraction results may add a row when their policy number is not in the sheet yet. */
  append_if_missing: boolean;
}

export interface NewWriteback {
  id: string;
  key_id: string;
  subject_type: 'job' | 'batch';
  subject_id: string;
  kind: 'verification' | 'extraction';
  spreadsheet_id: string;
  /** JSON text of the TSheetTarget. */
  target: string;
  /** JSON text of WritebackRow[]. */
  rows: string;
  created_at: string;
}

export interface WritebackRecord extends NewWriteback {
  status: 'pending' | 'written' | 'failed';
  attempts: number;
  next_attempt_at: string;
  written: number;
  missing: string[];
  last_error: string | null;
  updated_at: string;
}

export interface WritebackStore {
  /** Claims every due pending write-back of the spreadsheet whose write-back is due first. */
  leaseSpreadsheet(now: string, until: string): Promise<WritebackRecord[]>;
  finish(id: string, outcome: { status: WritebackRecord['status']; written: number; missing: string[]; error: string | null; next_attempt_at: string | null }, at: string): Promise<void>;
  forSubject(subjectId: string): Promise<WritebackRecord | null>;
}

export interface ScheduleRecord {
  id: string;
  key_id: string;
  dataset: string;
  spreadsheet_id: string;
  sheet_name: string;
  cadence: 'hourly' | 'daily' | 'weekly';
  point_limit: number;
  next_run_at: string;
  running_until: string | null;
  created_at: string;
}

export interface ScheduleRunRecord {
  started_at: string;
  finished_at: string | null;
  status: 'running' | 'ok' | 'failed';
  rows: number | null;
  error: string | null;
}

export interface ScheduleStore {
  create(s: Omit<ScheduleRecord, 'running_until'>): Promise<void>;
  get(id: string): Promise<ScheduleRecord | null>;
  list(keyId: string): Promise<ScheduleRecord[]>;
  delete(id: string, keyId: string): Promise<boolean>;
  /**
   * Claims one due schedule not already running (a run holds it until `until`), recording the
   * run as started. A schedule is never claimed twice at once.
   */
  leaseDue(now: string, until: string): Promise<ScheduleRecord | null>;
  /** Ends the run started at `startedAt` and sets the next run (counted from now, so missed periods are not replayed). */
  finishRun(id: string, startedAt: string, run: Omit<ScheduleRunRecord, 'started_at'>, nextRunAt: string): Promise<void>;
  runs(id: string, limit: number): Promise<ScheduleRunRecord[]>;
}

/**
 * A key's permission to write into one spreadsheet, proved by an editor who wrote the binding
 * token into the spreadsheet's developer metadata (docs/sheets-binding.md). One per key and
 * spreadsheet.
 */
export interface SheetBindingRecord {
  id: string;
  key_id: string;
  spreadsheet_id: string;
  /** SHA-256 of the binding token, hex: the token is shown once, at issue, and never stored. */
  token_hash: string;
  status: 'pending' | 'active';
  created_at: string;
  /** When this token was last found in the spreadsheet; null until then. */
  verified_at: string | null;
}

export interface SheetBindingStore {
  /**
   * Creates the binding of (key, spreadsheet), or gives the existing one (same id) this token:
   * back to pending with verified_at null, so the old token no longer counts.
   */
  issue(b: { id: string; key_id: string; spreadsheet_id: string; token_hash: string; created_at: string }): Promise<SheetBindingRecord>;
  get(id: string): Promise<SheetBindingRecord | null>;
  find(keyId: string, spreadsheetId: string): Promise<SheetBindingRecord | null>;
  /** The key's bindings, by created_at then id. */
  list(keyId: string): Promise<SheetBindingRecord[]>;
  /**
   * Records a check of token `tokenHash` started at `checkedAt`: found -> active, verified_at =
   * checkedAt; not found -> pending. Ignored (false) when the token was replaced meanwhile or a
   * check that started later was already recorded, so a slow stale answer never wins.
   */
  recordCheck(id: string, tokenHash: string, found: boolean, checkedAt: string): Promise<boolean>;
  /** Removes the binding if it belongs to `keyId`. */
  delete(id: string, keyId: string): Promise<boolean>;
}

// ---- Key portal ------------------------------------------------------------------------------

/** A pending e-mail key request: the activation link's token is stored only as its SHA-256. */
export interface KeyRequestRecord {
  id: string;
  email: string;
  mode: KeyMode;
  token_hash: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  key_id: string | null;
}

export type ConsumeOutcome = { ok: true; request: KeyRequestRecord } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

export interface PortalStore {
  createRequest(r: Omit<KeyRequestRecord, 'used_at' | 'key_id'>): Promise<void>;
  findRequest(tokenHash: string): Promise<KeyRequestRecord | null>;
  /**
   * Marks the request used if it is neither used nor expired at `at`, in one conditional UPDATE, so
   * two concurrent activations of one link can't both succeed.
   */
  consumeRequest(tokenHash: string, at: string): Promise<ConsumeOutcome>;
  /** Records which key an activated request minted. */
  attachKey(requestId: string, keyId: string): Promise<void>;
  /**
   * Deactivates active free-plan keys created before `createdBefore` that were never used
   * (`last_used_at` null), except those named in `exceptNames`. Returns the ids deactivated.
   */
  deactivateUnused(createdBefore: string, at: string, exceptNames: string[]): Promise<string[]>;
}

export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  writebacks: WritebackStore;
  schedules: ScheduleStore;
  sheetBindings: SheetBindingStore;
  datasets: DatasetStore;
  jobs: JobStore;
  batches: BatchStore;
  outbox: OutboxStore;
  keys: KeyStore;
  portal: PortalStore;
  credits: CreditStore;
  idempotency: IdempotencyStore;
  insurers: InsurerStore;
  registry: RegistryStore;
  sanctions: SanctionStore;
  /** True when the store answers; for /healthz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
