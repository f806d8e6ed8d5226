/**
 * The storage contract (connector/src/store/types.ts), run against every backend: the embedded
 * SQLite file and PostgreSQL. Each test gets a fresh, empty database, so counts, orderings and
 * leases are exact. Expected behaviour comes from the interface's doc comments and, where those are
 * silent but callers depend on it, from the SQLite store (the reference implementation).
 *
 * Timestamps are the strings callers pass (`new Date().toISOString()`), and must come back as the
 * same strings.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../connector/src/store/index.js';
import type {
  AttemptRecord,
  DatasetMeta,
  FinishJob,
  InsurerRecord,
  KeyRequestRecord,
  NewApiKey,
  NewBatch,
  NewJob,
  NewOutbox,
  NewWriteback,
  RegistryPolicyRecord,
  ScheduleRecord,
  Store,
} from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';

// ---- backends -------------------------------------------------------------------------------

interface Backend {
  kind: Store['kind'];
  /** A new, empty database; returns where it is (a file path or a URL). */
  fresh(): Promise<string>;
  open(where: string): Promise<Store>;
  dispose(where: string): Promise<void>;
}

const sqlite: Backend = {
  kind: 'sqlite',
  async fresh() {
    return tempDbPath('contract');
  },
  open(file) {
    return openStore({ databasePath: file });
  },
  async dispose(file) {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  },
};

const adminUrl = inject('postgresUrl');
const postgres: Backend = {
  kind: 'postgres',
  fresh() {
    return createDatabase(adminUrl, 'contract');
  },
  open(url) {
    return openStore({ databasePath: '', databaseUrl: url, poolSize: 10 });
  },
  // The whole server is thrown away at the end of the run (test/global-services.ts).
  async dispose() {},
};

// ---- fixtures -------------------------------------------------------------------------------

const BASE = Date.UTC(2026, 10, 2, 10, 0, 0);
/** `sec` seconds after 2026-11-02T10:00:00.000Z, in the form callers pass (toISOString). */
const at = (sec = 0): string => new Date(BASE + sec * 1000).toISOString();
const PERIOD = '2026-11';

function newKey(id: string, over: Partial<NewApiKey> = {}): NewApiKey {
  return {
    id,
    lookup: `lk_${id}`,
    hash: 'ab'.repeat(32),
    name: `key ${id}`,
    mode: 'live',
    plan: 'free',
    scopes: ['verify'],
    allowance: 10,
    period: PERIOD,
    created_at: at(0),
    ...over,
  };
}

function newJob(id: string, over: Partial<NewJob> = {}): NewJob {
  return { id, key_id: 'k1', kind: 'verification', payload: JSON.stringify({ policy_number: id }), webhook_url: null, created_at: at(0), ...over };
}

function outboxRow(id: string, over: Partial<NewOutbox> = {}): NewOutbox {
  return {
    id,
    key_id: 'k1',
    url: 'https://hooks.example.com/covercheck',
    event_type: 'verification.completed',
    subject_id: `subject-${id}`,
    body: JSON.stringify({ type: 'verification.completed', id }),
    created_at: at(0),
    ...over,
  };
}

function writebackRow(id: string, over: Partial<NewWriteback> = {}): NewWriteback {
  return {
    id,
    key_id: 'k1',
    subject_type: 'job',
    subject_id: `subject-${id}`,
    kind: 'verification',
    spreadsheet_id: 'sheet-1',
    target: JSON.stringify({ spreadsheet_id: 'sheet-1', sheet: 'Policies' }),
    rows: JSON.stringify([{ policy_number: 'P1', cells: { D: 'valid', E: 3 }, append_if_missing: false }]),
    created_at: at(0),
    ...over,
  };
}

function finishOf(id: string, owner: string, over: Partial<FinishJob> = {}): FinishJob {
  return {
    id,
    owner,
    status: 'complete',
    result: JSON.stringify({ status: 'valid', id }),
    error: null,
    settlement: { charge: 0, refund: 0, ref: `job:${id}` },
    outbox: null,
    at: at(100),
    ...over,
  };
}

function insurer(reference: string, over: Partial<InsurerRecord> = {}): InsurerRecord {
  return {
    country: 'DE',
    reference,
    scheme: 'bafin_reg_nr',
    name: `Insurer ${reference}`,
    aliases: [],
    regulated: 'YES',
    authorised: true,
    lei: null,
    source: 'eiopa-register',
    source_detail: null,
    demo: false,
    priority: 30,
    updated_at: at(0),
    ...over,
  };
}

function policy(num: string, over: Partial<RegistryPolicyRecord> = {}): RegistryPolicyRecord {
  return {
    policy_number: num,
    country: 'UK',
    insurance_type: 'motor',
    insurer_reference: '202153',
    start_date: '2026-01-01',
    end_date: '2026-12-31',
    status: 'active',
    vehicle_registration: 'AB12CDE',
    source: 'mid-extract',
    demo: false,
    ...over,
  };
}

function dataset(slug: string, over: Partial<DatasetMeta> = {}): DatasetMeta {
  return {
    slug,
    title: `Dataset ${slug}`,
    description: 'Plain description',
    category: 'Economy',
    source: 'ONS',
    source_url: `https://example.org/${slug}`,
    licence: null,
    cadence: 'monthly',
    unit: 'percent',
    refresh: null,
    ...over,
  };
}

function schedule(id: string, over: Partial<Omit<ScheduleRecord, 'running_until'>> = {}): Omit<ScheduleRecord, 'running_until'> {
  return {
    id,
    key_id: 'k1',
    dataset: 'uk-cpi',
    spreadsheet_id: 'sheet-1',
    sheet_name: 'CPI',
    cadence: 'daily',
    point_limit: 100,
    next_run_at: at(60),
    created_at: at(0),
    ...over,
  };
}

function keyRequest(id: string, over: Partial<Omit<KeyRequestRecord, 'used_at' | 'key_id'>> = {}): Omit<KeyRequestRecord, 'used_at' | 'key_id'> {
  return { id, email: `${id}@example.com`, mode: 'live', token_hash: `hash-${id}`, created_at: at(0), expires_at: at(3600), ...over };
}

const byId = <T extends { id: string }>(rows: T[]): T[] => [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
const count = <T>(xs: T[], pred: (x: T) => boolean): number => xs.filter(pred).length;

// ---- the suite ------------------------------------------------------------------------------

function storeContract(name: string, backend: Backend): void {
  describe(`store contract: ${name}`, () => {
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
    async function freshLocation(): Promise<string> {
      const where = await backend.fresh();
      locations.push(where);
      return where;
    }

    beforeEach(async () => {
      store = await openAt(await freshLocation());
    });
    afterEach(async () => {
      for (const s of opened.splice(0)) if (!closed.has(s)) await s.close();
      closed.clear();
      for (const where of locations.splice(0)) await backend.dispose(where);
    });

    const key = (id: string, over: Partial<NewApiKey> = {}) => store.keys.create(newKey(id, over));

    /** Creates, leases and finishes one job: the only way outbox rows and job write-backs get in. */
    async function finishedJob(id: string, extra: { outbox?: NewOutbox; writeback?: NewWriteback; keyId?: string } = {}): Promise<void> {
      expect(await store.jobs.create(newJob(id, { key_id: extra.keyId ?? 'k1', created_at: at(0) }), null)).toEqual({ ok: true });
      const leased = await store.jobs.lease(`owner-${id}`, at(1), at(61));
      expect(leased?.id).toBe(id);
      expect(await store.jobs.finish(finishOf(id, `owner-${id}`, { outbox: extra.outbox ?? null, writeback: extra.writeback ?? null }))).toBe(true);
    }

    /** Creates a batch with one done item, leases and completes it, queueing `writeback`. */
    async function completedBatch(id: string, writeback: NewWriteback | null, outbox: NewOutbox | null = null): Promise<void> {
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
    }

    // ---- lifecycle ----------------------------------------------------------------------------

    describe('lifecycle and migrations', () => {
      it('is the expected backend and answers ping', async () => {
        expect(store.kind).toBe(backend.kind);
        expect(await store.ping()).toBe(true);
      });

      it('reopening the same database applies no migration twice and keeps the data', async () => {
        const where = locations[0]!;
        await key('k1', { allowance: 7 });
        await store.insurers.upsertMany([insurer('100')]);
        await store.sanctions.replaceList('eu', [{ name: 'Alpha', country: null, list: 'eu', reference: null, demo: true }]);
        const version = await store.insurers.version();
        await closeStore(store);

        const again = await openAt(where);
        expect(await again.ping()).toBe(true);
        expect((await again.keys.get('k1'))?.balance).toBe(7);
        expect(await again.insurers.count()).toBe(1);
        expect(await again.sanctions.all()).toHaveLength(1);
        // Re-running the first migration would reset (or fail on) the insurers version counter.
        expect(await again.insurers.version()).toBe(version);

        // A second instance on the same database while the first is open (several processes).
        const third = await openAt(where);
        expect((await third.keys.list()).map((k) => k.id)).toEqual(['k1']);
        expect(await third.insurers.version()).toBe(version);
        await third.keys.create(newKey('k2'));
        expect((await again.keys.get('k2'))?.id).toBe('k2');
      });

      it('two instances opening a fresh database at the same time both migrate it safely', async () => {
        const where = await freshLocation();
        const [a, b] = await Promise.all([openAt(where), openAt(where)]);
        expect(await a.ping()).toBe(true);
        expect(await b.ping()).toBe(true);
        await a.keys.create(newKey('k1'));
        expect((await b.keys.get('k1'))?.id).toBe('k1');
        expect(await b.insurers.version()).toBe(await a.insurers.version());
      });

      it('close() ends the store: it no longer answers', async () => {
        await closeStore(store);
        const alive = await store.ping().catch(() => false);
        expect(alive).toBe(false);
      });
    });

    // ---- keys -------------------------------------------------------------------------------

    describe('keys', () => {
      it('create returns the stored record: balance = allowance, active, nullable fields null', async () => {
        const created = await store.keys.create(newKey('k1', { scopes: ['verify', 'extract', 'datasets'], allowance: 250 }));
        expect(created).toEqual({
          id: 'k1',
          lookup: 'lk_k1',
          hash: 'ab'.repeat(32),
          name: 'key k1',
          email: null,
          mode: 'live',
          plan: 'free',
          scopes: ['verify', 'extract', 'datasets'],
          status: 'active',
          allowance: 250,
          balance: 250,
          period: '2026-11',
          created_at: '2026-11-02T10:00:00.000Z',
          last_used_at: null,
          revoked_at: null,
          webhook_secret: null,
        });
        expect(await store.keys.get('k1')).toEqual(created);
        expect(await store.keys.findByLookup('lk_k1')).toEqual(created);
      });

      it('optional fields, empty scopes and other modes and plans round-trip', async () => {
        const k2 = await key('k2', {
          email: 'ops@example.com',
          mode: 'test',
          plan: 'enterprise',
          scopes: [],
          allowance: 0,
          webhook_secret: 'whsec_c2VjcmV0',
          created_at: '2026-11-02T10:00:05.123Z',
        });
        expect(k2).toMatchObject({ email: 'ops@example.com', mode: 'test', plan: 'enterprise', scopes: [], allowance: 0, balance: 0, webhook_secret: 'whsec_c2VjcmV0', created_at: '2026-11-02T10:00:05.123Z' });
        expect(await store.keys.get('k2')).toEqual(k2);
        const k3 = await key('k3', { plan: 'standard', scopes: ['datasets', 'verify'] });
        expect((await store.keys.findByLookup('lk_k3'))?.scopes).toEqual(k3.scopes);
        expect(k3.scopes).toEqual(['datasets', 'verify']);
      });

      it('unknown ids and lookups are null', async () => {
        await key('k1');
        expect(await store.keys.get('nope')).toBeNull();
        expect(await store.keys.findByLookup('nope')).toBeNull();
        expect(await store.keys.findByLookup('k1')).toBeNull();
      });

      it('a duplicate id or lookup is refused and writes nothing', async () => {
        await key('k1');
        await expect(store.keys.create(newKey('k2', { lookup: 'lk_k1' }))).rejects.toThrow();
        await expect(store.keys.create(newKey('k1', { lookup: 'lk_other' }))).rejects.toThrow();
        expect((await store.keys.list()).map((k) => k.id)).toEqual(['k1']);
        expect(await store.keys.findByLookup('lk_other')).toBeNull();
      });

      it('list is ordered by created_at, then id', async () => {
        await key('kb', { created_at: at(10) });
        await key('ka', { created_at: at(10) });
        await key('kc', { created_at: at(0) });
        await key('kd', { created_at: at(5) });
        expect((await store.keys.list()).map((k) => k.id)).toEqual(['kc', 'kd', 'ka', 'kb']);
      });

      it('revoke changes the status once; revoking again or an unknown key is false', async () => {
        await key('k1');
        await key('k2');
        expect(await store.keys.revoke('k1', at(30))).toBe(true);
        expect(await store.keys.revoke('k1', at(40))).toBe(false);
        expect(await store.keys.revoke('nope', at(40))).toBe(false);
        expect(await store.keys.get('k1')).toMatchObject({ status: 'revoked', revoked_at: at(30) });
        expect(await store.keys.get('k2')).toMatchObject({ status: 'active', revoked_at: null });
      });

      it('touch sets last_used_at; setWebhookSecret replaces the secret; other keys untouched', async () => {
        await key('k1');
        await key('k2', { webhook_secret: 'whsec_old' });
        await store.keys.touch('k1', at(12));
        expect((await store.keys.get('k1'))?.last_used_at).toBe('2026-11-02T10:00:12.000Z');
        await store.keys.touch('k1', at(13));
        expect((await store.keys.get('k1'))?.last_used_at).toBe(at(13));
        expect((await store.keys.get('k2'))?.last_used_at).toBeNull();
        await store.keys.setWebhookSecret('k1', 'whsec_new1');
        await store.keys.setWebhookSecret('k2', 'whsec_new2');
        expect((await store.keys.get('k1'))?.webhook_secret).toBe('whsec_new1');
        expect((await store.keys.findByLookup('lk_k2'))?.webhook_secret).toBe('whsec_new2');
      });
    });

    // ---- credits ----------------------------------------------------------------------------

    describe('credits', () => {
      it('charges exactly while the balance covers it, one ledger row per charge', async () => {
        await key('k1', { allowance: 5 });
        expect(await store.credits.charge('k1', 2, PERIOD, 'req_a', at(1))).toEqual({ ok: true, balance: 3 });
        expect(await store.credits.charge('k1', 3, PERIOD, null, at(2))).toEqual({ ok: true, balance: 0 });
        const ledger = await store.credits.ledger('k1');
        expect(ledger.map(({ key_id, delta, reason, ref, balance_after, created_at }) => ({ key_id, delta, reason, ref, balance_after, created_at }))).toEqual([
          { key_id: 'k1', delta: -2, reason: 'charge', ref: 'req_a', balance_after: 3, created_at: at(1) },
          { key_id: 'k1', delta: -3, reason: 'charge', ref: null, balance_after: 0, created_at: at(2) },
        ]);
        expect(ledger[0]!.id).toBeLessThan(ledger[1]!.id);
        expect(await store.credits.balance('k1', PERIOD, at(3))).toBe(0);
        expect((await store.keys.get('k1'))?.balance).toBe(0);
      });

      it('refuses a charge the balance cannot cover: unchanged balance, nothing written', async () => {
        await key('k1', { allowance: 2 });
        await key('k2', { allowance: 9 });
        expect(await store.credits.charge('k1', 3, PERIOD, 'big', at(1))).toEqual({ ok: false, balance: 2 });
        expect(await store.credits.ledger('k1')).toEqual([]);
        expect(await store.credits.charge('k1', 2, PERIOD, 'fits', at(2))).toEqual({ ok: true, balance: 0 });
        expect(await store.credits.charge('k1', 1, PERIOD, 'none', at(3))).toEqual({ ok: false, balance: 0 });
        expect((await store.credits.ledger('k1')).map((e) => e.ref)).toEqual(['fits']);
        expect(await store.credits.ledger('k2')).toEqual([]);
        expect((await store.keys.get('k2'))?.balance).toBe(9);
      });

      it('rolls over to a newer period (balance = allowance, period_reset row), never to an older one', async () => {
        await key('k1', { allowance: 10 });
        expect(await store.credits.charge('k1', 4, PERIOD, 'a', at(1))).toEqual({ ok: true, balance: 6 });
        // An older period (a request stamped just before midnight) does not reset anything.
        expect(await store.credits.charge('k1', 1, '2026-10', 'b', at(2))).toEqual({ ok: true, balance: 5 });
        expect((await store.keys.get('k1'))?.period).toBe('2026-11');
        expect(await store.credits.charge('k1', 2, '2026-12', 'c', at(3))).toEqual({ ok: true, balance: 8 });
        expect(await store.keys.get('k1')).toMatchObject({ period: '2026-12', balance: 8, allowance: 10 });
        expect(await store.credits.balance('k1', '2026-12', at(4))).toBe(8);
        expect(await store.credits.balance('k1', '2026-11', at(5))).toBe(8);
        const rows = (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at }));
        expect(rows).toEqual([
          { delta: -4, reason: 'charge', ref: 'a', balance_after: 6, created_at: at(1) },
          { delta: -1, reason: 'charge', ref: 'b', balance_after: 5, created_at: at(2) },
          { delta: 0, reason: 'period_reset', ref: '2026-12', balance_after: 10, created_at: at(3) },
          { delta: -2, reason: 'charge', ref: 'c', balance_after: 8, created_at: at(3) },
        ]);
      });

      it('balance() rolls over once per newer period and writes the reset row', async () => {
        await key('k1', { allowance: 4 });
        await store.credits.charge('k1', 3, PERIOD, null, at(1));
        expect(await store.credits.balance('k1', PERIOD, at(2))).toBe(1);
        expect(await store.credits.ledger('k1')).toHaveLength(1);
        expect(await store.credits.balance('k1', '2027-01', at(3))).toBe(4);
        expect(await store.credits.balance('k1', '2027-01', at(4))).toBe(4);
        const ledger = await store.credits.ledger('k1');
        expect(ledger).toHaveLength(2);
        expect(ledger[1]).toMatchObject({ key_id: 'k1', delta: 0, reason: 'period_reset', ref: '2027-01', balance_after: 4, created_at: at(3) });
        expect((await store.keys.get('k1'))?.period).toBe('2027-01');
      });

      it('a refused charge in a newer period still answers the rolled-over balance', async () => {
        await key('k1', { allowance: 10 });
        await store.credits.charge('k1', 10, PERIOD, null, at(1));
        expect(await store.credits.charge('k1', 11, '2026-12', 'big', at(2))).toEqual({ ok: false, balance: 10 });
        expect(await store.credits.balance('k1', '2026-12', at(3))).toBe(10);
        expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'charge')).toHaveLength(1);
      });

      it('adjust: allowance, add, set; clamped at 0; an adjust row only when the balance changes', async () => {
        await key('k1', { allowance: 10 });
        const a1 = await store.credits.adjust('k1', { allowance: 50 }, at(1));
        expect(a1).toMatchObject({ id: 'k1', allowance: 50, balance: 10 });
        expect(await store.credits.ledger('k1')).toEqual([]);
        expect(await store.credits.adjust('k1', { add: 5 }, at(2))).toMatchObject({ allowance: 50, balance: 15 });
        expect(await store.credits.adjust('k1', { set: 3 }, at(3))).toMatchObject({ balance: 3 });
        expect(await store.credits.adjust('k1', { add: -100 }, at(4))).toMatchObject({ balance: 0 });
        expect(await store.credits.adjust('k1', { set: 0 }, at(5))).toMatchObject({ balance: 0 });
        expect(await store.credits.adjust('k1', { add: 0 }, at(6))).toMatchObject({ balance: 0 });
        expect(await store.credits.adjust('k1', { set: -4 }, at(7))).toMatchObject({ balance: 0 });
        expect(await store.credits.adjust('k1', { set: 7, allowance: 9 }, at(8))).toMatchObject({ allowance: 9, balance: 7 });
        const rows = (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at }));
        expect(rows).toEqual([
          { delta: 5, reason: 'adjust', ref: null, balance_after: 15, created_at: at(2) },
          { delta: -12, reason: 'adjust', ref: null, balance_after: 3, created_at: at(3) },
          { delta: -3, reason: 'adjust', ref: null, balance_after: 0, created_at: at(4) },
          { delta: 7, reason: 'adjust', ref: null, balance_after: 7, created_at: at(8) },
        ]);
        // The next period starts from the adjusted allowance.
        expect(await store.credits.balance('k1', '2026-12', at(9))).toBe(9);
        expect(await store.credits.adjust('nope', { add: 1 }, at(10))).toBeNull();
        expect(await store.credits.ledger('nope')).toEqual([]);
      });

      it('a charge with an idempotent record completes the claim in the same step; a refused one does not', async () => {
        await key('k1', { allowance: 1 });
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(1), at(-600))).toEqual({ state: 'new' });
        expect(await store.credits.charge('k1', 1, PERIOD, 'r1', at(2), { idemKey: 'i1', response: { status: 200, body: '{"valid":true}' } })).toEqual({ ok: true, balance: 0 });
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(3), at(-600))).toEqual({ state: 'replay', status: 200, body: '{"valid":true}' });
        expect(await store.idempotency.begin('k1', 'i2', 'h2', at(4), at(-600))).toEqual({ state: 'new' });
        expect(await store.credits.charge('k1', 1, PERIOD, 'r2', at(5), { idemKey: 'i2', response: { status: 200, body: '{}' } })).toEqual({ ok: false, balance: 0 });
        expect(await store.idempotency.begin('k1', 'i2', 'h2', at(6), at(-600))).toEqual({ state: 'in_progress' });
      });

      it('CONCURRENCY: 200 concurrent charges on 50 credits: exactly 50 succeed, never overdrawn', async () => {
        await key('k1', { allowance: 50 });
        await key('k2', { allowance: 5 });
        const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => store.credits.charge('k1', 1, PERIOD, `r${i}`, at(1))));
        expect(count(outcomes, (o) => o.ok)).toBe(50);
        expect(outcomes.filter((o) => !o.ok).every((o) => o.balance === 0)).toBe(true);
        expect(outcomes.filter((o) => o.ok).map((o) => o.balance).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
        expect(await store.credits.balance('k1', PERIOD, at(2))).toBe(0);
        const ledger = await store.credits.ledger('k1');
        expect(ledger).toHaveLength(50);
        expect(ledger.every((e) => e.reason === 'charge' && e.delta === -1)).toBe(true);
        // In ledger order, each charge saw the balance the previous one left.
        expect(ledger.map((e) => e.balance_after)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
        expect(new Set(ledger.map((e) => e.ref)).size).toBe(50);
        expect((await store.keys.get('k2'))?.balance).toBe(5);
      });
    });

    // ---- idempotency ------------------------------------------------------------------------

    describe('idempotency', () => {
      beforeEach(async () => {
        await key('k1');
        await key('k2');
      });

      it('new, in_progress, mismatch, complete, replay; claims are per key', async () => {
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(1), at(-60))).toEqual({ state: 'in_progress' });
        expect(await store.idempotency.begin('k1', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'mismatch' });
        expect(await store.idempotency.begin('k2', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'new' });
        await store.idempotency.complete('k1', 'i1', { status: 201, body: '{"id":"x"}' }, at(2));
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(3), at(-60))).toEqual({ state: 'replay', status: 201, body: '{"id":"x"}' });
        expect(await store.idempotency.begin('k1', 'i1', 'h2', at(3), at(-60))).toEqual({ state: 'mismatch' });
        // k2's claim on the same idempotency key is untouched.
        expect(await store.idempotency.begin('k2', 'i1', 'h2', at(4), at(-60))).toEqual({ state: 'in_progress' });
        // A completed response is replayed even long after (only unfinished claims go stale).
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(10_000), at(9_000))).toEqual({ state: 'replay', status: 201, body: '{"id":"x"}' });
      });

      it('a stale claim (created_at < staleBefore) is taken over, and then held again', async () => {
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
        // created_at == staleBefore is not stale.
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(30), at(0))).toEqual({ state: 'in_progress' });
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(100), at(50))).toEqual({ state: 'new' });
        // The takeover restarted the clock: same cutoff, no longer stale.
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(101), at(50))).toEqual({ state: 'in_progress' });
        // A stale claim with another body is still a mismatch.
        expect(await store.idempotency.begin('k1', 'i1', 'h9', at(500), at(400))).toEqual({ state: 'mismatch' });
      });

      it('release drops an uncompleted claim only', async () => {
        expect(await store.idempotency.begin('k1', 'i1', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
        await store.idempotency.release('k1', 'i1');
        // Gone: even another body starts afresh.
        expect(await store.idempotency.begin('k1', 'i1', 'h2', at(1), at(-60))).toEqual({ state: 'new' });

        expect(await store.idempotency.begin('k1', 'i2', 'h1', at(0), at(-60))).toEqual({ state: 'new' });
        await store.idempotency.complete('k1', 'i2', { status: 200, body: 'ok' }, at(1));
        await store.idempotency.release('k1', 'i2');
        expect(await store.idempotency.begin('k1', 'i2', 'h1', at(2), at(-60))).toEqual({ state: 'replay', status: 200, body: 'ok' });
        await store.idempotency.release('k1', 'unknown');
      });

      it('CONCURRENCY: concurrent begins of one new claim: exactly one is new', async () => {
        const outcomes = await Promise.all(Array.from({ length: 20 }, () => store.idempotency.begin('k1', 'race', 'h1', at(0), at(-60))));
        expect(count(outcomes, (o) => o.state === 'new')).toBe(1);
        expect(count(outcomes, (o) => o.state === 'in_progress')).toBe(19);
      });
    });

    // ---- insurers, registry, sanctions --------------------------------------------------------

    describe('insurers', () => {
      it('upsertMany stores rows; aliases, booleans and nulls round-trip; listByCountry ordered by reference', async () => {
        const hdi = insurer('5096', {
          name: 'HDI Global SE',
          aliases: ['HDI', 'HDI Global SE "Köln"', 'Zürich-Ä'],
          lei: '529900HIAVGO0W1ROX75',
          source_detail: 'eiopa/register.csv@abc123',
          updated_at: '2026-11-02T10:00:00.000Z',
        });
        const demo = insurer('300', { scheme: 'demo', name: 'Demo Versicherung', regulated: 'NO', authorised: false, demo: true, priority: 10, source: 'demo', updated_at: at(5) });
        const other = insurer('1008', { name: 'Allianz', aliases: ['Allianz Versicherungs-AG'] });
        const uk = insurer('202153', { country: 'UK', scheme: 'fca_frn', name: 'Aviva' });
        expect(await store.insurers.upsertMany([hdi, demo, other, uk])).toBe(4);
        expect(await store.insurers.listByCountry('DE')).toEqual([other, demo, hdi]);
        expect(await store.insurers.listByCountry('UK')).toEqual([uk]);
        expect(await store.insurers.listByCountry('FR')).toEqual([]);
        expect(await store.insurers.get('DE', '5096')).toEqual(hdi);
        expect(await store.insurers.get('DE', '300')).toEqual(demo);
        expect(await store.insurers.get('UK', '5096')).toBeNull();
        expect(await store.insurers.count()).toBe(4);
      });

      it('a lower priority never replaces a row; an equal or higher one does', async () => {
        const base = insurer('5096', { name: 'HDI Global SE', aliases: ['HDI'], priority: 20, source: 'de-vu-list' });
        expect(await store.insurers.upsertMany([base])).toBe(1);
        const lower = insurer('5096', { name: 'HDI (demo)', aliases: [], demo: true, authorised: false, priority: 10, source: 'demo', updated_at: at(1) });
        expect(await store.insurers.upsertMany([lower])).toBe(0);
        expect(await store.insurers.get('DE', '5096')).toEqual(base);
        const equal = insurer('5096', { name: 'HDI Global SE (list 2)', aliases: ['HDI2'], priority: 20, source: 'de-vu-list', updated_at: at(2) });
        expect(await store.insurers.upsertMany([equal])).toBe(1);
        expect(await store.insurers.get('DE', '5096')).toEqual(equal);
        const higher = insurer('5096', { name: 'HDI Global SE (regulator)', lei: 'LEI1', priority: 30, source: 'eiopa-register', updated_at: at(3) });
        expect(await store.insurers.upsertMany([higher])).toBe(1);
        expect(await store.insurers.get('DE', '5096')).toEqual(higher);
        // A mixed batch: the skipped row is not counted, the new one is.
        expect(await store.insurers.upsertMany([{ ...lower, updated_at: at(4) }, insurer('777')])).toBe(1);
        expect(await store.insurers.get('DE', '5096')).toEqual(higher);
        expect(await store.insurers.count()).toBe(2);
      });

      it('version() changes on insurer upserts and on sanctions.replaceList, not on reads', async () => {
        const v0 = await store.insurers.version();
        expect(await store.insurers.version()).toBe(v0);
        await store.insurers.upsertMany([insurer('1')]);
        const v1 = await store.insurers.version();
        expect(v1).toBeGreaterThan(v0);
        await store.insurers.listByCountry('DE');
        await store.insurers.get('DE', '1');
        expect(await store.insurers.version()).toBe(v1);
        await store.insurers.upsertMany([insurer('1', { name: 'renamed' })]);
        const v2 = await store.insurers.version();
        expect(v2).toBeGreaterThan(v1);
        await store.sanctions.replaceList('eu', [{ name: 'X', country: null, list: 'eu', reference: null, demo: false }]);
        const v3 = await store.insurers.version();
        expect(v3).toBeGreaterThan(v2);
        await store.sanctions.replaceList('eu', []);
        expect(await store.insurers.version()).toBeGreaterThan(v3);
      });
    });

    describe('registry', () => {
      it('upsertMany stores policies; find returns every insurance type of a number in that country', async () => {
        const motor = policy('P1');
        const travel = policy('P1', { insurance_type: 'travel', insurer_reference: null, start_date: null, end_date: null, vehicle_registration: null, status: 'lapsed', demo: true, source: 'demo' });
        const de = policy('P1', { country: 'DE', insurer_reference: '5096', status: 'suspended' });
        const p2 = policy('P2', { status: 'cancelled' });
        expect(await store.registry.upsertMany([motor, travel, de, p2])).toBe(4);
        const found = (await store.registry.find('UK', 'P1')).sort((a, b) => a.insurance_type.localeCompare(b.insurance_type));
        expect(found).toEqual([motor, travel]);
        expect(await store.registry.find('DE', 'P1')).toEqual([de]);
        expect(await store.registry.find('UK', 'P2')).toEqual([p2]);
        expect(await store.registry.find('FR', 'P1')).toEqual([]);
        expect(await store.registry.find('UK', 'P3')).toEqual([]);
        expect(await store.registry.count()).toBe(4);
      });

      it('upserts on (country, policy_number, insurance_type)', async () => {
        await store.registry.upsertMany([policy('P1'), policy('P1', { insurance_type: 'health' })]);
        const updated = policy('P1', { status: 'cancelled', end_date: '2026-06-30', insurer_reference: '999', vehicle_registration: null, source: 'mid-2', demo: true });
        expect(await store.registry.upsertMany([updated])).toBe(1);
        const found = (await store.registry.find('UK', 'P1')).sort((a, b) => a.insurance_type.localeCompare(b.insurance_type));
        expect(found).toEqual([policy('P1', { insurance_type: 'health' }), updated]);
        expect(await store.registry.count()).toBe(2);
      });

      it('coverage: set and read; demo only stays set while every source for it is demo; demo_covered once any demo source covers it', async () => {
        await store.registry.setCoverage([
          { country: 'UK', insurance_type: 'motor', source: 'demo', demo: true, updated_at: at(0) },
          { country: 'DE', insurance_type: 'travel', source: 'de-list', demo: false, updated_at: at(0) },
        ]);
        expect(await store.registry.coverage('UK', 'motor')).toEqual({ country: 'UK', insurance_type: 'motor', source: 'demo', demo: true, demo_covered: true, updated_at: at(0) });
        expect(await store.registry.coverage('DE', 'travel')).toEqual({ country: 'DE', insurance_type: 'travel', source: 'de-list', demo: false, demo_covered: false, updated_at: at(0) });
        expect(await store.registry.coverage('FR', 'health')).toBeNull();
        expect(await store.registry.coverage('UK', 'travel')).toBeNull();
        // demo again: still demo.
        await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'demo-2', demo: true, updated_at: at(1) }]);
        expect(await store.registry.coverage('UK', 'motor')).toEqual({ country: 'UK', insurance_type: 'motor', source: 'demo-2', demo: true, demo_covered: true, updated_at: at(1) });
        // Real data arrives: no longer demo, but the demo source still covers it (the sandbox's view).
        await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'mid-extract', demo: false, updated_at: at(2) }]);
        expect(await store.registry.coverage('UK', 'motor')).toEqual({ country: 'UK', insurance_type: 'motor', source: 'mid-extract', demo: false, demo_covered: true, updated_at: at(2) });
        // A later demo load does not turn real coverage back into demo (source and time do change).
        await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'demo', demo: true, updated_at: at(3) }]);
        expect(await store.registry.coverage('UK', 'motor')).toEqual({ country: 'UK', insurance_type: 'motor', source: 'demo', demo: false, demo_covered: true, updated_at: at(3) });
        // Real coverage that a demo load reaches later becomes demo-covered too.
        await store.registry.setCoverage([{ country: 'DE', insurance_type: 'travel', source: 'demo', demo: true, updated_at: at(4) }]);
        expect(await store.registry.coverage('DE', 'travel')).toMatchObject({ demo: false, demo_covered: true });
      });
    });

    describe('sanctions', () => {
      it('replaceList replaces only that list; all() is ordered by list, then name', async () => {
        expect(
          await store.sanctions.replaceList('eu', [
            { name: 'Zeta Holdings', country: 'DE', list: 'eu', reference: 'EU.123', demo: false },
            { name: 'Alpha Trading', country: null, list: 'eu', reference: null, demo: true },
          ]),
        ).toBe(2);
        expect(await store.sanctions.replaceList('uk-ofsi', [{ name: 'Beta LLC', country: 'UK', list: 'uk-ofsi', reference: 'OFSI-9', demo: false }])).toBe(1);
        expect(await store.sanctions.all()).toEqual([
          { name: 'Alpha Trading', country: null, list: 'eu', reference: null, demo: true },
          { name: 'Zeta Holdings', country: 'DE', list: 'eu', reference: 'EU.123', demo: false },
          { name: 'Beta LLC', country: 'UK', list: 'uk-ofsi', reference: 'OFSI-9', demo: false },
        ]);
        expect(await store.sanctions.replaceList('eu', [{ name: 'Gamma SA', country: 'FR', list: 'eu', reference: null, demo: false }])).toBe(1);
        expect((await store.sanctions.all()).map((s) => `${s.list}/${s.name}`)).toEqual(['eu/Gamma SA', 'uk-ofsi/Beta LLC']);
        expect(await store.sanctions.replaceList('eu', [])).toBe(0);
        expect((await store.sanctions.all()).map((s) => `${s.list}/${s.name}`)).toEqual(['uk-ofsi/Beta LLC']);
      });
    });

    // ---- jobs -------------------------------------------------------------------------------

    describe('jobs', () => {
      beforeEach(async () => {
        await key('k1', { allowance: 10 });
      });

      it('create without a reservation stores a pending job', async () => {
        expect(await store.jobs.create(newJob('j1', { created_at: at(3) }), null)).toEqual({ ok: true });
        expect(await store.jobs.get('j1')).toEqual({
          id: 'j1',
          key_id: 'k1',
          kind: 'verification',
          status: 'pending',
          payload: '{"policy_number":"j1"}',
          result: null,
          error: null,
          webhook_url: null,
          reserved: 0,
          charged: 0,
          attempts: 0,
          lease_owner: null,
          lease_until: null,
          created_at: at(3),
          updated_at: at(3),
          completed_at: null,
          finished_by: null,
          document_bytes: null,
          document_outcome: null,
          sheet_target: null,
        });
        expect(await store.jobs.document('j1')).toBeNull();
        expect(await store.jobs.get('nope')).toBeNull();
        expect(await store.jobs.document('nope')).toBeNull();
        expect(await store.credits.ledger('k1')).toEqual([]);
      });

      it('create with a reservation and a document: credits reserved in the same step, bytes kept exactly', async () => {
        const doc = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2, 0xfe, 0xff, 0, 10, 13]), Buffer.alloc(70_000, 0xab)]);
        const target = JSON.stringify({ spreadsheet_id: 'sheet-1', sheet: 'Policies' });
        const job = newJob('j2', { kind: 'extraction', webhook_url: 'https://hooks.example.com/x', sheet_target: target, document: doc, created_at: at(1) });
        expect(await store.jobs.create(job, { amount: 3, period: PERIOD, ref: 'job:j2' })).toEqual({ ok: true });
        expect(await store.jobs.get('j2')).toMatchObject({ kind: 'extraction', reserved: 3, charged: 0, webhook_url: 'https://hooks.example.com/x', sheet_target: target, document_bytes: doc.length });
        const stored = await store.jobs.document('j2');
        expect(Buffer.isBuffer(stored)).toBe(true);
        expect(stored!.equals(doc)).toBe(true);
        expect((await store.keys.get('k1'))?.balance).toBe(7);
        const ledger = await store.credits.ledger('k1');
        expect(ledger.map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at }))).toEqual([
          { delta: -3, reason: 'reserve', ref: 'job:j2', balance_after: 7, created_at: at(1) },
        ]);
        // A reservation of 0 reserves nothing and writes no ledger row.
        expect(await store.jobs.create(newJob('j3'), { amount: 0, period: PERIOD, ref: 'job:j3' })).toEqual({ ok: true });
        expect((await store.jobs.get('j3'))?.reserved).toBe(0);
        expect(await store.credits.ledger('k1')).toHaveLength(1);
      });

      it('create is refused with the balance when the reservation cannot be covered; nothing is inserted', async () => {
        await store.jobs.create(newJob('j1'), { amount: 4, period: PERIOD, ref: 'job:j1' });
        const doc = Buffer.from('pdf bytes');
        expect(await store.jobs.create(newJob('j2', { kind: 'extraction', document: doc }), { amount: 7, period: PERIOD, ref: 'job:j2' })).toEqual({ ok: false, balance: 6 });
        expect(await store.jobs.get('j2')).toBeNull();
        expect(await store.jobs.document('j2')).toBeNull();
        expect(await store.jobs.pendingCount('extraction')).toBe(0);
        expect((await store.keys.get('k1'))?.balance).toBe(6);
        expect(await store.credits.ledger('k1')).toHaveLength(1);
        // The id is still free.
        expect(await store.jobs.create(newJob('j2'), { amount: 6, period: PERIOD, ref: 'job:j2' })).toEqual({ ok: true });
        expect((await store.keys.get('k1'))?.balance).toBe(0);
      });

      it('pendingCount counts pending jobs by kind', async () => {
        await store.jobs.create(newJob('v1'), null);
        await store.jobs.create(newJob('v2'), null);
        await store.jobs.create(newJob('e1', { kind: 'extraction' }), null);
        expect(await store.jobs.pendingCount('verification')).toBe(2);
        expect(await store.jobs.pendingCount('extraction')).toBe(1);
        const leased = await store.jobs.lease('w1', at(1), at(61));
        expect(leased?.id).toBe('e1'); // same created_at: by id
        // Leased is still pending.
        expect(await store.jobs.pendingCount('extraction')).toBe(1);
        await store.jobs.finish(finishOf('e1', 'w1'));
        expect(await store.jobs.pendingCount('extraction')).toBe(0);
        expect(await store.jobs.pendingCount('verification')).toBe(2);
      });

      it('pendingDocuments counts one key\'s pending jobs that carry a document: extractions and verifications with one', async () => {
        await key('k2');
        const doc = Buffer.from('pdf bytes');
        await store.jobs.create(newJob('e1', { kind: 'extraction', document: doc }), null);
        await store.jobs.create(newJob('v1', { document: doc }), null);
        await store.jobs.create(newJob('v2'), null); // no document
        await store.jobs.create(newJob('e2', { kind: 'extraction', document: doc, key_id: 'k2' }), null);
        expect(await store.jobs.pendingDocuments('k1')).toBe(2);
        expect(await store.jobs.pendingDocuments('k2')).toBe(1);
        expect(await store.jobs.pendingDocuments('k3')).toBe(0);
        expect((await store.jobs.lease('w1', at(1), at(61)))?.id).toBe('e1');
        await store.jobs.finish(finishOf('e1', 'w1'));
        expect(await store.jobs.pendingDocuments('k1')).toBe(1);
      });

      it('lease: oldest first (created_at, then id); not leased again until lease_until passes; attempts count', async () => {
        await store.jobs.create(newJob('jb', { created_at: at(10) }), null);
        await store.jobs.create(newJob('ja', { created_at: at(10) }), null);
        await store.jobs.create(newJob('jc', { created_at: at(5) }), null);
        const first = await store.jobs.lease('w1', at(20), at(80));
        expect(first).toMatchObject({ id: 'jc', status: 'pending', lease_owner: 'w1', lease_until: at(80), attempts: 1 });
        expect(await store.jobs.get('jc')).toMatchObject({ lease_owner: 'w1', lease_until: at(80), attempts: 1 });
        expect((await store.jobs.lease('w2', at(21), at(81)))?.id).toBe('ja');
        expect((await store.jobs.lease('w3', at(22), at(82)))?.id).toBe('jb');
        expect(await store.jobs.lease('w4', at(79), at(139))).toBeNull();
        // jc's lease has passed: another worker takes it over.
        expect(await store.jobs.lease('w4', at(80.5), at(200))).toMatchObject({ id: 'jc', lease_owner: 'w4', lease_until: at(200), attempts: 2 });
        // renew: only by the current owner.
        expect(await store.jobs.renew('jc', 'w1', at(300))).toBe(false);
        expect(await store.jobs.renew('jc', 'w4', at(300))).toBe(true);
        expect((await store.jobs.get('jc'))?.lease_until).toBe(at(300));
        expect(await store.jobs.renew('nope', 'w4', at(300))).toBe(false);
        // At 250 the renewed jc is still held; ja (expired at 81) is the oldest free one.
        expect(await store.jobs.lease('w5', at(250), at(400))).toMatchObject({ id: 'ja', lease_owner: 'w5', attempts: 2 });
        expect(await store.jobs.lease('w5', at(250), at(400))).toMatchObject({ id: 'jb', lease_owner: 'w5', attempts: 2 });
        expect(await store.jobs.lease('w5', at(250), at(400))).toBeNull();
      });

      it('finish: only by the current owner, once; result, settlement, outbox and write-back in one step', async () => {
        await store.jobs.create(newJob('j1', { webhook_url: 'https://hooks.example.com/x' }), { amount: 3, period: PERIOD, ref: 'job:j1' });
        expect(await store.jobs.finish(finishOf('j1', 'w1'))).toBe(false); // never leased
        await store.jobs.lease('w1', at(1), at(61));
        const outbox = outboxRow('o1', { subject_id: 'j1', created_at: at(50) });
        const writeback = writebackRow('wb1', { subject_id: 'j1', created_at: at(50) });
        const finish = finishOf('j1', 'w1', {
          result: '{"status":"valid"}',
          settlement: { charge: 1, refund: 2, ref: 'job:j1' },
          outbox,
          writeback,
          document_outcome: '{"pages":2}',
          at: at(50),
        });
        expect(await store.jobs.finish({ ...finish, owner: 'w2' })).toBe(false);
        expect(await store.jobs.get('j1')).toMatchObject({ status: 'pending', lease_owner: 'w1', result: null, charged: 0 });
        expect(await store.outbox.get('o1')).toBeNull();
        expect((await store.keys.get('k1'))?.balance).toBe(7);

        expect(await store.jobs.finish(finish)).toBe(true);
        expect(await store.jobs.get('j1')).toMatchObject({
          status: 'complete',
          result: '{"status":"valid"}',
          error: null,
          reserved: 3,
          charged: 1,
          lease_owner: null,
          lease_until: null,
          finished_by: 'w1',
          updated_at: at(50),
          completed_at: at(50),
          document_outcome: '{"pages":2}',
          attempts: 1,
        });
        expect((await store.keys.get('k1'))?.balance).toBe(9);
        const ledger = await store.credits.ledger('k1');
        expect(ledger.map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at }))).toEqual([
          { delta: -3, reason: 'reserve', ref: 'job:j1', balance_after: 7, created_at: at(0) },
          { delta: 2, reason: 'refund', ref: 'job:j1', balance_after: 9, created_at: at(50) },
        ]);
        expect(await store.outbox.get('o1')).toEqual({ ...outbox, status: 'pending', attempts: 0, next_attempt_at: at(50), last_status: null, last_error: null, delivered_at: null });
        expect(await store.writebacks.forSubject('j1')).toEqual({
          ...writeback,
          status: 'pending',
          attempts: 0,
          next_attempt_at: at(50),
          written: 0,
          missing: [],
          last_error: null,
          updated_at: at(50),
        });

        // Once: a second finish (even by the same owner) changes nothing.
        expect(await store.jobs.finish({ ...finish, result: '{"status":"other"}', outbox: outboxRow('o2', { subject_id: 'j1' }), writeback: writebackRow('wb2', { subject_id: 'j1' }) })).toBe(false);
        expect((await store.jobs.get('j1'))?.result).toBe('{"status":"valid"}');
        expect(await store.credits.ledger('k1')).toHaveLength(2);
        expect(await store.outbox.forSubject('j1')).toHaveLength(1);
        expect(await store.outbox.get('o2')).toBeNull();
        expect((await store.writebacks.forSubject('j1'))?.id).toBe('wb1');
        expect(await store.jobs.renew('j1', 'w1', at(500))).toBe(false);
        expect(await store.jobs.lease('w9', at(10_000), at(10_060))).toBeNull();
      });

      it('finish as failed with an error; a zero refund writes no ledger row; no outbox, no write-back', async () => {
        await store.jobs.create(newJob('j1'), { amount: 2, period: PERIOD, ref: 'job:j1' });
        await store.jobs.lease('w1', at(1), at(61));
        expect(await store.jobs.finish(finishOf('j1', 'w1', { status: 'failed', result: null, error: '{"code":"extraction_failed"}', settlement: { charge: 2, refund: 0, ref: 'job:j1' }, at: at(9) }))).toBe(true);
        expect(await store.jobs.get('j1')).toMatchObject({ status: 'failed', result: null, error: '{"code":"extraction_failed"}', charged: 2, completed_at: at(9), document_outcome: null });
        expect((await store.credits.ledger('k1')).map((e) => e.reason)).toEqual(['reserve']);
        expect((await store.keys.get('k1'))?.balance).toBe(8);
        expect(await store.outbox.forSubject('j1')).toEqual([]);
        expect(await store.writebacks.forSubject('j1')).toBeNull();
      });

      it('release: lease cleared, lease_until = retryAt; not leased again before retryAt; only the owner releases', async () => {
        await store.jobs.create(newJob('j1'), null);
        expect((await store.jobs.lease('w1', at(10), at(70)))?.attempts).toBe(1);
        await store.jobs.release('j1', 'w2', at(500));
        expect(await store.jobs.get('j1')).toMatchObject({ lease_owner: 'w1', lease_until: at(70) });
        await store.jobs.release('j1', 'w1', at(100));
        expect(await store.jobs.get('j1')).toMatchObject({ status: 'pending', lease_owner: null, lease_until: at(100), attempts: 1 });
        expect(await store.jobs.lease('w2', at(50), at(110))).toBeNull();
        expect(await store.jobs.renew('j1', 'w1', at(200))).toBe(false);
        expect(await store.jobs.lease('w2', at(101), at(161))).toMatchObject({ id: 'j1', lease_owner: 'w2', attempts: 2 });
        expect(await store.jobs.finish(finishOf('j1', 'w1'))).toBe(false);
        expect(await store.jobs.finish(finishOf('j1', 'w2'))).toBe(true);
        // Releasing a finished job changes nothing.
        await store.jobs.release('j1', 'w2', at(900));
        expect(await store.jobs.get('j1')).toMatchObject({ status: 'complete', lease_owner: null, lease_until: null, finished_by: 'w2' });
      });

      it('CONCURRENCY: concurrent finishes of one job by its owner: exactly one wins, one refund', async () => {
        await store.jobs.create(newJob('j1'), { amount: 5, period: PERIOD, ref: 'job:j1' });
        await store.jobs.lease('w1', at(1), at(61));
        const f = finishOf('j1', 'w1', { settlement: { charge: 1, refund: 4, ref: 'job:j1' } });
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => store.jobs.finish({ ...f, outbox: outboxRow(`o${i}`, { subject_id: 'j1' }) })));
        expect(count(results, (r) => r)).toBe(1);
        expect((await store.keys.get('k1'))?.balance).toBe(9);
        expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(1);
        expect(await store.outbox.forSubject('j1')).toHaveLength(1);
      });

      it('CONCURRENCY: 200 jobs, 8 concurrent workers: every job finished exactly once, never held by two owners', async () => {
        await store.credits.adjust('k1', { allowance: 1000, set: 1000 }, at(0));
        const N = 200;
        const created = await Promise.all(
          Array.from({ length: N }, (_, i) => store.jobs.create(newJob(`job-${String(i).padStart(3, '0')}`, { created_at: at(i % 17) }), { amount: 1, period: PERIOD, ref: `job:${i}` })),
        );
        expect(created.every((c) => c.ok)).toBe(true);
        expect((await store.keys.get('k1'))?.balance).toBe(1000 - N);
        expect(await store.jobs.pendingCount('verification')).toBe(N);

        const holder = new Map<string, string>();
        const finished = new Map<string, number>();
        const problems: string[] = [];
        const NOW = at(1000);
        const UNTIL = at(100_000);
        async function worker(w: number): Promise<void> {
          const owner = `worker-${w}`;
          const intruder = `worker-${(w + 1) % 8}`;
          for (;;) {
            const job = await store.jobs.lease(owner, NOW, UNTIL);
            if (!job) return;
            if (job.lease_owner !== owner) problems.push(`${job.id} leased to ${owner} but owned by ${job.lease_owner}`);
            const other = holder.get(job.id);
            if (other) problems.push(`${job.id} leased by ${owner} while held by ${other}`);
            holder.set(job.id, owner);
            const n = Number(job.id.slice(4));
            if (job.attempts === 1 && n % 5 === 0) {
              // Give every fifth job back once: another worker may take it right away.
              holder.delete(job.id);
              await store.jobs.release(job.id, owner, at(999));
              continue;
            }
            if (await store.jobs.finish(finishOf(job.id, intruder, { at: NOW }))) problems.push(`${job.id} finished by non-owner ${intruder}`);
            const refund = n % 2 === 0 ? 1 : 0;
            const ok = await store.jobs.finish(
              finishOf(job.id, owner, { settlement: { charge: 1 - refund, refund, ref: `job:${n}` }, outbox: outboxRow(`out-${job.id}`, { subject_id: job.id, created_at: NOW }), at: NOW }),
            );
            holder.delete(job.id);
            if (!ok) problems.push(`${job.id} finish by owner ${owner} refused`);
            else finished.set(job.id, (finished.get(job.id) ?? 0) + 1);
          }
        }
        await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));

        expect(problems).toEqual([]);
        expect(finished.size).toBe(N);
        expect([...finished.values()].every((n) => n === 1)).toBe(true);
        expect(await store.jobs.pendingCount('verification')).toBe(0);
        const jobs = await Promise.all(Array.from({ length: N }, (_, i) => store.jobs.get(`job-${String(i).padStart(3, '0')}`)));
        expect(jobs.every((j) => j?.status === 'complete' && j.lease_owner === null)).toBe(true);
        expect(jobs.map((j) => j!.attempts)).toEqual(Array.from({ length: N }, (_, i) => (i % 5 === 0 ? 2 : 1)));
        expect(jobs.map((j) => j!.charged)).toEqual(Array.from({ length: N }, (_, i) => (i % 2 === 0 ? 0 : 1)));
        expect((await store.keys.get('k1'))?.balance).toBe(1000 - N + N / 2);
        expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(N / 2);
        expect((await store.outbox.list('k1', { limit: 1, offset: 0 })).total).toBe(N);
      });
    });

    // ---- batches ----------------------------------------------------------------------------

    describe('batches', () => {
      const items: NewBatch['items'] = [
        { idx: 0, policy_number: 'P0', input: '{"policy_number":"P0"}', state: 'pending', result: null, error: null, reserved: 1 },
        { idx: 1, policy_number: null, input: '{"bad":true}', state: 'done', result: null, error: '{"code":"invalid_input"}', reserved: 0 },
        { idx: 2, policy_number: 'P2', input: '{"policy_number":"P2"}', state: 'pending', result: null, error: null, reserved: 1 },
      ];
      const newBatch = (id: string, over: Partial<NewBatch> = {}): NewBatch => ({
        id,
        key_id: 'k1',
        webhook_url: 'https://hooks.example.com/b',
        created_at: at(0),
        items: [items[2]!, items[0]!, items[1]!],
        ...over,
      });

      beforeEach(async () => {
        await key('k1', { allowance: 10 });
      });

      it('create with items: refused ones count as completed; items in idx order; credits reserved', async () => {
        expect(await store.batches.create(newBatch('b1', { created_at: at(4) }), { amount: 2, period: PERIOD, ref: 'batch:b1' })).toEqual({ ok: true });
        expect(await store.batches.get('b1')).toEqual({
          id: 'b1',
          key_id: 'k1',
          status: 'pending',
          total_count: 3,
          completed_count: 1,
          webhook_url: 'https://hooks.example.com/b',
          sheet_target: null,
          attempts: 0,
          lease_owner: null,
          lease_until: null,
          created_at: at(4),
          updated_at: at(4),
          completed_at: null,
        });
        expect(await store.batches.items('b1')).toEqual(items.map((i) => ({ ...i, batch_id: 'b1', charged: 0 })));
        expect((await store.keys.get('k1'))?.balance).toBe(8);
        expect((await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after }) => ({ delta, reason, ref, balance_after }))).toEqual([
          { delta: -2, reason: 'reserve', ref: 'batch:b1', balance_after: 8 },
        ]);
        expect(await store.batches.get('nope')).toBeNull();
        expect(await store.batches.items('nope')).toEqual([]);
        const target = JSON.stringify({ spreadsheet_id: 's', sheet: 'x' });
        expect(await store.batches.create(newBatch('b2', { sheet_target: target, webhook_url: null }), null)).toEqual({ ok: true });
        expect(await store.batches.get('b2')).toMatchObject({ sheet_target: target, webhook_url: null, total_count: 3, completed_count: 1 });
      });

      it('create is refused with the balance when the reservation cannot be covered; nothing is inserted', async () => {
        expect(await store.batches.create(newBatch('b1'), { amount: 11, period: PERIOD, ref: 'batch:b1' })).toEqual({ ok: false, balance: 10 });
        expect(await store.batches.get('b1')).toBeNull();
        expect(await store.batches.items('b1')).toEqual([]);
        expect(await store.credits.ledger('k1')).toEqual([]);
        expect(await store.batches.lease('w1', at(1), at(61))).toBeNull();
      });

      it('lease oldest first; not again while leased; renew only by the owner; release until retryAt', async () => {
        await store.batches.create(newBatch('bb', { created_at: at(5) }), null);
        await store.batches.create(newBatch('ba', { created_at: at(5) }), null);
        await store.batches.create(newBatch('bc', { created_at: at(1) }), null);
        expect(await store.batches.lease('w1', at(10), at(70))).toMatchObject({ id: 'bc', lease_owner: 'w1', lease_until: at(70), attempts: 1, status: 'pending' });
        expect((await store.batches.lease('w2', at(10), at(70)))?.id).toBe('ba');
        expect((await store.batches.lease('w3', at(10), at(70)))?.id).toBe('bb');
        expect(await store.batches.lease('w4', at(60), at(120))).toBeNull();
        expect(await store.batches.renew('bc', 'w2', at(200))).toBe(false);
        expect(await store.batches.renew('bc', 'w1', at(200))).toBe(true);
        expect((await store.batches.get('bc'))?.lease_until).toBe(at(200));
        await store.batches.release('ba', 'w1', at(500)); // not the owner: no effect
        expect(await store.batches.get('ba')).toMatchObject({ lease_owner: 'w2', lease_until: at(70) });
        await store.batches.release('ba', 'w2', at(300));
        expect(await store.batches.get('ba')).toMatchObject({ lease_owner: null, lease_until: at(300) });
        // At 100: bc renewed (200), ba released until 300, bb expired (70).
        expect(await store.batches.lease('w4', at(100), at(160))).toMatchObject({ id: 'bb', lease_owner: 'w4', attempts: 2 });
        expect(await store.batches.lease('w4', at(100), at(160))).toBeNull();
        expect(await store.batches.lease('w5', at(301), at(400))).toMatchObject({ id: 'bc', lease_owner: 'w5', attempts: 2 });
        expect(await store.batches.lease('w5', at(301), at(400))).toMatchObject({ id: 'ba', lease_owner: 'w5', attempts: 2 });
        expect(await store.batches.renew('bc', 'w1', at(900))).toBe(false);
      });

      it('finishItem: only the owner, once per item; completed_count, processing, settlement', async () => {
        await store.batches.create(newBatch('b1'), { amount: 2, period: PERIOD, ref: 'batch:b1' });
        const base = { batch_id: 'b1', result: '{"status":"valid"}', error: null, at: at(20) };
        expect(await store.batches.finishItem({ ...base, idx: 0, owner: 'w1', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } })).toBe(false); // not leased
        await store.batches.lease('w1', at(10), at(70));
        expect(await store.batches.finishItem({ ...base, idx: 0, owner: 'w2', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } })).toBe(false);
        expect((await store.batches.get('b1'))?.completed_count).toBe(1);

        expect(await store.batches.finishItem({ ...base, idx: 0, owner: 'w1', settlement: { charge: 1, refund: 0, ref: 'batch:b1:0' } })).toBe(true);
        expect(await store.batches.get('b1')).toMatchObject({ completed_count: 2, status: 'processing', lease_owner: 'w1', updated_at: at(20) });
        expect(await store.batches.finishItem({ ...base, idx: 0, owner: 'w1', result: '{"again":1}', settlement: { charge: 0, refund: 1, ref: 'batch:b1:0' } })).toBe(false);
        expect(await store.batches.finishItem({ ...base, idx: 1, owner: 'w1', settlement: { charge: 0, refund: 0, ref: 'batch:b1:1' } })).toBe(false); // done at submission
        expect(await store.batches.finishItem({ ...base, idx: 99, owner: 'w1', settlement: { charge: 0, refund: 0, ref: 'batch:b1:99' } })).toBe(false);
        expect((await store.batches.get('b1'))?.completed_count).toBe(2);

        expect(await store.batches.finishItem({ batch_id: 'b1', idx: 2, owner: 'w1', result: null, error: '{"code":"upstream"}', settlement: { charge: 0, refund: 1, ref: 'batch:b1:2' }, at: at(21) })).toBe(true);
        expect(await store.batches.get('b1')).toMatchObject({ completed_count: 3, total_count: 3, status: 'processing' });
        expect(await store.batches.items('b1')).toEqual([
          { ...items[0]!, batch_id: 'b1', state: 'done', result: '{"status":"valid"}', error: null, charged: 1 },
          { ...items[1]!, batch_id: 'b1', charged: 0 },
          { ...items[2]!, batch_id: 'b1', state: 'done', result: null, error: '{"code":"upstream"}', charged: 0 },
        ]);
        expect((await store.keys.get('k1'))?.balance).toBe(9);
        expect((await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({ delta, reason, ref, balance_after, created_at }))).toEqual([
          { delta: -2, reason: 'reserve', ref: 'batch:b1', balance_after: 8, created_at: at(0) },
          { delta: 1, reason: 'refund', ref: 'batch:b1:2', balance_after: 9, created_at: at(21) },
        ]);
      });

      it('complete: only with no pending item, by the owner, once; outbox and write-back queued with it', async () => {
        await store.batches.create(newBatch('b1'), null);
        await store.batches.lease('w1', at(10), at(70));
        const outbox = outboxRow('ob1', { subject_id: 'b1', event_type: 'batch.completed', created_at: at(60) });
        const writeback = writebackRow('wb1', { subject_type: 'batch', subject_id: 'b1', created_at: at(60) });
        expect(await store.batches.complete('b1', 'w1', outbox, at(60), writeback)).toBe(false); // items pending
        expect(await store.outbox.get('ob1')).toBeNull();
        expect(await store.writebacks.forSubject('b1')).toBeNull();
        for (const idx of [0, 2]) {
          expect(await store.batches.finishItem({ batch_id: 'b1', idx, owner: 'w1', result: '{}', error: null, settlement: { charge: 0, refund: 0, ref: `i${idx}` }, at: at(30) })).toBe(true);
        }
        expect(await store.batches.complete('b1', 'w2', outbox, at(60), writeback)).toBe(false);
        expect(await store.batches.complete('b1', 'w1', outbox, at(60), writeback)).toBe(true);
        expect(await store.batches.get('b1')).toMatchObject({ status: 'complete', completed_count: 3, lease_owner: null, lease_until: null, completed_at: at(60), updated_at: at(60) });
        expect(await store.outbox.get('ob1')).toMatchObject({ ...outbox, status: 'pending', attempts: 0, next_attempt_at: at(60) });
        expect(await store.writebacks.forSubject('b1')).toMatchObject({ ...writeback, status: 'pending', attempts: 0, next_attempt_at: at(60) });
        expect(await store.batches.complete('b1', 'w1', outboxRow('ob2', { subject_id: 'b1' }), at(61), writebackRow('wb2', { subject_id: 'b1' }))).toBe(false);
        expect(await store.outbox.forSubject('b1')).toHaveLength(1);
        expect((await store.writebacks.forSubject('b1'))?.id).toBe('wb1');
        expect(await store.batches.lease('w3', at(10_000), at(10_060))).toBeNull();
        expect(await store.batches.renew('b1', 'w1', at(500))).toBe(false);
      });

      it('a batch whose every item was refused at submission completes without finishing an item; null outbox', async () => {
        const refused = items.filter((i) => i.state === 'done');
        await store.batches.create(newBatch('b1', { items: refused }), null);
        expect(await store.batches.get('b1')).toMatchObject({ status: 'pending', total_count: 1, completed_count: 1 });
        expect((await store.batches.lease('w1', at(1), at(61)))?.id).toBe('b1');
        expect(await store.batches.complete('b1', 'w1', null, at(2))).toBe(true);
        expect(await store.batches.get('b1')).toMatchObject({ status: 'complete', completed_at: at(2) });
        expect(await store.outbox.forSubject('b1')).toEqual([]);
        expect(await store.writebacks.forSubject('b1')).toBeNull();
      });

      it('CONCURRENCY: concurrent finishes of one item: exactly one counts; concurrent leases hand out each batch once', async () => {
        await store.batches.create(newBatch('b1'), { amount: 2, period: PERIOD, ref: 'batch:b1' });
        await store.batches.create(newBatch('b2'), null);
        await store.batches.create(newBatch('b3'), null);
        const leases = await Promise.all(Array.from({ length: 12 }, (_, i) => store.batches.lease(`w${i}`, at(1), at(61))));
        const got = leases.filter((l) => l !== null);
        expect(got.map((l) => l!.id).sort()).toEqual(['b1', 'b2', 'b3']);
        const owner = got.find((l) => l!.id === 'b1')!.lease_owner!;
        const results = await Promise.all(
          Array.from({ length: 10 }, () => store.batches.finishItem({ batch_id: 'b1', idx: 0, owner, result: '{}', error: null, settlement: { charge: 0, refund: 1, ref: 'b1:0' }, at: at(5) })),
        );
        expect(count(results, (r) => r)).toBe(1);
        expect((await store.batches.get('b1'))?.completed_count).toBe(2);
        expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'refund')).toHaveLength(1);
        expect((await store.keys.get('k1'))?.balance).toBe(9);
      });
    });

    // ---- outbox -----------------------------------------------------------------------------

    describe('outbox', () => {
      beforeEach(async () => {
        await key('k1');
        await key('k2');
      });

      it('lease: only due, pending, unleased rows, by next_attempt_at; recordAttempt moves the state', async () => {
        await finishedJob('j1', { outbox: outboxRow('o1', { created_at: at(10) }) });
        await finishedJob('j2', { outbox: outboxRow('o2', { created_at: at(20) }) });
        await finishedJob('j3', { outbox: outboxRow('o3', { created_at: at(30) }) });
        expect(await store.outbox.lease(at(5), at(65))).toBeNull();
        expect((await store.outbox.lease(at(25), at(85)))?.id).toBe('o1');
        expect((await store.outbox.lease(at(25), at(85)))?.id).toBe('o2');
        expect(await store.outbox.lease(at(25), at(85))).toBeNull(); // o3 not due yet
        expect(await store.outbox.lease(at(40), at(100))).toMatchObject({ id: 'o3', status: 'pending', attempts: 0 });
        expect(await store.outbox.lease(at(84), at(150))).toBeNull();
        // o1 and o2's leases passed at 85.
        expect((await store.outbox.lease(at(90), at(150)))?.id).toBe('o1');

        const a1: AttemptRecord = { attempt: 1, at: at(91), status: 500, error: 'HTTP 500', duration_ms: 120 };
        await store.outbox.recordAttempt('o1', a1, { status: 'pending', next_attempt_at: at(200) });
        expect(await store.outbox.get('o1')).toMatchObject({ status: 'pending', attempts: 1, next_attempt_at: at(200), last_status: 500, last_error: 'HTTP 500', delivered_at: null });
        // The lease is cleared, but it is not due before 200.
        expect((await store.outbox.lease(at(95), at(300)))?.id).toBe('o2');
        // o3's lease (100) has passed; o1 is free but not due.
        expect((await store.outbox.lease(at(150), at(300)))?.id).toBe('o3');
        expect(await store.outbox.lease(at(150), at(300))).toBeNull();
        // The same attempt recorded twice (a retried write) keeps one log entry.
        await store.outbox.recordAttempt('o1', a1, { status: 'pending', next_attempt_at: at(200) });
        expect((await store.outbox.get('o1'))?.attempts).toBe(1);

        expect((await store.outbox.lease(at(201), at(260)))?.id).toBe('o1');
        const a2: AttemptRecord = { attempt: 2, at: at(202), status: 204, error: null, duration_ms: 35 };
        await store.outbox.recordAttempt('o1', a2, { status: 'delivered', next_attempt_at: null });
        expect(await store.outbox.get('o1')).toMatchObject({ status: 'delivered', attempts: 2, next_attempt_at: at(200), last_status: 204, last_error: null, delivered_at: at(202) });

        await store.outbox.recordAttempt('o3', { attempt: 1, at: at(203), status: null, error: 'ECONNREFUSED', duration_ms: 3 }, { status: 'failed', next_attempt_at: null });
        expect(await store.outbox.get('o3')).toMatchObject({ status: 'failed', attempts: 1, last_status: null, last_error: 'ECONNREFUSED', delivered_at: null });
        // Delivered and failed rows are never leased again; o2 (lease until 300) is once free.
        expect(await store.outbox.lease(at(10_000), at(10_060))).toMatchObject({ id: 'o2' });
        expect(await store.outbox.lease(at(10_000), at(10_060))).toBeNull();

        const page = await store.outbox.list('k1', { limit: 10, offset: 0 });
        const o1 = page.items.find((i) => i.id === 'o1')!;
        expect(o1.attempt_log).toEqual([a1, a2]);
        expect(page.items.find((i) => i.id === 'o3')!.attempt_log).toEqual([{ attempt: 1, at: at(203), status: null, error: 'ECONNREFUSED', duration_ms: 3 }]);
        expect(page.items.find((i) => i.id === 'o2')!.attempt_log).toEqual([]);
      });

      it('list: one key, newest first, paged, with total and attempt logs; get; forSubject', async () => {
        await finishedJob('j1', { outbox: outboxRow('o1', { created_at: at(10), subject_id: 'S1' }) });
        await finishedJob('j2', { outbox: outboxRow('o2', { created_at: at(30), subject_id: 'S2' }) });
        await finishedJob('j3', { outbox: outboxRow('o3', { created_at: at(20), subject_id: 'S1', event_type: 'verification.failed' }) });
        await finishedJob('j4', { outbox: outboxRow('o4', { created_at: at(40), key_id: 'k2', subject_id: 'S4' }) });
        const first = await store.outbox.list('k1', { limit: 2, offset: 0 });
        expect(first.total).toBe(3);
        expect(first.items.map((i) => i.id)).toEqual(['o2', 'o3']);
        expect(first.items[0]).toEqual({
          ...outboxRow('o2', { created_at: at(30), subject_id: 'S2' }),
          status: 'pending',
          attempts: 0,
          next_attempt_at: at(30),
          last_status: null,
          last_error: null,
          delivered_at: null,
          attempt_log: [],
        });
        const second = await store.outbox.list('k1', { limit: 2, offset: 2 });
        expect(second).toMatchObject({ total: 3 });
        expect(second.items.map((i) => i.id)).toEqual(['o1']);
        expect(await store.outbox.list('k1', { limit: 2, offset: 4 })).toEqual({ items: [], total: 3 });
        expect((await store.outbox.list('k2', { limit: 10, offset: 0 })).items.map((i) => i.id)).toEqual(['o4']);
        expect(await store.outbox.list('k3', { limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });

        expect((await store.outbox.forSubject('S1')).map((o) => o.id)).toEqual(['o1', 'o3']);
        expect((await store.outbox.forSubject('S1'))[1]).toMatchObject({ event_type: 'verification.failed', created_at: at(20) });
        expect(await store.outbox.forSubject('none')).toEqual([]);
        expect(await store.outbox.get('o4')).toMatchObject({ id: 'o4', key_id: 'k2', subject_id: 'S4' });
        expect(await store.outbox.get('nope')).toBeNull();
      });

      it('CONCURRENCY: concurrent leases hand out each due delivery once', async () => {
        for (let i = 0; i < 5; i++) await finishedJob(`j${i}`, { outbox: outboxRow(`o${i}`, { created_at: at(i) }) });
        const leases = await Promise.all(Array.from({ length: 20 }, () => store.outbox.lease(at(100), at(160))));
        expect(leases.filter((l) => l !== null).map((l) => l!.id).sort()).toEqual(['o0', 'o1', 'o2', 'o3', 'o4']);
      });
    });

    // ---- datasets ---------------------------------------------------------------------------

    describe('datasets', () => {
      const refresh = { url: 'https://example.org/cpi.csv', format: 'csv' as const, date_column: 'date', value_column: 'value' };

      it('upsert creates and updates metadata; get returns the full record', async () => {
        const meta = dataset('uk-cpi', { title: 'UK CPI', description: 'Consumer prices', licence: 'OGL-3.0', refresh });
        await store.datasets.upsert(meta, at(1));
        expect(await store.datasets.get('uk-cpi')).toEqual({
          ...meta,
          first_date: null,
          last_date: null,
          point_count: 0,
          last_refreshed_at: null,
          last_refresh_attempt_at: null,
          last_refresh_error: null,
          updated_at: at(1),
        });
        expect(await store.datasets.get('nope')).toBeNull();
        await store.datasets.writePoints('uk-cpi', [{ date: '2026-01-01', value: 1.5 }], 'replace', at(2));
        const updated = { ...meta, title: 'UK consumer price index', licence: null, refresh: { url: 'https://example.org/cpi.json', format: 'json' as const, path: 'data.points' }, cadence: 'quarterly' as const };
        await store.datasets.upsert(updated, at(3));
        expect(await store.datasets.get('uk-cpi')).toEqual({
          ...updated,
          first_date: '2026-01-01',
          last_date: '2026-01-01',
          point_count: 1,
          last_refreshed_at: at(2),
          last_refresh_attempt_at: at(2),
          last_refresh_error: null,
          updated_at: at(3),
        });
        expect(await store.datasets.series('uk-cpi', 10, 'latest')).toEqual([{ date: '2026-01-01', value: 1.5 }]);
        expect(await store.datasets.count()).toBe(1);
        // The search index follows the update.
        expect((await store.datasets.search({ terms: ['consumer', 'index'], limit: 10, offset: 0 })).items.map((d) => d.slug)).toEqual(['uk-cpi']);
        expect(await store.datasets.search({ terms: ['cpi'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
      });

      it('writePoints replace and merge keep counts, range and refresh fields; failures are recorded', async () => {
        await store.datasets.upsert(dataset('d1'), at(0));
        await store.datasets.upsert(dataset('d2'), at(0));
        expect(
          await store.datasets.writePoints('d1', [
            { date: '2026-03-01', value: 3.25 },
            { date: '2026-01-01', value: -0.5 },
            { date: '2026-02-01', value: 123456.789 },
          ], 'replace', at(5)),
        ).toBe(3);
        expect(await store.datasets.get('d1')).toMatchObject({ point_count: 3, first_date: '2026-01-01', last_date: '2026-03-01', last_refreshed_at: at(5), last_refresh_attempt_at: at(5), last_refresh_error: null });
        expect(await store.datasets.series('d1', 10, 'earliest')).toEqual([
          { date: '2026-01-01', value: -0.5 },
          { date: '2026-02-01', value: 123456.789 },
          { date: '2026-03-01', value: 3.25 },
        ]);

        await store.datasets.recordRefreshFailure('d1', 'HTTP 503 from source', at(6));
        expect(await store.datasets.get('d1')).toMatchObject({ point_count: 3, last_refreshed_at: at(5), last_refresh_attempt_at: at(6), last_refresh_error: 'HTTP 503 from source' });

        expect(await store.datasets.writePoints('d1', [{ date: '2026-03-01', value: 3.5 }, { date: '2026-04-01', value: 4 }, { date: '2025-12-01', value: 0 }], 'merge', at(7))).toBe(3);
        expect(await store.datasets.get('d1')).toMatchObject({ point_count: 5, first_date: '2025-12-01', last_date: '2026-04-01', last_refreshed_at: at(7), last_refresh_attempt_at: at(7), last_refresh_error: null });
        expect(await store.datasets.series('d1', 10, 'earliest')).toEqual([
          { date: '2025-12-01', value: 0 },
          { date: '2026-01-01', value: -0.5 },
          { date: '2026-02-01', value: 123456.789 },
          { date: '2026-03-01', value: 3.5 },
          { date: '2026-04-01', value: 4 },
        ]);

        expect(await store.datasets.writePoints('d1', [{ date: '2027-01-01', value: 9 }], 'replace', at(8))).toBe(1);
        expect(await store.datasets.get('d1')).toMatchObject({ point_count: 1, first_date: '2027-01-01', last_date: '2027-01-01', last_refreshed_at: at(8) });
        expect(await store.datasets.series('d1', 10, 'latest')).toEqual([{ date: '2027-01-01', value: 9 }]);
        // Other datasets are untouched.
        expect(await store.datasets.get('d2')).toMatchObject({ point_count: 0, first_date: null, last_refreshed_at: null });
        expect(await store.datasets.series('d2', 10, 'latest')).toEqual([]);
      });

      it('series: limit points from the latest or earliest end, always in ascending date order', async () => {
        await store.datasets.upsert(dataset('d1'), at(0));
        const points = Array.from({ length: 30 }, (_, i) => ({ date: `2026-01-${String(i + 1).padStart(2, '0')}`, value: i * 1.5 }));
        await store.datasets.writePoints('d1', [...points].reverse(), 'replace', at(1));
        expect(await store.datasets.series('d1', 3, 'latest')).toEqual(points.slice(27));
        expect(await store.datasets.series('d1', 3, 'earliest')).toEqual(points.slice(0, 3));
        expect(await store.datasets.series('d1', 100, 'latest')).toEqual(points);
        expect(await store.datasets.series('d1', 100, 'earliest')).toEqual(points);
        expect(await store.datasets.series('nope', 3, 'latest')).toEqual([]);
      });

      describe('search', () => {
        beforeEach(async () => {
          await store.datasets.upsert(dataset('uk-inflation-cpi', { title: 'Inflation rate (CPI)', description: 'Consumer price index, annual change', category: 'Economy', source: 'ONS', cadence: 'monthly' }), at(0));
          await store.datasets.upsert(dataset('ch-claims-frequency', { title: 'Zürich claims frequency', description: 'Motor claims per 1000 policies', category: 'Insurance', source: 'FINMA', cadence: 'quarterly' }), at(0));
          await store.datasets.upsert(dataset('a-motor-premiums', { title: 'Motor premiums', description: 'Average premium; claims inflation pushes it up', category: 'Insurance', source: 'ABI', cadence: 'quarterly' }), at(0));
          await store.datasets.upsert(dataset('b-reinsurance-capacity', { title: 'Reinsurance capacity', description: 'Published by Zurich Re and peers', category: 'Markets', source: 'Swiss Re', cadence: 'weekly' }), at(0));
        });
        const slugs = (r: { items: { slug: string }[] }) => r.items.map((d) => d.slug);

        it('terms match as prefixes; title matches rank above description-only matches', async () => {
          const r = await store.datasets.search({ terms: ['infl'], limit: 10, offset: 0 });
          expect(slugs(r)).toEqual(['uk-inflation-cpi', 'a-motor-premiums']);
          expect(r.total).toBe(2);
          expect(r.items[0]).toMatchObject({ title: 'Inflation rate (CPI)', category: 'Economy', point_count: 0, updated_at: at(0) });
          expect(slugs(await store.datasets.search({ terms: ['premium'], limit: 10, offset: 0 }))).toEqual(['a-motor-premiums']);
          expect(slugs(await store.datasets.search({ terms: ['freq'], limit: 10, offset: 0 }))).toEqual(['ch-claims-frequency']);
        });

        it('every term must match', async () => {
          expect(slugs(await store.datasets.search({ terms: ['motor', 'claims'], limit: 10, offset: 0 }))).toEqual(expect.arrayContaining(['ch-claims-frequency', 'a-motor-premiums']));
          expect((await store.datasets.search({ terms: ['motor', 'claims'], limit: 10, offset: 0 })).total).toBe(2);
          expect(slugs(await store.datasets.search({ terms: ['motor', 'frequency'], limit: 10, offset: 0 }))).toEqual(['ch-claims-frequency']);
          expect(await store.datasets.search({ terms: ['motor', 'cpi'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
          expect(await store.datasets.search({ terms: ['nothingmatches'], limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
        });

        it('accent-insensitive both ways: zurich finds Zürich, zürich finds Zurich', async () => {
          const plain = await store.datasets.search({ terms: ['zurich'], limit: 10, offset: 0 });
          expect(slugs(plain)).toEqual(['ch-claims-frequency', 'b-reinsurance-capacity']);
          expect(plain.total).toBe(2);
          expect(slugs(await store.datasets.search({ terms: ['zürich'], limit: 10, offset: 0 }))).toEqual(['ch-claims-frequency', 'b-reinsurance-capacity']);
          expect(slugs(await store.datasets.search({ terms: ['zür'], limit: 10, offset: 0 }))).toEqual(['ch-claims-frequency', 'b-reinsurance-capacity']);
        });

        it('filters on category, source and cadence, case-insensitively, alone and with terms', async () => {
          const insurance = await store.datasets.search({ category: 'insurance', limit: 10, offset: 0 });
          expect(slugs(insurance)).toEqual(['a-motor-premiums', 'ch-claims-frequency']);
          expect(insurance.total).toBe(2);
          expect(slugs(await store.datasets.search({ source: 'swiss re', limit: 10, offset: 0 }))).toEqual(['b-reinsurance-capacity']);
          expect(slugs(await store.datasets.search({ cadence: 'quarterly', limit: 10, offset: 0 }))).toEqual(['a-motor-premiums', 'ch-claims-frequency']);
          expect(slugs(await store.datasets.search({ category: 'INSURANCE', source: 'abi', limit: 10, offset: 0 }))).toEqual(['a-motor-premiums']);
          expect(await store.datasets.search({ category: 'Insurance', source: 'ONS', limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });

          const filtered = await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 10, offset: 0 });
          expect(slugs(filtered)).toEqual(['ch-claims-frequency', 'a-motor-premiums']);
          expect(filtered.total).toBe(2);
          expect(slugs(await store.datasets.search({ terms: ['infl'], category: 'economy', limit: 10, offset: 0 }))).toEqual(['uk-inflation-cpi']);
          expect(slugs(await store.datasets.search({ terms: ['infl'], source: 'ABI', cadence: 'quarterly', limit: 10, offset: 0 }))).toEqual(['a-motor-premiums']);
          expect(await store.datasets.search({ terms: ['zurich'], category: 'economy', limit: 10, offset: 0 })).toEqual({ items: [], total: 0 });
        });

        it('paging keeps the total, also past the end (with and without terms and filters)', async () => {
          const all = await store.datasets.search({ limit: 2, offset: 0 });
          expect(all.total).toBe(4);
          expect(all.items).toHaveLength(2);
          const rest = await store.datasets.search({ limit: 2, offset: 2 });
          expect(rest.total).toBe(4);
          expect(slugs(rest)).toHaveLength(2);
          expect(new Set([...slugs(all), ...slugs(rest)]).size).toBe(4);
          expect(await store.datasets.search({ limit: 2, offset: 10 })).toEqual({ items: [], total: 4 });

          expect(slugs(await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 1 }))).toEqual(['b-reinsurance-capacity']);
          expect((await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 1 })).total).toBe(2);
          expect(await store.datasets.search({ terms: ['zurich'], limit: 1, offset: 5 })).toEqual({ items: [], total: 2 });

          const page = await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 1, offset: 1 });
          expect(slugs(page)).toEqual(['a-motor-premiums']);
          expect(page.total).toBe(2);
          expect(await store.datasets.search({ terms: ['claims'], category: 'insurance', limit: 1, offset: 5 })).toEqual({ items: [], total: 2 });
          expect(await store.datasets.search({ category: 'insurance', limit: 1, offset: 5 })).toEqual({ items: [], total: 2 });
        });

        it('without terms: ordered by title case-insensitively, then slug', async () => {
          await store.datasets.upsert(dataset('z-alpha', { title: 'Alpha' }), at(0));
          await store.datasets.upsert(dataset('a-alpha', { title: 'alpha' }), at(0));
          await store.datasets.upsert(dataset('b-beta', { title: 'beta' }), at(0));
          await store.datasets.upsert(dataset('g-gamma', { title: 'Gamma' }), at(0));
          const r = await store.datasets.search({ limit: 20, offset: 0 });
          expect(slugs(r)).toEqual(['a-alpha', 'z-alpha', 'b-beta', 'g-gamma', 'uk-inflation-cpi', 'a-motor-premiums', 'b-reinsurance-capacity', 'ch-claims-frequency']);
          expect(r.total).toBe(8);
          expect(slugs(await store.datasets.search({ category: 'economy', limit: 3, offset: 0 }))).toEqual(['a-alpha', 'z-alpha', 'b-beta']);
          expect(await store.datasets.count()).toBe(8);
        });
      });

      it('refreshable lists only datasets with a refresh source; count counts all', async () => {
        expect(await store.datasets.refreshable()).toEqual([]);
        expect(await store.datasets.count()).toBe(0);
        await store.datasets.upsert(dataset('b-manual'), at(0));
        await store.datasets.upsert(dataset('c-auto', { refresh }), at(0));
        await store.datasets.upsert(dataset('a-auto', { refresh: { url: 'https://example.org/a.json', format: 'json' } }), at(0));
        const r = await store.datasets.refreshable();
        expect(r.map((d) => d.slug).sort()).toEqual(['a-auto', 'c-auto']);
        expect(r.find((d) => d.slug === 'c-auto')?.refresh).toEqual(refresh);
        expect(r.find((d) => d.slug === 'a-auto')?.refresh).toEqual({ url: 'https://example.org/a.json', format: 'json' });
        expect(await store.datasets.count()).toBe(3);
        // Dropping the refresh source takes it off the list.
        await store.datasets.upsert(dataset('c-auto'), at(1));
        expect((await store.datasets.refreshable()).map((d) => d.slug)).toEqual(['a-auto']);
      });
    });

    // ---- write-backs ------------------------------------------------------------------------

    describe('writebacks', () => {
      beforeEach(async () => {
        await key('k1');
      });

      it('leaseSpreadsheet claims every due row of the first-due spreadsheet; not again while leased; finish', async () => {
        await finishedJob('jA', { writeback: writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }) });
        await finishedJob('jB', { writeback: writebackRow('wB', { subject_id: 'jB', spreadsheet_id: 'S2', created_at: at(20) }) });
        await finishedJob('jC', { writeback: writebackRow('wC', { subject_id: 'jC', spreadsheet_id: 'S1', created_at: at(30), kind: 'extraction' }) });
        await finishedJob('jD', { writeback: writebackRow('wD', { subject_id: 'jD', spreadsheet_id: 'S1', created_at: at(500) }) });
        expect(await store.writebacks.leaseSpreadsheet(at(5), at(65))).toEqual([]);

        const first = byId(await store.writebacks.leaseSpreadsheet(at(40), at(100)));
        expect(first.map((w) => w.id)).toEqual(['wA', 'wC']);
        expect(first[0]).toEqual({
          ...writebackRow('wA', { subject_id: 'jA', spreadsheet_id: 'S1', created_at: at(10) }),
          status: 'pending',
          attempts: 1,
          next_attempt_at: at(10),
          written: 0,
          missing: [],
          last_error: null,
          updated_at: expect.any(String),
        });
        expect(first[1]).toMatchObject({ kind: 'extraction', attempts: 1 });
        expect((await store.writebacks.leaseSpreadsheet(at(40), at(100))).map((w) => w.id)).toEqual(['wB']);
        expect(await store.writebacks.leaseSpreadsheet(at(40), at(100))).toEqual([]);

        await store.writebacks.finish('wA', { status: 'written', written: 3, missing: ['P9', 'P10'], error: null, next_attempt_at: null }, at(45));
        expect(await store.writebacks.forSubject('jA')).toMatchObject({ id: 'wA', status: 'written', written: 3, missing: ['P9', 'P10'], last_error: null, next_attempt_at: at(10), updated_at: at(45), attempts: 1 });
        await store.writebacks.finish('wC', { status: 'pending', written: 0, missing: [], error: 'quota exceeded', next_attempt_at: at(300) }, at(46));
        expect(await store.writebacks.forSubject('jC')).toMatchObject({ status: 'pending', last_error: 'quota exceeded', next_attempt_at: at(300), updated_at: at(46) });

        // At 200: wB's lease (100) passed; wC waits until 300, wD until 500.
        expect(await store.writebacks.leaseSpreadsheet(at(200), at(260))).toMatchObject([{ id: 'wB', attempts: 2 }]);
        expect(await store.writebacks.leaseSpreadsheet(at(200), at(260))).toEqual([]);
        // At 600: wB (due since 20, lease passed) comes first, then S1 with wC and wD together.
        expect((await store.writebacks.leaseSpreadsheet(at(600), at(700))).map((w) => w.id)).toEqual(['wB']);
        const s1 = byId(await store.writebacks.leaseSpreadsheet(at(600), at(700)));
        expect(s1.map((w) => [w.id, w.attempts])).toEqual([['wC', 2], ['wD', 1]]);
        await store.writebacks.finish('wB', { status: 'failed', written: 0, missing: [], error: 'spreadsheet not found', next_attempt_at: null }, at(601));
        expect(await store.writebacks.forSubject('jB')).toMatchObject({ status: 'failed', last_error: 'spreadsheet not found' });
        // Written and failed write-backs are never leased again.
        expect(await store.writebacks.leaseSpreadsheet(at(10_000), at(10_060))).toMatchObject([{ id: expect.stringMatching(/^w[CD]$/) }, { id: expect.stringMatching(/^w[CD]$/) }]);
        expect(await store.writebacks.leaseSpreadsheet(at(10_000), at(10_060))).toEqual([]);
      });

      it('forSubject returns the latest write-back of a subject, or null', async () => {
        await finishedJob('j1', { writeback: writebackRow('w1', { subject_id: 'X1', created_at: at(10) }) });
        await completedBatch('b1', writebackRow('w2', { subject_type: 'batch', subject_id: 'X1', created_at: at(20), spreadsheet_id: 'S9' }));
        await completedBatch('b2', writebackRow('w3', { subject_type: 'batch', subject_id: 'b2', created_at: at(15) }));
        expect(await store.writebacks.forSubject('X1')).toMatchObject({ id: 'w2', subject_type: 'batch', spreadsheet_id: 'S9', created_at: at(20) });
        expect((await store.writebacks.forSubject('b2'))?.id).toBe('w3');
        expect(await store.writebacks.forSubject('none')).toBeNull();
      });

      it('CONCURRENCY: concurrent leases hand out each write-back once, one spreadsheet per claim', async () => {
        for (let i = 0; i < 6; i++) {
          await finishedJob(`j${i}`, { writeback: writebackRow(`w${i}`, { subject_id: `j${i}`, spreadsheet_id: `S${i % 3}`, created_at: at(i) }) });
        }
        const claims = await Promise.all(Array.from({ length: 10 }, () => store.writebacks.leaseSpreadsheet(at(100), at(160))));
        const nonEmpty = claims.filter((c) => c.length > 0);
        expect(nonEmpty).toHaveLength(3);
        for (const c of nonEmpty) expect(new Set(c.map((w) => w.spreadsheet_id)).size).toBe(1);
        expect(nonEmpty.flat().map((w) => w.id).sort()).toEqual(['w0', 'w1', 'w2', 'w3', 'w4', 'w5']);
      });
    });

    // ---- schedules --------------------------------------------------------------------------

    describe('schedules', () => {
      beforeEach(async () => {
        await key('k1');
        await key('k2');
      });

      it('create, get, list per key (created_at, id), delete only by the owning key', async () => {
        const s1 = schedule('s1', { created_at: at(5) });
        const s2 = schedule('s2', { created_at: at(1), cadence: 'weekly', point_limit: 12, sheet_name: 'Rates', dataset: 'eu-rates' });
        const s0 = schedule('s0', { created_at: at(5), cadence: 'hourly' });
        const s3 = schedule('s3', { key_id: 'k2' });
        for (const s of [s1, s2, s0, s3]) await store.schedules.create(s);
        expect(await store.schedules.get('s2')).toEqual({ ...s2, running_until: null });
        expect(await store.schedules.get('nope')).toBeNull();
        expect(await store.schedules.list('k1')).toEqual([s2, s0, s1].map((s) => ({ ...s, running_until: null })));
        expect((await store.schedules.list('k2')).map((s) => s.id)).toEqual(['s3']);
        expect(await store.schedules.list('k9')).toEqual([]);
        expect(await store.schedules.delete('s1', 'k2')).toBe(false);
        expect(await store.schedules.get('s1')).not.toBeNull();
        expect(await store.schedules.delete('s1', 'k1')).toBe(true);
        expect(await store.schedules.get('s1')).toBeNull();
        expect(await store.schedules.delete('s1', 'k1')).toBe(false);
        expect((await store.schedules.list('k1')).map((s) => s.id)).toEqual(['s2', 's0']);
      });

      it('leaseDue: one due schedule at a time, never twice while running; finishRun; runs newest first', async () => {
        await store.schedules.create(schedule('s1', { next_run_at: at(60) }));
        await store.schedules.create(schedule('s2', { next_run_at: at(30) }));
        await store.schedules.create(schedule('s3', { next_run_at: at(100_000), key_id: 'k2' }));
        expect(await store.schedules.leaseDue(at(10), at(100))).toBeNull();
        expect(await store.schedules.leaseDue(at(70), at(130))).toEqual({ ...schedule('s2', { next_run_at: at(30) }), running_until: at(130) });
        expect(await store.schedules.leaseDue(at(70), at(130))).toMatchObject({ id: 's1', running_until: at(130) });
        expect(await store.schedules.leaseDue(at(71), at(131))).toBeNull();
        expect(await store.schedules.runs('s2', 10)).toEqual([{ started_at: at(70), finished_at: null, status: 'running', rows: null, error: null }]);

        await store.schedules.finishRun('s2', at(70), { finished_at: at(75), status: 'ok', rows: 12, error: null }, at(3600));
        expect(await store.schedules.get('s2')).toMatchObject({ next_run_at: at(3600), running_until: null });
        expect(await store.schedules.runs('s2', 10)).toEqual([{ started_at: at(70), finished_at: at(75), status: 'ok', rows: 12, error: null }]);
        expect(await store.schedules.leaseDue(at(100), at(160))).toBeNull(); // s1 still running, s2 not due

        // s1's run never finished and its lease (130) passed: it is claimed again, the old run marked interrupted.
        expect(await store.schedules.leaseDue(at(200), at(260))).toMatchObject({ id: 's1', running_until: at(260) });
        const runs = await store.schedules.runs('s1', 10);
        expect(runs).toHaveLength(2);
        expect(runs[0]).toEqual({ started_at: at(200), finished_at: null, status: 'running', rows: null, error: null });
        expect(runs[1]).toMatchObject({ started_at: at(70), finished_at: at(200), status: 'failed', rows: null });
        expect(runs[1]!.error).toMatch(/^interrupted/);
        await store.schedules.finishRun('s1', at(200), { finished_at: at(210), status: 'failed', rows: null, error: 'spreadsheet not found' }, at(7200));
        expect(await store.schedules.runs('s1', 1)).toEqual([{ started_at: at(200), finished_at: at(210), status: 'failed', rows: null, error: 'spreadsheet not found' }]);
        expect(await store.schedules.runs('s1', 10)).toHaveLength(2);
        expect(await store.schedules.runs('s3', 10)).toEqual([]);

        // Due again later: the runs list grows, newest first.
        expect((await store.schedules.leaseDue(at(3600), at(3660)))?.id).toBe('s2');
        await store.schedules.finishRun('s2', at(3600), { finished_at: at(3601), status: 'ok', rows: 3, error: null }, at(7200));
        expect((await store.schedules.runs('s2', 10)).map((r) => [r.started_at, r.rows])).toEqual([[at(3600), 3], [at(70), 12]]);
        expect(await store.schedules.leaseDue(at(5000), at(5060))).toBeNull();
        expect(await store.schedules.leaseDue(at(7200), at(7260))).toMatchObject({ id: 's1', next_run_at: at(7200) });
      });

      it('CONCURRENCY: concurrent leaseDue claims a due schedule once and records one run', async () => {
        await store.schedules.create(schedule('s1', { next_run_at: at(0) }));
        const leases = await Promise.all(Array.from({ length: 10 }, () => store.schedules.leaseDue(at(10), at(70))));
        expect(count(leases, (l) => l !== null)).toBe(1);
        expect(await store.schedules.runs('s1', 10)).toHaveLength(1);
      });
    });

    // ---- sheet bindings -----------------------------------------------------------------------

    describe('sheetBindings', () => {
      beforeEach(async () => {
        await key('k1');
        await key('k2');
      });
      const issue = (id: string, over: Partial<{ key_id: string; spreadsheet_id: string; token_hash: string; created_at: string }> = {}) =>
        store.sheetBindings.issue({ id, key_id: 'k1', spreadsheet_id: 'sheet-1', token_hash: 'a1'.repeat(32), created_at: at(0), ...over });

      it('issue creates a pending binding; get, find and list (created_at, id) per key', async () => {
        expect(await issue('b1')).toEqual({ id: 'b1', key_id: 'k1', spreadsheet_id: 'sheet-1', token_hash: 'a1'.repeat(32), status: 'pending', created_at: at(0), verified_at: null });
        await issue('b2', { spreadsheet_id: 'sheet-0', created_at: at(0) });
        await issue('b0', { spreadsheet_id: 'sheet-2', created_at: at(5) });
        await issue('b3', { key_id: 'k2' });
        expect(await store.sheetBindings.get('b3')).toMatchObject({ key_id: 'k2', spreadsheet_id: 'sheet-1' });
        expect(await store.sheetBindings.get('nope')).toBeNull();
        expect((await store.sheetBindings.find('k1', 'sheet-1'))?.id).toBe('b1');
        expect((await store.sheetBindings.find('k2', 'sheet-1'))?.id).toBe('b3');
        expect(await store.sheetBindings.find('k2', 'sheet-2')).toBeNull();
        expect((await store.sheetBindings.list('k1')).map((b) => b.id)).toEqual(['b1', 'b2', 'b0']);
        expect(await store.sheetBindings.list('k9')).toEqual([]);
      });

      it('issuing again for the same key and spreadsheet keeps the id and created_at, takes the new hash, and goes back to pending', async () => {
        await issue('b1');
        expect(await store.sheetBindings.recordCheck('b1', 'a1'.repeat(32), true, at(10))).toBe(true);
        expect(await issue('b-new', { token_hash: 'b2'.repeat(32), created_at: at(20) })).toEqual({
          id: 'b1',
          key_id: 'k1',
          spreadsheet_id: 'sheet-1',
          token_hash: 'b2'.repeat(32),
          status: 'pending',
          created_at: at(0),
          verified_at: null,
        });
        expect(await store.sheetBindings.get('b-new')).toBeNull();
        // The old token's checks no longer count; the new one's do, whenever they started.
        expect(await store.sheetBindings.recordCheck('b1', 'a1'.repeat(32), true, at(30))).toBe(false);
        expect((await store.sheetBindings.get('b1'))?.status).toBe('pending');
        expect(await store.sheetBindings.recordCheck('b1', 'b2'.repeat(32), true, at(5))).toBe(true);
        expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(5) });
      });

      it('recordCheck: found -> active at the check time; not found -> pending, keeping when it was last found; a check older than the last recorded is ignored', async () => {
        await issue('b1');
        const h = 'a1'.repeat(32);
        expect(await store.sheetBindings.recordCheck('b1', h, true, at(10))).toBe(true);
        expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(10) });
        expect(await store.sheetBindings.recordCheck('b1', h, false, at(20))).toBe(true);
        expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'pending', verified_at: at(10) });
        // A slow check that started before the last recorded one must not turn it back to active.
        expect(await store.sheetBindings.recordCheck('b1', h, true, at(15))).toBe(false);
        expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'pending', verified_at: at(10) });
        expect(await store.sheetBindings.recordCheck('b1', h, true, at(20))).toBe(true);
        expect(await store.sheetBindings.get('b1')).toMatchObject({ status: 'active', verified_at: at(20) });
        expect(await store.sheetBindings.recordCheck('b1', 'ff'.repeat(32), true, at(30))).toBe(false);
        expect(await store.sheetBindings.recordCheck('nope', h, true, at(30))).toBe(false);
      });

      it('delete only by the owning key', async () => {
        await issue('b1');
        expect(await store.sheetBindings.delete('b1', 'k2')).toBe(false);
        expect(await store.sheetBindings.get('b1')).not.toBeNull();
        expect(await store.sheetBindings.delete('b1', 'k1')).toBe(true);
        expect(await store.sheetBindings.find('k1', 'sheet-1')).toBeNull();
        expect(await store.sheetBindings.delete('b1', 'k1')).toBe(false);
      });

      it('CONCURRENCY: concurrent issues for one key and spreadsheet leave one binding holding one of the hashes', async () => {
        const hashes = Array.from({ length: 10 }, (_, i) => String(i).repeat(64));
        const issued = await Promise.all(hashes.map((h, i) => issue(`b${i}`, { token_hash: h })));
        expect(new Set(issued.map((b) => b.id)).size).toBe(1);
        const list = await store.sheetBindings.list('k1');
        expect(list).toHaveLength(1);
        expect(hashes).toContain(list[0]!.token_hash);
      });
    });

    // ---- portal -----------------------------------------------------------------------------

    describe('portal', () => {
      it('createRequest / findRequest round-trip; unknown is null', async () => {
        const r1 = keyRequest('r1', { mode: 'test' });
        await store.portal.createRequest(r1);
        expect(await store.portal.findRequest('hash-r1')).toEqual({ ...r1, used_at: null, key_id: null });
        expect(await store.portal.findRequest('nope')).toBeNull();
      });

      it('consumeRequest: ok once, then used; expired; unknown; attachKey', async () => {
        await key('k1');
        await store.portal.createRequest(keyRequest('r1'));
        await store.portal.createRequest(keyRequest('r2', { expires_at: at(100) }));
        expect(await store.portal.consumeRequest('hash-r1', at(10))).toEqual({ ok: true, request: { ...keyRequest('r1'), used_at: at(10), key_id: null } });
        expect(await store.portal.consumeRequest('hash-r1', at(11))).toEqual({ ok: false, reason: 'used' });
        expect(await store.portal.consumeRequest('hash-r1', at(99_999))).toEqual({ ok: false, reason: 'used' });
        expect(await store.portal.consumeRequest('hash-r2', at(200))).toEqual({ ok: false, reason: 'expired' });
        expect((await store.portal.findRequest('hash-r2'))?.used_at).toBeNull();
        expect(await store.portal.consumeRequest('nope', at(10))).toEqual({ ok: false, reason: 'unknown' });
        await store.portal.attachKey('r1', 'k1');
        expect(await store.portal.findRequest('hash-r1')).toEqual({ ...keyRequest('r1'), used_at: at(10), key_id: 'k1' });
        expect((await store.portal.findRequest('hash-r2'))?.key_id).toBeNull();
      });

      it('CONCURRENCY: concurrent activations of one link: exactly one succeeds', async () => {
        await store.portal.createRequest(keyRequest('r1'));
        const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => store.portal.consumeRequest('hash-r1', at(10 + i))));
        expect(count(outcomes, (o) => o.ok)).toBe(1);
        expect(outcomes.filter((o) => !o.ok)).toEqual(Array.from({ length: 9 }, () => ({ ok: false, reason: 'used' })));
        const winner = outcomes.find((o) => o.ok) as { ok: true; request: KeyRequestRecord };
        expect((await store.portal.findRequest('hash-r1'))?.used_at).toBe(winner.request.used_at);
      });

      it('deactivateUnused: only active, never-used free keys created before the cutoff, not named in exceptNames', async () => {
        await key('a-free-unused', { created_at: at(0) });
        await key('b-free-used', { created_at: at(0) });
        await store.keys.touch('b-free-used', at(5));
        await key('c-standard', { plan: 'standard', created_at: at(0) });
        await key('d-revoked', { created_at: at(0) });
        await store.keys.revoke('d-revoked', at(1));
        await key('e-new', { created_at: at(100) });
        await key('f-excepted', { created_at: at(0), name: 'demo key' });
        await key('g-test-mode', { created_at: at(0), mode: 'test' });
        await key('h-at-cutoff', { created_at: at(50) });
        const ids = await store.portal.deactivateUnused(at(50), at(60), ['demo key', 'other name']);
        expect([...ids].sort()).toEqual(['a-free-unused', 'g-test-mode']);
        expect(await store.keys.get('a-free-unused')).toMatchObject({ status: 'deactivated', revoked_at: null });
        expect((await store.keys.get('g-test-mode'))?.status).toBe('deactivated');
        expect((await store.keys.get('b-free-used'))?.status).toBe('active');
        expect((await store.keys.get('c-standard'))?.status).toBe('active');
        expect((await store.keys.get('d-revoked'))?.status).toBe('revoked');
        expect((await store.keys.get('e-new'))?.status).toBe('active');
        expect((await store.keys.get('f-excepted'))?.status).toBe('active');
        expect((await store.keys.get('h-at-cutoff'))?.status).toBe('active');
        expect(await store.portal.deactivateUnused(at(50), at(61), ['demo key'])).toEqual([]);
        expect(await store.portal.deactivateUnused(at(50), at(62), [])).toEqual(['f-excepted']);
        // A deactivated key is not revoked: revoke still works once.
        expect(await store.keys.revoke('a-free-unused', at(70))).toBe(true);
      });
    });
  });
}

for (const backend of [sqlite, postgres]) storeContract(backend.kind, backend);
