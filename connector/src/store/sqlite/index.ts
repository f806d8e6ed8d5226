/** SQLite implementation of the storage interface (better-sqlite3, WAL). */
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import type { TCountry } from '../../../../shared/policy.js';
import type { ChargeOutcome, IdempotencyBegin, IdempotentRecord, InsurerRecord, LedgerEntry, NewApiKey, NewRegistryCoverage, RegistryPolicyRecord, SanctionRecord, Store, StoredResponse } from '../types.js';
import { adjustedBalance, type BalanceAdjustment } from '../balance-adjustment.js';
import { creditOps } from './credit-ops.js';
import { groupCommit } from './group-commit.js';
import { startWalPresync, type WalPresyncOptions } from './wal-presync.js';
import { datasetStore } from './datasets.js';
import { portalStore } from './portal.js';
import { sheetStores } from './sheets.js';
import { MIGRATIONS } from './migrations.js';
import { workStores } from './work.js';
import { toCoverage, toInsurer, toKey, toPolicy, type Row } from './rows.js';

/** Applies pending migrations; safe to call on every start and from several processes. */
export function migrate(db: Database.Database): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (id INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied: number[] = [];
  for (const m of MIGRATIONS) {
    db.transaction(() => {
      const done = db.prepare('SELECT 1 FROM schema_migrations WHERE id = ?').get(m.id);
      if (done) return;
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)').run(m.id, m.name, new Date().toISOString());
      applied.push(m.id);
    }).immediate();
  }
  return applied;
}

export interface SqliteStoreOptions {
  /** Background syncs of the WAL (wal-presync.ts); omitted or an interval of 0: none (CLIs, tests of the store). */
  walPresync?: WalPresyncOptions;
}

export function openSqliteStore(databasePath: string, opts: SqliteStoreOptions = {}): Store {
  if (databasePath !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(databasePath)), { recursive: true });
  const db = new Database(databasePath);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode (only an OS crash may lose the last commits).
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  migrate(db);
  const presync = opts.walPresync && opts.walPresync.intervalMs > 0 && databasePath !== ':memory:' ? startWalPresync(`${path.resolve(databasePath)}-wal`, opts.walPresync) : null;

  const q = {
    keyInsert: db.prepare(`INSERT INTO api_keys (id, lookup, hash, name, email, mode, plan, scopes, allowance, balance, period, created_at, webhook_secret)
      VALUES (@id, @lookup, @hash, @name, @email, @mode, @plan, @scopes, @allowance, @allowance, @period, @created_at, @webhook_secret)`),
    keySecret: db.prepare('UPDATE api_keys SET webhook_secret = ? WHERE id = ?'),
    keyByLookup: db.prepare('SELECT * FROM api_keys WHERE lookup = ?'),
    keyById: db.prepare('SELECT * FROM api_keys WHERE id = ?'),
    keyList: db.prepare('SELECT * FROM api_keys ORDER BY created_at, id'),
    keyRevoke: db.prepare("UPDATE api_keys SET status = 'revoked', revoked_at = ? WHERE id = ? AND status != 'revoked'"),
    keyTouch: db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?'),
    ledgerInsert: db.prepare(
      'INSERT INTO credit_ledger (key_id, delta, reason, ref, balance_after, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    ledgerList: db.prepare('SELECT * FROM credit_ledger WHERE key_id = ? ORDER BY id'),
    idemGet: db.prepare('SELECT * FROM idempotency WHERE key_id = ? AND idem_key = ?'),
    idemInsert: db.prepare('INSERT INTO idempotency (key_id, idem_key, request_hash, created_at) VALUES (?, ?, ?, ?)'),
    idemRetake: db.prepare('UPDATE idempotency SET created_at = ? WHERE key_id = ? AND idem_key = ?'),
    idemComplete: db.prepare('UPDATE idempotency SET status = ?, body = ?, completed_at = ? WHERE key_id = ? AND idem_key = ?'),
    idemDelete: db.prepare('DELETE FROM idempotency WHERE key_id = ? AND idem_key = ? AND status IS NULL'),
    insurerUpsert: db.prepare(`INSERT INTO insurers (country, reference, scheme, name, aliases, regulated, authorised, lei, source, source_detail, demo, priority, updated_at)
      VALUES (@country, @reference, @scheme, @name, @aliases, @regulated, @authorised, @lei, @source, @source_detail, @demo, @priority, @updated_at)
      ON CONFLICT (country, reference) DO UPDATE SET scheme = excluded.scheme, name = excluded.name, aliases = excluded.aliases,
        regulated = excluded.regulated, authorised = excluded.authorised, lei = excluded.lei, source = excluded.source,
        source_detail = excluded.source_detail, demo = excluded.demo, priority = excluded.priority, updated_at = excluded.updated_at
      WHERE excluded.priority >= insurers.priority`),
    insurersByCountry: db.prepare('SELECT * FROM insurers WHERE country = ? ORDER BY reference'),
    insurerGet: db.prepare('SELECT * FROM insurers WHERE country = ? AND reference = ?'),
    insurerCount: db.prepare('SELECT count(*) AS n FROM insurers'),
    insurersBump: db.prepare("UPDATE meta SET value = value + 1 WHERE name = 'insurers_version'"),
    insurersVersion: db.prepare("SELECT value FROM meta WHERE name = 'insurers_version'"),
    policyUpsert: db.prepare(`INSERT INTO registry_policies (country, policy_number, insurance_type, insurer_reference, start_date, end_date, status, vehicle_registration, source, demo)
      VALUES (@country, @policy_number, @insurance_type, @insurer_reference, @start_date, @end_date, @status, @vehicle_registration, @source, @demo)
      ON CONFLICT (country, policy_number, insurance_type) DO UPDATE SET insurer_reference = excluded.insurer_reference,
        start_date = excluded.start_date, end_date = excluded.end_date, status = excluded.status,
        vehicle_registration = excluded.vehicle_registration, source = excluded.source, demo = excluded.demo`),
    policyFind: db.prepare('SELECT * FROM registry_policies WHERE country = ? AND policy_number = ?'),
    policyCount: db.prepare('SELECT count(*) AS n FROM registry_policies'),
    coverageUpsert: db.prepare(`INSERT INTO registry_coverage (country, insurance_type, source, demo, demo_covered, updated_at) VALUES (@country, @insurance_type, @source, @demo, @demo, @updated_at)
      ON CONFLICT (country, insurance_type) DO UPDATE SET source = excluded.source, demo = min(registry_coverage.demo, excluded.demo),
        demo_covered = max(registry_coverage.demo_covered, excluded.demo_covered), updated_at = excluded.updated_at`),
    coverageGet: db.prepare('SELECT * FROM registry_coverage WHERE country = ? AND insurance_type = ?'),
    sanctionsDelete: db.prepare('DELETE FROM sanctions WHERE list = ?'),
    sanctionInsert: db.prepare('INSERT INTO sanctions (list, name, country, reference, demo) VALUES (?, ?, ?, ?, ?)'),
    sanctionsAll: db.prepare('SELECT * FROM sanctions ORDER BY list, name'),
  };

  const credits = creditOps(db);

  // Charges are the hot write of sync verification: grouped into one commit per event-loop turn.
  const charge = groupCommit(db, (keyId: string, amount: number, period: string, ref: string | null, at: string, record?: IdempotentRecord): ChargeOutcome => {
    const balance = credits.debit(keyId, amount, period, 'charge', ref, at);
    if (balance === null) return { ok: false, balance: credits.balance(keyId) };
    if (record) q.idemComplete.run(record.response.status, record.response.body, at, keyId, record.idemKey);
    return { ok: true, balance };
  });

  const balanceTx = db.transaction((keyId: string, period: string, at: string): number => {
    credits.rollover(keyId, period, at);
    return credits.balance(keyId);
  });

  const adjustTx = db.transaction((keyId: string, opts: BalanceAdjustment, at: string) => {
    const before = q.keyById.get(keyId) as Row | undefined;
    if (!before) return null;
    if (opts.allowance !== undefined) db.prepare('UPDATE api_keys SET allowance = ? WHERE id = ?').run(opts.allowance, keyId);
    const balance = adjustedBalance(before.balance as number, opts);
    const delta = balance - (before.balance as number);
    if (delta !== 0) {
      db.prepare('UPDATE api_keys SET balance = ? WHERE id = ?').run(balance, keyId);
      q.ledgerInsert.run(keyId, delta, 'adjust', null, balance, at);
    }
    return toKey(q.keyById.get(keyId) as Row);
  });

  const idemBeginTx = db.transaction((keyId: string, idemKey: string, hash: string, at: string, staleBefore: string): IdempotencyBegin => {
    const row = q.idemGet.get(keyId, idemKey) as Row | undefined;
    if (!row) {
      q.idemInsert.run(keyId, idemKey, hash, at);
      return { state: 'new' };
    }
    if (row.request_hash !== hash) return { state: 'mismatch' };
    if (row.status !== null) return { state: 'replay', status: row.status as number, body: row.body as string };
    // A claim nobody completed (its process died mid-request) is taken over rather than blocking forever.
    if ((row.created_at as string) < staleBefore) {
      q.idemRetake.run(at, keyId, idemKey);
      return { state: 'new' };
    }
    return { state: 'in_progress' };
  });

  const insurerUpsertTx = db.transaction((rows: InsurerRecord[]) => {
    let n = 0;
    for (const r of rows) {
      n += q.insurerUpsert.run({
        ...r,
        aliases: JSON.stringify(r.aliases),
        authorised: r.authorised ? 1 : 0,
        demo: r.demo ? 1 : 0,
      }).changes;
    }
    q.insurersBump.run();
    return n;
  });

  const policyUpsertTx = db.transaction((rows: RegistryPolicyRecord[]) => {
    let n = 0;
    for (const r of rows) n += q.policyUpsert.run({ ...r, demo: r.demo ? 1 : 0 }).changes;
    return n;
  });

  const coverageTx = db.transaction((rows: NewRegistryCoverage[]) => {
    for (const r of rows) q.coverageUpsert.run({ ...r, demo: r.demo ? 1 : 0 });
  });

  const sanctionsTx = db.transaction((list: string, rows: SanctionRecord[]) => {
    q.sanctionsDelete.run(list);
    for (const r of rows) q.sanctionInsert.run(list, r.name, r.country, r.reference, r.demo ? 1 : 0);
    q.insurersBump.run();
    return rows.length;
  });

  return {
    kind: 'sqlite',
    ...workStores(db, credits),
    datasets: datasetStore(db),
    ...sheetStores(db),
    portal: portalStore(db),
    keys: {
      async create(key: NewApiKey) {
        q.keyInsert.run({ ...key, email: key.email ?? null, scopes: key.scopes.join(','), webhook_secret: key.webhook_secret ?? null });
        return toKey(q.keyById.get(key.id) as Row);
      },
      async findByLookup(lookup) {
        const r = q.keyByLookup.get(lookup) as Row | undefined;
        return r ? toKey(r) : null;
      },
      async get(id) {
        const r = q.keyById.get(id) as Row | undefined;
        return r ? toKey(r) : null;
      },
      async list() {
        return (q.keyList.all() as Row[]).map(toKey);
      },
      async revoke(id, at) {
        return q.keyRevoke.run(at, id).changes > 0;
      },
      async touch(id, at) {
        q.keyTouch.run(at, id);
      },
      async setWebhookSecret(id, secret) {
        q.keySecret.run(secret, id);
      },
    },
    credits: {
      async charge(keyId, amount, period, ref, at, record) {
        return charge(keyId, amount, period, ref, at, record);
      },
      async balance(keyId, period, at) {
        return balanceTx.immediate(keyId, period, at);
      },
      async adjust(keyId, opts, at) {
        return adjustTx.immediate(keyId, opts, at);
      },
      async ledger(keyId) {
        return q.ledgerList.all(keyId) as LedgerEntry[];
      },
    },
    idempotency: {
      async begin(keyId, idemKey, requestHash, at, staleBefore) {
        return idemBeginTx.immediate(keyId, idemKey, requestHash, at, staleBefore);
      },
      async complete(keyId, idemKey, response: StoredResponse, at) {
        q.idemComplete.run(response.status, response.body, at, keyId, idemKey);
      },
      async release(keyId, idemKey) {
        q.idemDelete.run(keyId, idemKey);
      },
    },
    insurers: {
      async upsertMany(rows) {
        return insurerUpsertTx.immediate(rows);
      },
      async listByCountry(country) {
        return (q.insurersByCountry.all(country) as Row[]).map(toInsurer);
      },
      async get(country, reference) {
        const r = q.insurerGet.get(country, reference) as Row | undefined;
        return r ? toInsurer(r) : null;
      },
      async count() {
        return (q.insurerCount.get() as { n: number }).n;
      },
      async version() {
        return (q.insurersVersion.get() as { value: number }).value;
      },
    },
    registry: {
      async upsertMany(rows) {
        return policyUpsertTx.immediate(rows);
      },
      async find(country, policyNumber) {
        return (q.policyFind.all(country, policyNumber) as Row[]).map(toPolicy);
      },
      async setCoverage(rows) {
        coverageTx.immediate(rows);
      },
      async coverage(country, type) {
        const r = q.coverageGet.get(country, type) as Row | undefined;
        return r ? toCoverage(r) : null;
      },
      async count() {
        return (q.policyCount.get() as { n: number }).n;
      },
    },
    sanctions: {
      async replaceList(list, rows) {
        return sanctionsTx.immediate(list, rows);
      },
      async all() {
        return (q.sanctionsAll.all() as Row[]).map((r) => ({
          list: r.list as string,
          name: r.name as string,
          country: (r.country as TCountry | null) ?? null,
          reference: (r.reference as string | null) ?? null,
          demo: r.demo === 1,
        }));
      },
    },
    async ping() {
      return (db.prepare('SELECT 1 AS ok').get() as { ok: number }).ok === 1;
    },
    async close() {
      await presync?.stop();
      if (db.open) db.close();
    },
  };
}
