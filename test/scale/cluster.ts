/**
 * N connector instances as real child processes (the run's bundle, `node <build>/connector/main.js`,
 * as `npm start` and the crash test run it), each on its own loopback port, all on one database (PostgreSQL, or one
 * SQLite file in WAL mode) and whatever shared env the test gives them (e.g. one Redis).
 *
 * They start at once, as a deployment's instances would, each seeding its demo data on the same
 * database. `startCluster` resolves when every /healthz answers 200; `stop()` sends SIGTERM, waits
 * for a clean exit and SIGKILLs what is still alive after the grace period, reporting exit codes so a
 * test can check shutdown didn't hang (open Redis or database clients would keep a process alive).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { generateKey } from '../../connector/src/auth/keys.js';
import { openStore, type StoreOptions } from '../../connector/src/store/index.js';
import type { TScope } from '../../shared/account.js';
import { built } from '../helpers/build.js';
import { freePort } from '../helpers/services.js';

export type Backend = { kind: 'postgres'; databaseUrl: string } | { kind: 'sqlite'; path: string };

export interface ClusterOptions {
  instances: number;
  backend: Backend;
  /** Env for every instance (on top of loopback, port, database and quiet logs). */
  env?: Record<string, string>;
  /** Per-instance additions. */
  envFor?: (index: number) => Record<string, string>;
  startTimeoutMs?: number;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Killed with SIGKILL after the grace period: the process did not stop by itself. */
  killed: boolean;
}

export interface Cluster {
  urls: string[];
  backend: Backend;
  /** The sandbox key every instance was started with (COVERCHECK_SANDBOX_KEY, test mode). */
  sandboxKey: string;
  /** A new key, written straight to the shared database as `npm run keys -- create` would. */
  createKey(opts?: { mode?: 'live' | 'test'; credits?: number; scopes?: TScope[] }): Promise<{ key: string; id: string }>;
  /** The last output of instance i (stdout and stderr), for failure messages. */
  output(index: number): string;
  /** Stops every instance; resolves with how each one ended. */
  stop(graceMs?: number): Promise<Exit[]>;
}

/** A fresh SQLite backend in a temp folder; `remove()` deletes it after the cluster stopped. */
export function sqliteBackend(): Backend & { kind: 'sqlite'; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-cluster-'));
  return { kind: 'sqlite', path: path.join(dir, 'covercheck.db'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

function storeOptions(b: Backend): StoreOptions {
  return b.kind === 'postgres' ? { databasePath: ':unused:', databaseUrl: b.databaseUrl, poolSize: 2 } : { databasePath: b.path };
}

/** The parent's env minus our own variables, so nothing from the test run leaks into an instance. */
function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('COVERCHECK_')) env[k] = v;
  return env;
}

async function waitHealthy(url: string, child: ChildProcess, out: () => string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`instance at ${url} exited (${child.exitCode ?? child.signalCode}) before it was healthy:\n${out()}`);
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`instance at ${url} not healthy within ${timeoutMs} ms:\n${out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function stopChild(child: ChildProcess, graceMs: number): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return resolve({ code: child.exitCode, signal: child.signalCode, killed: false });
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, graceMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, killed });
    });
    child.kill('SIGTERM');
  });
}

export async function startCluster(opts: ClusterOptions): Promise<Cluster> {
  const sandboxKey = generateKey('test').key;
  const database =
    opts.backend.kind === 'postgres' ? { COVERCHECK_DATABASE_URL: opts.backend.databaseUrl } : { COVERCHECK_DB: opts.backend.path };
  const children: ChildProcess[] = [];
  const outputs: string[] = [];
  const urls: string[] = [];
  const stop = (graceMs = 10_000) => Promise.all(children.map((c) => stopChild(c, graceMs)));

  try {
    for (let i = 0; i < opts.instances; i++) {
      const port = await freePort();
      urls.push(`http://127.0.0.1:${port}`);
      outputs.push('');
      const child = spawn(process.execPath, [built().main], {
        env: {
          ...baseEnv(),
          HOST: '127.0.0.1',
          PORT: String(port),
          COVERCHECK_LOG_LEVEL: 'warn',
          // No PDF worker threads: these instances verify, they don't extract.
          COVERCHECK_EXTRACT_THREADS: '0',
          COVERCHECK_SANDBOX_KEY: sandboxKey,
          ...database,
          ...opts.env,
          ...opts.envFor?.(i),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const keep = (d: Buffer) => (outputs[i] = (outputs[i] + d.toString()).slice(-20_000));
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      children.push(child);
    }
    await Promise.all(children.map((c, i) => waitHealthy(urls[i]!, c, () => outputs[i]!, opts.startTimeoutMs ?? 60_000)));
  } catch (err) {
    await stop(2_000);
    throw err;
  }

  return {
    urls,
    backend: opts.backend,
    sandboxKey,
    async createKey(k = {}) {
      const store = await openStore(storeOptions(opts.backend));
      try {
        const { key, record } = await createApiKey(store, {
          mode: k.mode ?? 'test',
          name: 'cluster test',
          scopes: k.scopes ?? ['verify'],
          ...(k.credits !== undefined ? { credits: k.credits } : {}),
        });
        return { key, id: record.id };
      } finally {
        await store.close();
      }
    },
    output: (i) => outputs[i] ?? '',
    stop,
  };
}
