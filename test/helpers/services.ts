/**
 * Throwaway PostgreSQL and Redis servers for tests and benches: Debian's binaries, a fresh data
 * directory under the system temp dir, a free port on 127.0.0.1 only, stopped and deleted by the
 * returned `stop()`. A missing binary or a server that does not come up is an error, never a skip:
 * the scale-out suite must not pass by not running (`.ci/run` installs both packages).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/** Whether a process exists (signal 0 checks without sending; EPERM: it exists, another user's). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest)
    throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql (install Debian package `postgresql`; .ci/run does)');
  return path.join(root, newest, 'bin');
}

/**
 * PostgreSQL refuses to run as root: as root, initdb and the server run as the `postgres` system
 * user (spawned with its uid directly, so signals reach the server itself).
 */
function serverUser(): { uid: number; gid: number } | Record<string, never> {
  if (process.getuid?.() !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres']).toString().trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function waitFor(
  check: () => Promise<boolean>,
  what: string,
  child: ChildProcess,
  log: () => string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode}:\n${log()}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms:\n${log()}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

function stopChild(child: ChildProcess, signal: NodeJS.Signals, timeoutMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * Starts a PostgreSQL cluster. `durable: false` (tests) turns off fsync: the data directory is
 * thrown away, and only connector processes are killed in tests, never the database. Benches
 * keep the defaults so figures are what a deployment sees.
 */
export async function startPostgres(opts: { durable?: boolean } = {}): Promise<RunningService> {
  const bin = postgresBinDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-pg-'));
  const data = path.join(dir, 'data');
  fs.mkdirSync(data);
  const user = serverUser();
  if ('uid' in user) for (const d of [dir, data]) fs.chownSync(d, user.uid, user.gid);
  try {
    execFileSync(
      path.join(bin, 'initdb'),
      ['-D', data, '-U', 'covercheck', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
      { stdio: 'pipe', ...user },
    );
  } catch (err) {
    throw new Error(`initdb failed: ${(err as { stderr?: Buffer }).stderr?.toString() ?? String(err)}`);
  }
  const port = await freePort();
  const settings = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `port=${port}`,
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'max_connections=300',
    '-c',
    'shared_buffers=128MB',
    ...(opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
  ];
  let log = '';
  const child = spawn(path.join(bin, 'postgres'), ['-D', data, ...settings], { stdio: ['ignore', 'pipe', 'pipe'], ...user });
  child.stdout!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
  const url = `postgres://covercheck@127.0.0.1:${port}/postgres`;
  await waitFor(
    async () => {
      if (!(await canConnect(port))) return false;
      return /ready to accept connections/.test(log);
    },
    'PostgreSQL',
    child,
    () => log,
  );
  return {
    url,
    async stop() {
      // SIGINT is PostgreSQL's "fast" shutdown: disconnects clients, no wait for them.
      await stopChild(child, 'SIGINT');
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startRedis(): Promise<RunningService> {
  const bin = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => fs.existsSync(p));
  if (!bin) throw new Error('redis-server not found (install Debian package `redis-server`; .ci/run does)');
  const port = await freePort();
  let log = '';
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
  child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-8000)));
  await waitFor(
    () => canConnect(port),
    'Redis',
    child,
    () => log,
  );
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      await stopChild(child, 'SIGTERM');
    },
  };
}

/**
 * A fresh, empty database on the server behind `adminUrl`; one per test file or store keeps suites
 * apart. Copied from `template` (default template0, the pristine one) with STRATEGY FILE_COPY: a
 * file copy and two checkpoints, tens of milliseconds on the test server (fsync off), where the
 * default WAL_LOG strategy writes the whole template through the WAL, 0.3-1 s each. A template must
 * have no open connections while it is copied.
 */
export async function createDatabase(adminUrl: string, label = 'test', template = 'template0'): Promise<string> {
  const { default: pg } = await import('pg');
  const name = `cc_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${Math.random().toString(36).slice(2, 10)}`;
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`);
  } finally {
    await client.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}
