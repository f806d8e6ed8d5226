/**
 * A production install as docs/hosting.md makes one: the files deploy/release-files lists, packed and
 * unpacked elsewhere, `npm ci --omit=dev` from the npm cache (no network), then the connector and
 * every operator command run from the build, with no dev dependency (tsx, esbuild) on the machine.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Scripts that need a checkout with dev dependencies (building, testing, benches, the add-on); every other script is an operator command. */
const CHECKOUT_SCRIPTS = /^(build|prestart|test|test:gc|typecheck|bench|eval:.+|train:.+|corpus:.+|addon:.+|format|format:check)$/;
const OPERATOR_SCRIPTS = Object.keys(manifest.scripts).filter((name) => !CHECKOUT_SCRIPTS.test(name));

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-install-'));
const app = path.join(work, 'opt', 'covercheck');
const state = path.join(work, 'var', 'lib', 'covercheck');
/** The machine's environment without what an enclosing `npm test` exports (npm_config_*, npm_package_*), which a nested npm would read as its own settings. */
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
const connectorEnv = {
  ...cleanEnv,
  HOST: '127.0.0.1',
  PORT: '0',
  COVERCHECK_DB: path.join(state, 'covercheck.db'),
  COVERCHECK_MAIL_OUTBOX: path.join(state, 'outbox'),
  COVERCHECK_LOG_LEVEL: 'info',
};
/** `npm run -s NAME -- ARGS` in the installed folder, as an operator runs it. */
const npmRun = (name: string, ...args: string[]) => run('npm', ['run', '-s', name, '--', ...args], { cwd: app, env: connectorEnv });

let server: ChildProcess | undefined;

beforeAll(async () => {
  await run('npm', ['run', 'build', '--silent'], { cwd: ROOT, env: cleanEnv });
  fs.mkdirSync(app, { recursive: true });
  fs.mkdirSync(state, { recursive: true });
  const tarball = path.join(work, 'covercheck.tgz');
  await run('tar', ['-czf', tarball, '-T', 'deploy/release-files'], { cwd: ROOT });
  await run('tar', ['-xzf', tarball, '-C', app]);
  // --offline: from the npm cache (.ci/run's `npm ci` fills it), so the test needs no registry. An operator's install runs
  // better-sqlite3's install script (package.json's allowScripts approves it), which compiles the native module when no
  // prebuilt binary can be fetched: 2-5 minutes of CPU here. The repository's own `npm ci` (.ci/run) has just run that
  // same script with the same node, so the test skips it and takes that module: what it tests is the dependency split.
  await run('npm', ['ci', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], {
    cwd: app,
    env: cleanEnv,
    maxBuffer: 16 * 1024 * 1024,
  });
  fs.cpSync(path.join(ROOT, 'node_modules/better-sqlite3/build'), path.join(app, 'node_modules/better-sqlite3/build'), { recursive: true });
}, 600_000);

afterAll(async () => {
  if (server && server.exitCode === null && server.signalCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    // npm start runs sh and node under it: the whole group it leads, which this test started.
    process.kill(-server.pid!, 'SIGTERM');
    const timer = setTimeout(() => process.kill(-server!.pid!, 'SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  fs.rmSync(work, { recursive: true, force: true });
}, 120_000);

/** `npm start` in the installed folder; resolves once the connector prints its address and sandbox key. */
function npmStart(): Promise<{ url: string; key: string }> {
  const proc = spawn('npm', ['start'], { cwd: app, env: connectorEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server = proc;
  let out = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no sandbox key printed:\n${out}`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`npm start exited ${code}:\n${out}`)));
    proc.stdout!.on('data', () => {
      const m = /Covercheck connector on (http:\/\/[\d.]+:\d+)\nSandbox key \(never charged; shown once\): (pk_test_\w+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ url: m[1]!, key: m[2]! });
    });
  });
}

async function verify(url: string, key: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/api/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('a production install (npm ci --omit=dev) of the build', () => {
  it('holds what the lockfile needs in production and nothing it marks dev-only, with better-sqlite3 native module in place', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; optional?: boolean }>;
    };
    const entries = Object.entries(lock.packages).filter(([where]) => where.startsWith('node_modules/'));
    const devOnly = entries.filter(([, p]) => p.dev).map(([where]) => where);
    expect(devOnly).toEqual(
      expect.arrayContaining([
        'node_modules/esbuild',
        'node_modules/tsx',
        'node_modules/vitest',
        'node_modules/@google/clasp',
        'node_modules/playwright-core',
      ]),
    );
    expect(devOnly.filter((where) => fs.existsSync(path.join(app, where)))).toEqual([]);
    const needed = entries.filter(([, p]) => !p.dev && !p.optional).map(([where]) => where);
    expect(needed.filter((where) => !fs.existsSync(path.join(app, where, 'package.json')))).toEqual([]);
    for (const name of Object.keys(manifest.dependencies))
      expect(fs.existsSync(path.join(app, 'node_modules', name, 'package.json')), name).toBe(true);
    expect(fs.existsSync(path.join(app, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'))).toBe(true);
    // Neither the sources nor the build script came along: what runs is the bundle.
    expect(fs.existsSync(path.join(app, 'connector/src'))).toBe(false);
    expect(fs.existsSync(path.join(app, 'scripts'))).toBe(false);
    // deploy/ comes along: the server's copies of the unit, the settings and the Caddyfile (docs/hosting.md).
    expect(fs.readdirSync(path.join(app, 'deploy')).sort()).toEqual(fs.readdirSync(path.join(ROOT, 'deploy')).sort());
  });

  it('every operator command in package.json runs the build with node, and answers --help from the install', async () => {
    expect(OPERATOR_SCRIPTS).toEqual(expect.arrayContaining(['start', 'keys', 'registry:import', 'sanctions:import']));
    const notBuilt = OPERATOR_SCRIPTS.filter(
      (name) => !/^(\w+=\S+ )*node (--[\w-]+=?\S* )*dist\/[\w/.-]+\.js\b/.test(manifest.scripts[name]!),
    );
    expect(notBuilt.map((name) => `${name}: ${manifest.scripts[name]}`)).toEqual([]);
    for (const name of OPERATOR_SCRIPTS.filter((n) => n !== 'start')) {
      const { stdout } = await npmRun(name, '--help');
      expect(stdout.length, name).toBeGreaterThan(0);
    }
  }, 120_000);

  it('npm start serves a verification with the printed sandbox key; npm run keys mints a key it accepts; a scan is extracted', async () => {
    const main = path.join(app, 'dist/connector/main.js');
    const built = fs.statSync(main).mtimeMs;
    const { url, key } = await npmStart();
    // prestart builds only in a checkout: here the shipped build runs as it is.
    expect(fs.statSync(main).mtimeMs).toBe(built);
    const sandbox = await verify(url, key);
    expect(sandbox.status).toBe(200);
    expect(sandbox.body).toMatchObject({ status: 'verified', credits_charged: 0 });

    // The CLI finds the store through the same environment as the server (COVERCHECK_DB).
    const { stdout } = await npmRun('keys', 'create', '--mode', 'test', '--name', 'Operator check', '--scopes', 'verify,extract');
    const minted = JSON.parse(stdout) as { key: string; id: string };
    expect(minted.key).toMatch(/^pk_test_/);
    const withMinted = await verify(url, minted.key);
    expect(withMinted.status).toBe(200);
    expect(withMinted.body).toMatchObject({ status: 'verified' });
    expect((JSON.parse((await npmRun('keys', 'list')).stdout) as { id: string }[]).map((k) => k.id)).toContain(minted.id);

    // Extraction needs what only runs then: the extraction process's bundle, pdf.js and its canvas, tesseract and its language data.
    const form = new FormData();
    const pdf = fs.readFileSync(path.join(ROOT, 'test/fixtures/policies/001.pdf'));
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), '001.pdf');
    const upload = await fetch(`${url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.key}` },
      body: form,
    });
    expect(upload.status).toBe(202);
    const { job_id } = (await upload.json()) as { job_id: string };
    let job: { status: string; result?: { policy_number?: string } } = { status: 'pending' };
    for (let i = 0; i < 4 && !['complete', 'failed'].includes(job.status); i++) {
      const res = await fetch(`${url}/api/v1/jobs/${job_id}?wait=25`, { headers: { authorization: `Bearer ${minted.key}` } });
      job = (await res.json()) as typeof job;
    }
    const truth = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/policies/001.json'), 'utf8')) as {
      kind: string;
      policy_number: string;
    };
    expect(truth.kind).toBe('scanned');
    expect(job).toMatchObject({ status: 'complete', result: { policy_number: truth.policy_number } });
  }, 120_000);
});
