/**
 * The storage interface, composed from one file per section (types/<section>.ts, each backend's
 * <backend>/<section>.ts beside it). Every caller goes through it, so a second backend
 * (PostgreSQL) plugs in without touching them. Methods are async even though better-sqlite3 is
 * synchronous, because a networked backend will not be.
 */
import type { CreditStore } from './types/credits.js';
import type { DatasetStore } from './types/datasets.js';
import type { HistoryStore } from './types/history.js';
import type { IdempotencyStore } from './types/idempotency.js';
import type { KeyStore } from './types/keys.js';
import type { OutboxStore } from './types/outbox.js';
import type { PortalStore } from './types/portal.js';
import type { RetentionStore } from './types/retention.js';
import type { InsurerStore, RegistryStore, SanctionStore } from './types/reference-data.js';
import type { ScheduleStore, SheetBindingStore, WritebackStore } from './types/sheets.js';
import type { WatchStore } from './types/watches.js';
import type { BatchStore, JobStore } from './types/work.js';

export type * from './types/credits.js';
export type * from './types/datasets.js';
export type * from './types/history.js';
export type * from './types/idempotency.js';
export type * from './types/keys.js';
export type * from './types/outbox.js';
export type * from './types/portal.js';
export type * from './types/reference-data.js';
export type * from './types/retention.js';
export type * from './types/sheets.js';
export type * from './types/watches.js';
export type * from './types/work.js';

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
  retention: RetentionStore;
  history: HistoryStore;
  watches: WatchStore;
  /** True when the store answers; for /healthz. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}
