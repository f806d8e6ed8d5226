/**
 * npm run backup and npm run restore on the SQLite store: a backup taken while a real connector takes
 * writes holds everything answered before it started (WAL included); a restore checks the copy and
 * never replaces a database a connector holds.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { authenticate } from '../../connector/src/auth/keys.js';
import { openStore } from '../../connector/src/store/index.js';
import { startBuiltConnector, stopBuiltConnector } from '../helpers/built-connector.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
const cli = (name: 'backup' | 'restore', ...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', `connector/src/cli/${name}.ts`, ...args], { cwd: process.cwd() });

const dirs: string[] = [];
function tempDir(label: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `covercheck-${label}-`));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** What the load had been answered 2xx for: committed, since the connector answers after its commit. */
interface Committed {
  keys: { id: string; key: string }[];
  jobs: string[];
  /** Charged sync verifications answered, by key id. */
  charges: Map<string, number>;
}

const snapshot = (c: Committed): Committed => ({ keys: [...c.keys], jobs: [...c.jobs], charges: new Map(c.charges) });

describe('npm run backup while the connector takes writes', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
    await importOperatorRegistry(srv.store);
  });
  afterAll(async () => srv?.close());

  it('the backup holds every key, job and charge answered before it started', async () => {
    const committed: Committed = { keys: [], jobs: [], charges: new Map() };
    const payers = [await srv.key({ mode: 'live', credits: 100_000 }), await srv.key({ mode: 'live', credits: 100_000 })];
    let stop = false;
    // Four writers: each loop mints a key now and then, submits an async job and makes a charged sync call.
    const writer = async (n: number) => {
      for (let i = 0; !stop; i++) {
        const payer = payers[(n + i) % payers.length]!;
        if (i % 5 === 0) committed.keys.push(await srv.key({ mode: 'test', name: `load ${n}-${i}` }));
        const job = await call(srv.url, 'POST', '/api/v1/verify/async', { key: payer.key, body: OPERATOR_UK_MOTOR });
        expect(job.status).toBe(202);
        committed.jobs.push(job.body.job_id);
        const charged = await call(srv.url, 'POST', '/api/v1/verify', { key: payer.key, body: OPERATOR_UK_MOTOR });
        expect(charged.status).toBe(200);
        expect(charged.body.credits_charged).toBe(1);
        committed.charges.set(payer.id, (committed.charges.get(payer.id) ?? 0) + 1);
      }
    };
    // A reader holding its snapshot from before the load keeps checkpoints from moving the load's commits
    // into the database file, as on a busy connector whose WAL holds its latest commits: a copy of the
    // file alone would miss every one of them, whenever it is taken.
    const pin = new Database(srv.dbPath, { readonly: true });
    pin.exec('BEGIN');
    pin.prepare('SELECT count(*) FROM api_keys').get();
    const writers = [0, 1, 2, 3].map(writer);
    while (committed.jobs.length < 40) await new Promise((r) => setTimeout(r, 20));

    const file = path.join(tempDir('backup'), 'covercheck-backup.db');
    const before = snapshot(committed);
    let out;
    try {
      out = await cli('backup', '--db', srv.dbPath, file);
    } finally {
      stop = true;
      const ended = await Promise.allSettled(writers);
      pin.exec('COMMIT');
      pin.close();
      for (const w of ended) if (w.status === 'rejected') throw w.reason;
    }
    // The load went on while the backup ran: what it holds was not quiet when copied.
    expect(committed.jobs.length).toBeGreaterThan(before.jobs.length);
    expect(JSON.parse(out.stdout)).toMatchObject({ file, integrity: 'ok', schema_version: expect.any(Number) });
    expect(fs.existsSync(`${file}-wal`)).toBe(false);

    const copy = await openStore({ databasePath: file });
    try {
      const missingKeys: string[] = [];
      for (const k of before.keys) if (!(await authenticate(`Bearer ${k.key}`, copy.keys)).ok) missingKeys.push(k.id);
      const missingJobs: string[] = [];
      for (const id of before.jobs) if (!(await copy.jobs.get(id))) missingJobs.push(id);
      const shortCharges: string[] = [];
      for (const [keyId, n] of before.charges) {
        const charges = (await copy.credits.ledger(keyId)).filter((e) => e.reason === 'charge').length;
        if (charges < n) shortCharges.push(`${keyId}: ${charges} of ${n}`);
      }
      expect({ missingKeys, missingJobs, shortCharges }).toEqual({ missingKeys: [], missingJobs: [], shortCharges: [] });
      expect(before.keys.length).toBeGreaterThan(5);
    } finally {
      await copy.close();
    }
  }, 120_000);

  it('refuses to overwrite an existing file without --force (exit 2), and a missing database (exit 1)', async () => {
    const file = path.join(tempDir('backup'), 'taken.db');
    fs.writeFileSync(file, 'an older backup');
    await expect(cli('backup', '--db', srv.dbPath, file)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--force') });
    expect(fs.readFileSync(file, 'utf8')).toBe('an older backup');
    await expect(cli('backup', '--db', path.join(path.dirname(file), 'nothing-here.db'), `${file}.2`)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('No database'),
    });
    expect(fs.existsSync(path.join(path.dirname(file), 'nothing-here.db'))).toBe(false);
  }, 60_000);
});

describe('npm run restore', () => {
  /** A store file with one key and one job, and a backup of it; returns their paths and the key. */
  async function backedUp(label: string) {
    const dir = tempDir(label);
    const db = path.join(dir, 'covercheck.db');
    const store = await openStore({ databasePath: db });
    const { key, record } = await createApiKey(store, { mode: 'test', name: 'restored key', scopes: ['verify'] });
    await store.close();
    const backup = path.join(dir, 'backup.db');
    await cli('backup', '--db', db, backup);
    return { dir, db, backup, key, keyId: record.id };
  }

  let child: Awaited<ReturnType<typeof startBuiltConnector>> | null = null;
  afterEach(async () => {
    if (child) await stopBuiltConnector(child);
    child = null;
  });

  it('puts a backup in place of a missing database; a connector started on it knows the key', async () => {
    const { dir, backup, key } = await backedUp('restore');
    const target = path.join(dir, 'fresh', 'covercheck.db');
    const { stdout } = await cli('restore', '--db', target, backup);
    expect(JSON.parse(stdout)).toMatchObject({ file: backup, to: target, integrity: 'ok', replaced: null });
    child = await startBuiltConnector({ dir: path.dirname(target) });
    const me = await call(child.url, 'GET', '/api/v1/account', { key });
    expect(me.status).toBe(200);
    expect(me.body.name).toBe('restored key');
  }, 90_000);

  it('refuses to replace an existing database without --force (exit 2); with --force it keeps the old one aside', async () => {
    const { dir, db, backup, keyId } = await backedUp('restore-force');
    const later = await openStore({ databasePath: db });
    const { record: added } = await createApiKey(later, { mode: 'test', name: 'made after the backup', scopes: ['verify'] });
    await later.close();
    await expect(cli('restore', '--db', db, backup)).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--force') });
    const { stdout } = await cli('restore', '--db', db, '--force', backup);
    const out = JSON.parse(stdout);
    expect(out.replaced).toMatch(new RegExp(`^${dir}/covercheck\\.db\\.replaced-`));
    const restored = await openStore({ databasePath: db });
    expect(await restored.keys.get(keyId)).not.toBeNull();
    expect(await restored.keys.get(added.id)).toBeNull();
    await restored.close();
    const kept = await openStore({ databasePath: out.replaced });
    expect(await kept.keys.get(added.id)).not.toBeNull();
    await kept.close();
  }, 60_000);

  it('refuses, even with --force, while a connector holds the database, and leaves it as it was', async () => {
    const { dir, backup } = await backedUp('restore-busy');
    child = await startBuiltConnector({ dir });
    await expect(cli('restore', '--db', path.join(dir, 'covercheck.db'), '--force', backup)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('in use'),
    });
    expect(fs.readdirSync(dir).filter((f) => f.includes('replaced') || f.includes('restoring'))).toEqual([]);
    expect((await call(child.url, 'GET', '/api/v1/account', { key: child.key })).status).toBe(200);
  }, 90_000);

  it('refuses a damaged backup and one made by a newer schema, before touching the target', async () => {
    const { dir, backup } = await backedUp('restore-bad');
    const target = path.join(dir, 'target.db');
    const damaged = path.join(dir, 'damaged.db');
    const bytes = fs.readFileSync(backup);
    // Overwrite the middle of the file (page contents, not the header) with garbage.
    bytes.fill(0x5a, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 8192);
    fs.writeFileSync(damaged, bytes);
    await expect(cli('restore', '--db', target, damaged)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/integrity|malformed|not a database/i),
    });
    const newer = path.join(dir, 'newer.db');
    fs.copyFileSync(backup, newer);
    const raw = new Database(newer);
    raw
      .prepare('INSERT INTO schema_migrations (id, name, applied_at) VALUES (9999, ?, ?)')
      .run('from the future', new Date().toISOString());
    raw.close();
    await expect(cli('restore', '--db', target, newer)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('newer'),
    });
    expect(fs.readdirSync(dir).sort()).toEqual(['backup.db', 'covercheck.db', 'damaged.db', 'newer.db']);
  }, 60_000);
});
