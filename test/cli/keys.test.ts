import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { authenticate } from '../../connector/src/auth/keys.js';
import { openStore } from '../../connector/src/store/index.js';
import { tempDbPath } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';

const run = promisify(execFile);
const db = tempDbPath('cli');
const keysCli = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'connector/src/cli/keys.ts', ...args, '--db', db], { cwd: process.cwd() });

afterAll(() => fs.rmSync(path.dirname(db), { recursive: true, force: true }));

describe('npm run keys', () => {
  let created: any;
  it('create prints one JSON object with the key, and the key authenticates', async () => {
    const { stdout } = await keysCli(
      'create',
      '--mode',
      'live',
      '--name',
      'Acme Brokers',
      '--credits',
      '25',
      '--scopes',
      'verify,datasets',
    );
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    created = JSON.parse(lines[0]!);
    expect(created).toMatchObject({
      name: 'Acme Brokers',
      mode: 'live',
      allowance: 25,
      balance: 25,
      scopes: ['verify', 'datasets'],
      status: 'active',
    });
    expect(created.key).toMatch(/^pk_live_[A-Za-z0-9]{44}$/);
    expect(created.hash).toBeUndefined();
    const store = await openStore({ databasePath: db });
    expect((await authenticate(`Bearer ${created.key}`, store.keys)).ok).toBe(true);
    await store.close();
  });
  it('list shows keys without secrets or hashes', async () => {
    const { stdout } = await keysCli('list');
    const list = JSON.parse(stdout);
    expect(list).toHaveLength(1);
    expect(stdout).not.toContain(created.key);
    expect(list[0].hash).toBeUndefined();
  });
  it('credits --add adjusts the balance and shows the ledger', async () => {
    const { stdout } = await keysCli('credits', '--id', created.id, '--add', '5');
    expect(JSON.parse(stdout)).toMatchObject({
      id: created.id,
      balance: 30,
      allowance: 25,
      ledger: [{ delta: 5, reason: 'adjust', balance_after: 30 }],
    });
  });
  it('revoke makes the key invalid', async () => {
    await keysCli('revoke', '--id', created.id);
    const store = await openStore({ databasePath: db });
    expect(await authenticate(`Bearer ${created.key}`, store.keys)).toMatchObject({ ok: false, error: 'invalid_api_key' });
    await store.close();
  });
  it('bad arguments exit 2 with usage', async () => {
    await expect(keysCli('create', '--mode', 'prod', '--name', 'x')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--mode must be live or test'),
    });
    await expect(keysCli('create', '--mode', 'test', '--name', 'x', '--scopes', 'verify,admin')).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('Unknown scope "admin"'),
    });
    await expect(keysCli('frobnicate')).rejects.toMatchObject({ code: 2 });
  });
  it('--help prints the usage and exits 0, for every operator CLI', async () => {
    const { stdout } = await keysCli('--help');
    expect(stdout).toContain('npm run keys -- create --mode live|test');
    expect((await keysCli('create', '-h')).stdout).toContain('npm run keys -- list');
    for (const [cli, words] of [
      ['datasets.ts', 'npm run datasets:import'],
      ['registry-import.ts', 'registry:import'],
      ['register-import.ts', 'npm run register:import'],
      ['backup.ts', 'npm run backup -- FILE'],
      ['restore.ts', 'npm run restore -- FILE'],
      ['migrate-pg.ts', 'npm run migrate:pg -- --from'],
    ] as const) {
      const out = await run(process.execPath, ['--import', 'tsx', `connector/src/cli/${cli}`, '--help'], { cwd: process.cwd() });
      expect(out.stdout, cli).toContain(words);
    }
  });
});

describe('npm run registry:import and register:import', () => {
  const tmp = path.dirname(db);
  it('registry:import loads policies, declares coverage and refuses a bad file with exit 2', async () => {
    const file = path.join(tmp, 'policies.csv');
    fs.writeFileSync(
      file,
      'policy_number,country,insurance_type,insurer_reference,start_date,end_date,status\nMUT-555-0001,FR,health,21090402,2026-01-01,2030-12-31,active\n',
    );
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'connector/src/cli/registry-import.ts',
      file,
      '--source',
      'acme-feed',
      '--db',
      db,
    ]);
    expect(JSON.parse(stdout)).toEqual({ file, source: 'acme-feed', stored: 1, coverage: ['FR:health'] });
    const store = await openStore({ databasePath: db });
    expect(await store.registry.coverage('FR', 'health')).toMatchObject({ source: 'acme-feed', demo: false });
    expect(await store.registry.find('FR', 'MUT5550001')).toHaveLength(1);
    await store.close();
    fs.writeFileSync(file, 'policy_number,country,insurance_type,status\nX1,ES,motor,active\n');
    await expect(
      run(process.execPath, ['--import', 'tsx', 'connector/src/cli/registry-import.ts', file, '--db', db]),
    ).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('country "ES"'),
    });
  });
  it('register:import loads an EIOPA export and the insurer becomes matchable', async () => {
    const file = path.join(tmp, 'eiopa.csv');
    const header = fs.readFileSync('connector/data/register/eiopa_register_sample.csv', 'utf8').split(/\r?\n/)[0]!;
    const cols = header.split(';').map((c) => c.replace(/^"|"$/g, ''));
    const row = cols.map(
      (c) =>
        ({
          'International Name': 'Beispiel Versicherung AG',
          'Name of NCA': 'Bundesanstalt für Finanzdienstleistungsaufsicht (BaFin)',
          'Home Country': 'DE',
          'Identification code': '9999',
          'Official name of the entity': 'Beispiel Versicherung AG',
          'Cross border status': 'Domestic undertaking',
          'EU Country where the entity operates': 'DE',
          'Registration start date': '01/01/2010 00:00:00',
        })[c] ?? '',
    );
    fs.writeFileSync(file, `${header}\n${row.map((v) => `"${v}"`).join(';')}\n`);
    const { stdout } = await run(process.execPath, [
      '--import',
      'tsx',
      'connector/src/cli/register-import.ts',
      '--format',
      'eiopa',
      file,
      '--db',
      db,
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ format: 'eiopa', parsed: 1, stored: 1 });
    const store = await openStore({ databasePath: db });
    expect(await store.insurers.get('DE', '9999')).toMatchObject({
      name: 'Beispiel Versicherung AG',
      source: 'eiopa-register',
      authorised: true,
    });
    await store.close();
  });
});

describe('the CLIs on PostgreSQL (COVERCHECK_DATABASE_URL, as on a several-instance deployment)', () => {
  it('keys create and register:import write to the database named by COVERCHECK_DATABASE_URL', async () => {
    const url = await createDatabase(inject('postgresUrl'), 'cli');
    const env = { ...process.env, COVERCHECK_DATABASE_URL: url, COVERCHECK_DB: path.join(path.dirname(db), 'must-not-be-used.db') };
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'connector/src/cli/keys.ts', 'create', '--mode', 'test', '--name', 'On PG'],
      { env },
    );
    const created = JSON.parse(stdout);
    const { stdout: imported } = await run(
      process.execPath,
      ['--import', 'tsx', 'connector/src/cli/register-import.ts', '--format', 'eiopa', 'connector/data/register/eiopa_register_sample.csv'],
      { env },
    );
    expect(JSON.parse(imported)).toMatchObject({ format: 'eiopa', stored: expect.any(Number) });
    expect(fs.existsSync(env.COVERCHECK_DB)).toBe(false);
    const store = await openStore({ databasePath: '', databaseUrl: url });
    try {
      expect(store.kind).toBe('postgres');
      expect((await authenticate(`Bearer ${created.key}`, store.keys)).ok).toBe(true);
      expect(await store.insurers.count()).toBe(JSON.parse(imported).parsed);
    } finally {
      await store.close();
    }
  });
});

describe('the CLIs read the environment through config.ts', () => {
  it('a malformed COVERCHECK_DATABASE_URL is refused with the same readable message the server gives, exit 1, nothing opened', async () => {
    const env = {
      ...process.env,
      COVERCHECK_DATABASE_URL: 'mysql://db.example.test/covercheck',
      COVERCHECK_DB: path.join(path.dirname(db), 'must-not-be-used-either.db'),
    };
    await expect(run(process.execPath, ['--import', 'tsx', 'connector/src/cli/keys.ts', 'list'], { env })).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Invalid configuration:\n  COVERCHECK_DATABASE_URL: must be postgres://'),
    });
    expect(fs.existsSync(env.COVERCHECK_DB)).toBe(false);
  });
});
