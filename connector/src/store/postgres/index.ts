/**
 * PostgreSQL implementation of the storage interface (`pg`), for several connector instances on
 * one database. Same guarantees as the SQLite store, obtained differently: conditional UPDATEs
 * under row locks instead of one writer at a time, and FOR UPDATE SKIP LOCKED for leasing work.
 */
import type { TCountry } from '../../../../shared/policy.js';
import type { IdempotencyBegin, LedgerEntry, Store } from '../types.js';
import { adjustedBalance } from '../balance-adjustment.js';
import { currentBalance, debit, rollover, writeLedger } from './credit-ops.js';
import { all, changed, createPool, migrate, one, tx } from './db.js';
import { datasetStore } from './datasets.js';
import { PG_MIGRATIONS } from './migrations.js';
import { portalStore } from './portal.js';
import { sheetStores } from './sheets.js';
import { workStores } from './work.js';
import { toCoverage, toInsurer, toKey, toPolicy } from './rows.js';

const bumpVersion = "UPDATE meta SET value = value + 1 WHERE name = 'insurers_version'";

export async function openPostgresStore(url: string, opts: { poolSize: number }): Promise<Store> {
  const db = createPool(url, opts.poolSize);
  try {
    await migrate(db, PG_MIGRATIONS);
  } catch (err) {
    await db.end();
    throw err;
  }

  return {
    kind: 'postgres',
    ...workStores(db),
    datasets: datasetStore(db),
    ...sheetStores(db),
    portal: portalStore(db),
    keys: {
      async create(key) {
        const r = await one(
          db,
          `INSERT INTO api_keys (id, lookup, hash, name, email, mode, plan, scopes, allowance, balance, period, created_at, webhook_secret)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10, $11, $12) RETURNING *`,
          [key.id, key.lookup, key.hash, key.name, key.email ?? null, key.mode, key.plan, key.scopes, key.allowance, key.period, key.created_at, key.webhook_secret ?? null],
        );
        return toKey(r!);
      },
      async findByLookup(lookup) {
        const r = await one(db, 'SELECT * FROM api_keys WHERE lookup = $1', [lookup]);
        return r ? toKey(r) : null;
      },
      async get(id) {
        const r = await one(db, 'SELECT * FROM api_keys WHERE id = $1', [id]);
        return r ? toKey(r) : null;
      },
      async list() {
        return (await all(db, 'SELECT * FROM api_keys ORDER BY created_at, id')).map(toKey);
      },
      async revoke(id, at) {
        return (await changed(db, "UPDATE api_keys SET status = 'revoked', revoked_at = $1 WHERE id = $2 AND status <> 'revoked'", [at, id])) > 0;
      },
      async touch(id, at) {
        await db.query('UPDATE api_keys SET last_used_at = $1 WHERE id = $2', [at, id]);
      },
      async setWebhookSecret(id, secret) {
        await db.query('UPDATE api_keys SET webhook_secret = $1 WHERE id = $2', [secret, id]);
      },
    },
    credits: {
      async charge(keyId, amount, period, ref, at, record) {
        // The common case is one statement (autocommit): one round trip per charged verification.
        if (!record) {
          const balance = await debit(db, keyId, amount, period, 'charge', ref, at);
          return balance === null ? { ok: false, balance: await currentBalance(db, keyId) } : { ok: true, balance };
        }
        return tx(db, async (c) => {
          const balance = await debit(c, keyId, amount, period, 'charge', ref, at);
          if (balance === null) return { ok: false, balance: await currentBalance(c, keyId) };
          await c.query('UPDATE idempotency SET status = $1, body = $2, completed_at = $3 WHERE key_id = $4 AND idem_key = $5', [
            record.response.status,
            record.response.body,
            at,
            keyId,
            record.idemKey,
          ]);
          return { ok: true, balance };
        });
      },
      async balance(keyId, period, at) {
        return tx(db, async (c) => {
          await rollover(c, keyId, period, at);
          return currentBalance(c, keyId);
        });
      },
      async adjust(keyId, opts, at) {
        return tx(db, async (c) => {
          // The row lock keeps a concurrent charge from slipping between the read and the write.
          const before = await one(c, 'SELECT * FROM api_keys WHERE id = $1 FOR UPDATE', [keyId]);
          if (!before) return null;
          if (opts.allowance !== undefined) await c.query('UPDATE api_keys SET allowance = $1 WHERE id = $2', [opts.allowance, keyId]);
          const balance = adjustedBalance(before.balance as number, opts);
          const delta = balance - (before.balance as number);
          if (delta !== 0) {
            await c.query('UPDATE api_keys SET balance = $1 WHERE id = $2', [balance, keyId]);
            await writeLedger(c, keyId, delta, 'adjust', null, balance, at);
          }
          return toKey((await one(c, 'SELECT * FROM api_keys WHERE id = $1', [keyId]))!);
        });
      },
      async ledger(keyId) {
        return all<LedgerEntry>(db, 'SELECT id, key_id, delta, reason, ref, balance_after, created_at FROM credit_ledger WHERE key_id = $1 ORDER BY id', [keyId]);
      },
    },
    idempotency: {
      async begin(keyId, idemKey, hash, at, staleBefore): Promise<IdempotencyBegin> {
        return tx(db, async (c) => {
          const inserted = await changed(
            c,
            'INSERT INTO idempotency (key_id, idem_key, request_hash, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (key_id, idem_key) DO NOTHING',
            [keyId, idemKey, hash, at],
          );
          if (inserted) return { state: 'new' };
          const row = await one(c, 'SELECT * FROM idempotency WHERE key_id = $1 AND idem_key = $2 FOR UPDATE', [keyId, idemKey]);
          // Released between our insert and this read: the caller may retry as new.
          if (!row) return { state: 'in_progress' };
          if (row.request_hash !== hash) return { state: 'mismatch' };
          if (row.status !== null) return { state: 'replay', status: row.status as number, body: row.body as string };
          // A claim nobody completed (its process died mid-request) is taken over rather than blocking forever.
          if ((row.created_at as string) < staleBefore) {
            await c.query('UPDATE idempotency SET created_at = $1 WHERE key_id = $2 AND idem_key = $3', [at, keyId, idemKey]);
            return { state: 'new' };
          }
          return { state: 'in_progress' };
        });
      },
      async complete(keyId, idemKey, response, at) {
        await db.query('UPDATE idempotency SET status = $1, body = $2, completed_at = $3 WHERE key_id = $4 AND idem_key = $5', [response.status, response.body, at, keyId, idemKey]);
      },
      async release(keyId, idemKey) {
        await db.query('DELETE FROM idempotency WHERE key_id = $1 AND idem_key = $2 AND status IS NULL', [keyId, idemKey]);
      },
    },
    insurers: {
      async upsertMany(rows) {
        return tx(db, async (c) => {
          let n = 0;
          for (const r of rows) {
            n += await changed(
              c,
              `INSERT INTO insurers (country, reference, scheme, name, aliases, regulated, authorised, lei, source, source_detail, demo, priority, updated_at)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
               ON CONFLICT (country, reference) DO UPDATE SET scheme = excluded.scheme, name = excluded.name, aliases = excluded.aliases,
                 regulated = excluded.regulated, authorised = excluded.authorised, lei = excluded.lei, source = excluded.source,
                 source_detail = excluded.source_detail, demo = excluded.demo, priority = excluded.priority, updated_at = excluded.updated_at
               WHERE excluded.priority >= insurers.priority`,
              [r.country, r.reference, r.scheme, r.name, JSON.stringify(r.aliases), r.regulated, r.authorised, r.lei, r.source, r.source_detail, r.demo, r.priority, r.updated_at],
            );
          }
          await c.query(bumpVersion);
          return n;
        });
      },
      async listByCountry(country) {
        return (await all(db, 'SELECT * FROM insurers WHERE country = $1 ORDER BY reference COLLATE "C"', [country])).map(toInsurer);
      },
      async get(country, reference) {
        const r = await one(db, 'SELECT * FROM insurers WHERE country = $1 AND reference = $2', [country, reference]);
        return r ? toInsurer(r) : null;
      },
      async count() {
        return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM insurers'))!.n;
      },
      async version() {
        return (await one<{ value: number }>(db, "SELECT value FROM meta WHERE name = 'insurers_version'"))!.value;
      },
    },
    registry: {
      async upsertMany(rows) {
        return tx(db, async (c) => {
          let n = 0;
          for (const r of rows) {
            n += await changed(
              c,
              `INSERT INTO registry_policies (country, policy_number, insurance_type, insurer_reference, start_date, end_date, status, vehicle_registration, source, demo)
               VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
               ON CONFLICT (country, policy_number, insurance_type) DO UPDATE SET insurer_reference = excluded.insurer_reference,
                 start_date = excluded.start_date, end_date = excluded.end_date, status = excluded.status,
                 vehicle_registration = excluded.vehicle_registration, source = excluded.source, demo = excluded.demo`,
              [r.country, r.policy_number, r.insurance_type, r.insurer_reference, r.start_date, r.end_date, r.status, r.vehicle_registration, r.source, r.demo],
            );
          }
          return n;
        });
      },
      async find(country, policyNumber) {
        return (await all(db, 'SELECT * FROM registry_policies WHERE country = $1 AND policy_number = $2', [country, policyNumber])).map(toPolicy);
      },
      async setCoverage(rows) {
        await tx(db, async (c) => {
          for (const r of rows) {
            // A coverage is demo only while every source behind it is demo (SQLite: min(demo)).
            await c.query(
              `INSERT INTO registry_coverage (country, insurance_type, source, demo, demo_covered, updated_at) VALUES ($1, $2, $3, $4, $4, $5)
               ON CONFLICT (country, insurance_type) DO UPDATE SET source = excluded.source, demo = registry_coverage.demo AND excluded.demo,
                 demo_covered = registry_coverage.demo_covered OR excluded.demo_covered, updated_at = excluded.updated_at`,
              [r.country, r.insurance_type, r.source, r.demo, r.updated_at],
            );
          }
        });
      },
      async coverage(country, type) {
        const r = await one(db, 'SELECT * FROM registry_coverage WHERE country = $1 AND insurance_type = $2', [country, type]);
        return r ? toCoverage(r) : null;
      },
      async count() {
        return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM registry_policies'))!.n;
      },
    },
    sanctions: {
      async replaceList(list, rows) {
        return tx(db, async (c) => {
          await c.query('DELETE FROM sanctions WHERE list = $1', [list]);
          for (const r of rows) {
            await c.query('INSERT INTO sanctions (list, name, country, reference, demo) VALUES ($1, $2, $3, $4, $5)', [list, r.name, r.country, r.reference, r.demo]);
          }
          await c.query(bumpVersion);
          return rows.length;
        });
      },
      async all() {
        return (await all(db, 'SELECT list, name, country, reference, demo FROM sanctions ORDER BY list COLLATE "C", name COLLATE "C"')).map((r) => ({
          list: r.list as string,
          name: r.name as string,
          country: (r.country as TCountry | null) ?? null,
          reference: (r.reference as string | null) ?? null,
          demo: r.demo as boolean,
        }));
      },
    },
    async ping() {
      try {
        return (await one<{ ok: number }>(db, 'SELECT 1 AS ok'))?.ok === 1;
      } catch {
        return false;
      }
    },
    async close() {
      if (!db.ended) await db.end();
    },
  };
}
