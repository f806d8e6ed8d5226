/**
 * npm run migrate:pg: a SQLite store filled through the store interface with the storage contract's
 * records is moved into a fresh PostgreSQL database, and both stores then answer the same through the
 * interface: keys authenticate, balances and ledgers match, work resumes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { authenticate } from '../../connector/src/auth/keys.js';
import { openStore } from '../../connector/src/store/index.js';
import { COPIED_TABLES, SKIPPED_TABLES, sqliteTables, tableListProblems } from '../../connector/src/store/sqlite-to-postgres.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';
import {
  at,
  dataset,
  finishOf,
  insurer,
  keyRequest,
  newJob,
  newKey,
  outboxRow,
  PERIOD,
  policy,
  schedule,
  writebackRow,
} from '../store/contract/fixtures.js';

const run = promisify(execFile);
const migrateCli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'connector/src/cli/migrate-pg.ts', ...args], { cwd: process.cwd() });

const files: string[] = [];
function sqliteFile(): string {
  const f = tempDbPath('move');
  files.push(f);
  return f;
}
afterAll(() => {
  for (const f of files) fs.rmSync(path.dirname(f), { recursive: true, force: true });
});

const freshPostgres = () => createDatabase(inject('postgresUrl'), 'move');
const DOCUMENT = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256))]);

/** Writes through the interface what each part of the store keeps; returns the minted key. */
async function fill(store: Store): Promise<{ key: string; id: string }> {
  const minted = await createApiKey(store, {
    mode: 'live',
    name: 'Acme Brokers',
    email: 'ops@acme.example',
    scopes: ['verify', 'extract', 'datasets'],
    credits: 50,
  });
  await store.keys.create(newKey('k1', { allowance: 20, scopes: ['verify', 'datasets'], email: 'k1@example.com' }));
  await store.keys.create(newKey('k2', { mode: 'test', lookup: 'lk_k2' }));
  await store.keys.revoke('k2', at(5));
  await store.keys.touch('k1', at(6));
  await store.credits.charge('k1', 2, PERIOD, 'req_a', at(1));
  await store.credits.adjust('k1', { add: 5 }, at(2));
  await store.credits.charge(minted.record.id, 3, PERIOD, 'req_b', at(3));
  expect(await store.idempotency.begin('k1', 'idem-1', 'hash-1', at(1), at(0))).toEqual({ state: 'new' });
  await store.idempotency.complete('k1', 'idem-1', { status: 200, body: '{"ok":true}' }, at(2));

  // A finished job with its webhook delivery (attempted once) and Sheets write-back; a pending extraction holding a document.
  expect(await store.jobs.create(newJob('j1'), { amount: 1, period: PERIOD, ref: 'job:j1' })).toEqual({ ok: true });
  expect((await store.jobs.lease('w1', at(1), at(61)))?.id).toBe('j1');
  const finished = finishOf('j1', 'w1', {
    settlement: { charge: 1, refund: 0, ref: 'job:j1' },
    outbox: outboxRow('o1', { subject_id: 'j1', created_at: at(100) }),
    writeback: writebackRow('wb1', { subject_id: 'j1', created_at: at(100) }),
  });
  expect(await store.jobs.finish(finished)).toBe(true);
  expect((await store.outbox.lease(at(200), at(260)))?.id).toBe('o1');
  await store.outbox.recordAttempt(
    'o1',
    { attempt: 1, at: at(200), status: 500, error: 'HTTP 500', duration_ms: 12 },
    { status: 'pending', next_attempt_at: at(300) },
  );
  // A job whose retention ran out: only the record that it expired is left.
  expect(await store.jobs.create(newJob('j3', { created_at: at(2) }), null)).toEqual({ ok: true });
  expect((await store.jobs.lease('w3', at(3), at(63)))?.id).toBe('j3');
  expect(await store.jobs.finish(finishOf('j3', 'w3', { at: at(50) }))).toBe(true);
  expect(await store.retention.expireJobs(at(60), at(500), 10)).toBe(1);
  // The result history: the entry of a verification, with its input and result as JSON text.
  await store.history.record({
    id: 'v1',
    key_id: 'k1',
    source: 'async',
    source_id: 'j1',
    policy_number: 'UKM10000001',
    country: 'UK',
    insurance_type: 'motor',
    status: 'verified',
    confidence: 0.93,
    checks: '[{"source":"format","outcome":"pass","detail":"ok"}]',
    input: '{"policy_number":"UKM-1000-0001"}',
    result: '{"status":"verified"}',
    created_at: at(100),
  });
  const sheetTarget = JSON.stringify({ spreadsheet_id: 'sheet-1', sheet: 'Policies' });
  expect(
    await store.jobs.create(
      newJob('j2', {
        kind: 'extraction',
        document: DOCUMENT,
        created_at: at(10),
        sheet_target: sheetTarget,
        webhook_url: 'https://hooks.example.com/x',
      }),
      null,
    ),
  ).toEqual({ ok: true });

  expect(
    await store.batches.create(
      {
        id: 'b1',
        key_id: 'k1',
        webhook_url: 'https://hooks.example.com/b',
        created_at: at(20),
        items: [
          { idx: 0, policy_number: 'P1', input: '{"policy_number":"P1"}', state: 'pending', result: null, error: null, reserved: 1 },
          { idx: 1, policy_number: null, input: '{}', state: 'done', result: null, error: '{"code":"invalid"}', reserved: 0 },
        ],
      },
      { amount: 1, period: PERIOD, ref: 'batch:b1' },
    ),
  ).toEqual({ ok: true });

  await store.datasets.upsert(
    dataset('uk-cpi', { title: 'Zürich consumer prices', refresh: { url: 'https://example.org/cpi.csv', format: 'csv' } }),
    at(0),
  );
  await store.datasets.writePoints(
    'uk-cpi',
    [
      { date: '2026-01-01', value: 1.5 },
      { date: '2026-02-01', value: -0.25 },
    ],
    'replace',
    at(1),
  );
  await store.schedules.create(schedule('s1', { output_mode: 'append' }));
  expect((await store.schedules.leaseDue(at(70), at(130)))?.id).toBe('s1');
  await store.schedules.finishRun('s1', at(70), { finished_at: at(75), status: 'failed', rows: null, error: 'HTTP 403' }, at(3600));
  await store.sheetBindings.issue({ id: 'sb1', key_id: 'k1', spreadsheet_id: 'sheet-1', token_hash: 'th-1', created_at: at(0) });
  await store.sheetBindings.recordCheck('sb1', 'th-1', true, at(1));
  await store.portal.createRequest(keyRequest('r1'));
  await store.portal.consumeRequest('hash-r1', at(10));
  await store.portal.attachKey('r1', minted.record.id);
  await store.portal.createRequest(keyRequest('r2', { mode: 'test' }));

  await store.insurers.upsertMany([
    insurer('5096', { aliases: ['HDI', 'HDI Global'], lei: 'LEI123' }),
    insurer('9999', { demo: true, authorised: false }),
  ]);
  await store.registry.upsertMany([policy('UKO-1000-0001'), policy('UKO-1000-0001', { demo: true, source: 'demo' })]);
  await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'mid-extract', demo: false, updated_at: at(0) }]);
  await store.sanctions.replaceList('ofsi', [
    { name: 'Blocked Insurance Ltd', country: 'UK', list: 'ofsi', reference: 'OFSI-1', demo: false },
    { name: 'Other Blocked', country: null, list: 'ofsi', reference: null, demo: false },
  ]);
  return { key: minted.key, id: minted.record.id };
}

/** Everything the interface reads back from what fill() wrote. */
async function view(store: Store) {
  const keys = await store.keys.list();
  const byKey = async <T>(fn: (id: string) => Promise<T>) =>
    Object.fromEntries(await Promise.all(keys.map(async (k) => [k.id, await fn(k.id)])));
  const sort = <T>(xs: T[]) => [...xs].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return {
    keys,
    ledgers: await byKey((id) => store.credits.ledger(id)),
    balances: await byKey((id) => store.credits.balance(id, PERIOD, at(1000))),
    documentBytes: await byKey((id) => store.jobs.documentBytes(id)),
    idempotency: await store.idempotency.begin('k1', 'idem-1', 'hash-1', at(3), at(0)),
    jobs: [await store.jobs.get('j1'), await store.jobs.get('j2')],
    document: await store.jobs.document('j2'),
    expired: await store.retention.expired('j3'),
    history: await store.history.list({ key_id: 'k1', limit: 10 }),
    batch: [await store.batches.get('b1'), await store.batches.items('b1')],
    outbox: [await store.outbox.get('o1'), await store.outbox.list('k1', { limit: 10, offset: 0 }), await store.outbox.forSubject('j1')],
    writeback: await store.writebacks.forSubject('j1'),
    schedules: [await store.schedules.list('k1'), await store.schedules.runs('s1', 10)],
    bindings: await store.sheetBindings.list('k1'),
    portal: [await store.portal.findRequest('hash-r1'), await store.portal.findRequest('hash-r2')],
    insurers: [await store.insurers.listByCountry('DE'), await store.insurers.count()],
    registry: [
      await store.registry.find('UK', 'UKO-1000-0001'),
      await store.registry.coverage('UK', 'motor'),
      await store.registry.count(),
    ],
    sanctions: sort(await store.sanctions.all()),
    datasets: [
      await store.datasets.get('uk-cpi'),
      await store.datasets.series('uk-cpi', 10, 'earliest'),
      await store.datasets.refreshable(),
      (await store.datasets.search({ terms: ['zuri', 'consum'], limit: 10, offset: 0 })).items.map((d) => d.slug),
    ],
  };
}

describe('npm run migrate:pg', () => {
  it('knows every table of the SQLite schema: each is copied or skipped with a reason', async () => {
    const file = sqliteFile();
    await (await openStore({ databasePath: file })).close();
    const db = new Database(file, { readonly: true });
    try {
      expect(tableListProblems(db)).toEqual([]);
      expect(sqliteTables(db).length).toBe(COPIED_TABLES.length + Object.keys(SKIPPED_TABLES).length);
    } finally {
      db.close();
    }
    for (const why of Object.values(SKIPPED_TABLES)) expect(why.length).toBeGreaterThan(20);
  });

  it('moves contract data: the same key authenticates, balances, ledgers, jobs, batches, webhooks, Sheets and portal state read the same', async () => {
    const file = sqliteFile();
    const sqlite = await openStore({ databasePath: file });
    const minted = await fill(sqlite);
    const before = await view(sqlite);
    await sqlite.close();
    const url = await freshPostgres();

    const { stdout } = await migrateCli('--from', file, '--to', url);
    const out = JSON.parse(stdout);
    expect(out.copied).toMatchObject({
      api_keys: 3,
      credit_ledger: 5,
      jobs: 2,
      expired_work: 1,
      job_documents: 1,
      webhook_outbox: 1,
      webhook_attempts: 1,
      batch_items: 2,
    });
    expect(out.skipped).toEqual(SKIPPED_TABLES);

    const pg = await openStore({ databasePath: '', databaseUrl: url, poolSize: 2 });
    const again = await openStore({ databasePath: file });
    try {
      expect(pg.kind).toBe('postgres');
      for (const store of [again, pg]) {
        const auth = await authenticate(`Bearer ${minted.key}`, store.keys);
        expect(auth.ok, store.kind).toBe(true);
      }
      expect(await view(pg)).toEqual(before);
      expect(await view(again)).toEqual(before);

      // Work goes on on PostgreSQL: the ledger's ids continue after the copied ones, the pending extraction is leased and finished.
      const lastId = Math.max(...before.ledgers.k1!.map((e: { id: number }) => e.id));
      expect(await pg.credits.charge('k1', 1, PERIOD, 'after-move', at(2000))).toEqual({ ok: true, balance: before.balances.k1 - 1 });
      expect((await pg.credits.ledger('k1')).at(-1)).toMatchObject({ ref: 'after-move' });
      expect((await pg.credits.ledger('k1')).at(-1)!.id).toBeGreaterThan(lastId);
      expect((await pg.jobs.lease('w2', at(2000), at(2060), { documents: true }))?.id).toBe('j2');
      expect(await pg.jobs.finish(finishOf('j2', 'w2', { at: at(2001) }))).toBe(true);
      expect(await pg.jobs.get('j2')).toMatchObject({ status: 'complete' });
    } finally {
      await pg.close();
      await again.close();
    }
  }, 60_000);

  it('refuses a target that holds rows (exit 1), and --force replaces them', async () => {
    const file = sqliteFile();
    const sqlite = await openStore({ databasePath: file });
    await fill(sqlite);
    await sqlite.close();
    const url = await freshPostgres();
    const pg = await openStore({ databasePath: '', databaseUrl: url, poolSize: 1 });
    await pg.keys.create(newKey('already-here', { lookup: 'lk_already' }));
    await pg.close();

    await expect(migrateCli('--from', file, '--to', url)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not empty (rows in api_keys)'),
    });
    const { stdout } = await migrateCli('--from', file, '--to', url, '--force');
    expect(JSON.parse(stdout).copied.api_keys).toBe(3);
    const after = await openStore({ databasePath: '', databaseUrl: url, poolSize: 1 });
    try {
      expect(await after.keys.get('already-here')).toBeNull();
      expect((await after.keys.list()).length).toBe(3);
    } finally {
      await after.close();
    }
  }, 60_000);

  it('refuses a SQLite table it does not know, and a SQLite file in use, before writing anything', async () => {
    const file = sqliteFile();
    const sqlite = await openStore({ databasePath: file });
    await fill(sqlite);
    const url = await freshPostgres();
    await expect(migrateCli('--from', file, '--to', url)).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('in use') });
    await sqlite.close();

    const raw = new Database(file);
    raw.exec('CREATE TABLE audit_trail (at TEXT NOT NULL, what TEXT NOT NULL)');
    raw.close();
    await expect(migrateCli('--from', file, '--to', url)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('table audit_trail is neither copied nor skipped'),
    });
    const pg = await openStore({ databasePath: '', databaseUrl: url, poolSize: 1 });
    try {
      expect(await pg.keys.list()).toEqual([]);
    } finally {
      await pg.close();
    }
    await expect(migrateCli('--from', file)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--to') });
  }, 60_000);
});
