/**
 * Runs a section of the storage contract (connector/src/store/types/<section>.ts) against every
 * backend: the embedded SQLite file and PostgreSQL (one server for the run, test/global-services.ts).
 * Each test gets a fresh, empty database, so counts, orderings and leases are exact. On PostgreSQL
 * the test's first database is a copy of one the store has already migrated (its migrations cost
 * about as much as the rest of a test); the lifecycle section, which is about migrating, and
 * every further database a test asks for (freshLocation) start with nothing in them. Expected
 * behaviour comes from the interface's doc comments and, where those are silent but callers depend
 * on it, from the SQLite store (the reference implementation).
 *
 * Timestamps are the strings callers pass (`new Date().toISOString()`), and must come back as the
 * same strings.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, inject } from 'vitest';
import { openStore } from '../../../connector/src/store/index.js';
import type { ApiKeyRecord, NewApiKey, NewBatch, NewOutbox, NewWriteback, Store } from '../../../connector/src/store/types.js';
import { createDatabase } from '../../helpers/services.js';
import { at, finishOf, newJob, newKey } from './fixtures.js';

interface Backend {
  kind: Store['kind'];
  /** A new database with no rows (`migrated`: its tables already made, where that is cheaper); returns where it is (a file path or a URL). */
  fresh(migrated: boolean): Promise<string>;
  open(where: string): Promise<Store>;
  dispose(where: string): Promise<void>;
}

const sqlite: Backend = {
  kind: 'sqlite',
  async fresh() {
    // A new file is cheap to migrate: always empty.
    return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-contract-')), 'covercheck.db');
  },
  open(file) {
    return openStore({ databasePath: file });
  },
  async dispose(file) {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  },
};

const adminUrl = inject('postgresUrl');
const migratedTemplate = inject('postgresMigrated');
const postgres: Backend = {
  kind: 'postgres',
  fresh(migrated) {
    return createDatabase(adminUrl, 'contract', migrated ? migratedTemplate : undefined);
  },
  open(url) {
    return openStore({ databasePath: '', databaseUrl: url, poolSize: 10 });
  },
  // The whole server is thrown away at the end of the run (test/global-services.ts).
  async dispose() {},
};

/** What a section's tests get: the store of the current test, and helpers that act on it. */
export interface ContractContext {
  readonly backend: Backend;
  /** The store opened for the current test (set before the section's own beforeEach hooks run). */
  readonly store: Store;
  /** Where the current test's first database is. */
  readonly locations: readonly string[];
  /** Opens another store on `where`; closed after the test unless closeStore closed it. */
  openAt(where: string): Promise<Store>;
  closeStore(s: Store): Promise<void>;
  /** A further fresh database for this test; disposed after it. */
  freshLocation(): Promise<string>;
  key(id: string, over?: Partial<NewApiKey>): Promise<ApiKeyRecord>;
  /** Creates, leases and finishes one job: the only way outbox rows and job write-backs get in. */
  finishedJob(id: string, extra?: { outbox?: NewOutbox; writeback?: NewWriteback; keyId?: string }): Promise<void>;
  /** Creates a batch with one done item, leases and completes it, queueing `writeback`. */
  completedBatch(id: string, writeback: NewWriteback | null, outbox?: NewOutbox | null): Promise<void>;
}

/**
 * Registers `section` once per backend, under `store contract: <backend>`. Hooks run in the order
 * they are defined (vitest's default `sequence.hooks: 'stack'`), so a section's own beforeEach
 * already sees the fresh store. `opts.migratedStart: false` opens each test's first store on an
 * empty database on every backend (the store migrates it), for the sections about migrations.
 */
export function storeContract(section: (t: ContractContext) => void, opts: { migratedStart?: boolean } = {}): void {
  for (const backend of [sqlite, postgres]) {
    describe(`store contract: ${backend.kind}`, () => {
      let store: Store;
      const locations: string[] = [];
      const opened: Store[] = [];
      const closed = new Set<Store>();

      async function openAt(where: string): Promise<Store> {
        const s = await backend.open(where);
        opened.push(s);
        return s;
      }
      async function closeStore(s: Store): Promise<void> {
        closed.add(s);
        await s.close();
      }
      async function freshLocation(migrated = false): Promise<string> {
        const where = await backend.fresh(migrated);
        locations.push(where);
        return where;
      }

      beforeEach(async () => {
        store = await openAt(await freshLocation(opts.migratedStart !== false));
      });
      afterEach(async () => {
        for (const s of opened.splice(0)) if (!closed.has(s)) await s.close();
        closed.clear();
        for (const where of locations.splice(0)) await backend.dispose(where);
      });

      section({
        backend,
        get store() {
          return store;
        },
        locations,
        openAt,
        closeStore,
        freshLocation: () => freshLocation(),
        key: (id, over = {}) => store.keys.create(newKey(id, over)),
        async finishedJob(id, extra = {}) {
          expect(await store.jobs.create(newJob(id, { key_id: extra.keyId ?? 'k1', created_at: at(0) }), null)).toEqual({ ok: true });
          const leased = await store.jobs.lease(`owner-${id}`, at(1), at(61));
          expect(leased?.id).toBe(id);
          expect(
            await store.jobs.finish(finishOf(id, `owner-${id}`, { outbox: extra.outbox ?? null, writeback: extra.writeback ?? null })),
          ).toBe(true);
        },
        async completedBatch(id, writeback, outbox = null) {
          const b: NewBatch = {
            id,
            key_id: 'k1',
            webhook_url: null,
            created_at: at(0),
            items: [{ idx: 0, policy_number: 'P1', input: '{}', state: 'done', result: null, error: '{"code":"invalid"}', reserved: 0 }],
          };
          expect(await store.batches.create(b, null)).toEqual({ ok: true });
          expect((await store.batches.lease(`owner-${id}`, at(1), at(61)))?.id).toBe(id);
          expect(await store.batches.complete(id, `owner-${id}`, outbox, at(2), writeback)).toBe(true);
        },
      });
    });
  }
}
