/**
 * The built connector (`dist/connector/main.js`, as `npm start` runs it) in a child process on
 * loopback, for tests that need a process of its own: its descriptors limited, its memory read, its
 * connections held, its start-up failures and stop seen. Ready when main.ts prints its address and
 * sandbox key (demo data must be on).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { built } from './build.js';

/** A spawned connector that may or may not start: what it wrote is kept. */
export interface ConnectorChild {
  proc: ChildProcess;
  /** Its folder: database, mail outbox. */
  dir: string;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited, with the moment (performance.now()). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  /** Resolves once it has exited and its pipes are closed: the extraction process it forked writes to them too. */
  closed: Promise<void>;
  /** Its log lines (JSON, one per line on stdout), parsed. */
  logs(): Record<string, unknown>[];
}

export interface SpawnOptions {
  /** Its folder (a database made beforehand, say); default a new temporary one. */
  dir?: string;
  /** Over the defaults below (log level warn, one extraction thread, rate limits out of the way). */
  env?: Record<string, string>;
  /** `ulimit -n` for the process (soft and hard, so node cannot raise it). */
  openFiles?: number;
}

export function spawnConnector(opts: SpawnOptions = {}): ConnectorChild {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-child-'));
  const main = built().main;
  const [cmd, args] = opts.openFiles
    ? ['sh', ['-c', `ulimit -n ${opts.openFiles} && exec "$0" "$@"`, process.execPath, main]]
    : [process.execPath, [main]];
  const proc = spawn(cmd as string, args as string[], {
    cwd: process.cwd(),
    // Nothing of the test runner's environment leaks in but the path, home and temporary folder.
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? dir,
      TMPDIR: os.tmpdir(),
      PORT: '0',
      HOST: '127.0.0.1',
      COVERCHECK_DB: path.join(dir, 'covercheck.db'),
      COVERCHECK_MAIL_OUTBOX: path.join(dir, 'outbox'),
      COVERCHECK_LOG_LEVEL: 'warn',
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '100000',
      COVERCHECK_RATE_LIMIT_IP_PER_MIN: '100000',
      COVERCHECK_EXTRACT_THREADS: '1',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    proc.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );
  const closed = new Promise<void>((resolve) => proc.once('close', () => resolve()));
  return {
    proc,
    dir,
    stdout: () => out,
    stderr: () => err,
    exited,
    closed,
    logs: () =>
      out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

/** Waits for main.ts's operator lines (demo data on): its address and sandbox key. Rejects if it exits first. */
export function whenReady(c: ConnectorChild, timeoutMs = 60_000): Promise<{ url: string; port: number; key: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`connector did not start:\n${c.stdout()}\n${c.stderr()}`)), timeoutMs);
    const look = () => {
      // What main.ts prints for the operator once it is listening (with demo data on, the default: without it, nothing).
      const m = /Covercheck connector on (http:\/\/[\d.]+:(\d+))\nSandbox key \(never charged; shown once\): (pk_test_\w+)/.exec(
        c.stdout(),
      );
      if (m) done(null, { url: m[1]!, port: Number(m[2]), key: m[3]! });
    };
    const exited = (code: number | null, signal: NodeJS.Signals | null) =>
      done(new Error(`connector exited (${signal ?? code}) before it was ready:\n${c.stdout()}\n${c.stderr()}`));
    const done = (e: Error | null, v?: { url: string; port: number; key: string }) => {
      clearTimeout(timer);
      c.proc.stdout!.off('data', look);
      c.proc.off('exit', exited);
      if (e) reject(e);
      else resolve(v!);
    };
    c.proc.stdout!.on('data', look);
    c.proc.once('exit', exited);
    look();
  });
}

export interface BuiltConnector {
  proc: ChildProcess;
  url: string;
  port: number;
  /** The sandbox key main.ts printed. */
  key: string;
  /** The folder of its database and mail outbox. */
  dir: string;
}

/** Spawns the connector and waits until it is ready; a start that fails rejects with what it printed. */
export async function startBuiltConnector(opts: SpawnOptions): Promise<BuiltConnector> {
  const c = spawnConnector(opts);
  const ready = await whenReady(c);
  return { proc: c.proc, dir: c.dir, ...ready };
}

/** SIGTERM, then SIGKILL after 15 s; with `removeDir`, its folder goes too. */
export async function stopBuiltConnector(c: BuiltConnector, opts: { removeDir?: boolean } = {}): Promise<void> {
  if (c.proc.exitCode === null && c.proc.signalCode === null) {
    const exited = new Promise((r) => c.proc.once('exit', r));
    c.proc.kill('SIGTERM');
    const timer = setTimeout(() => c.proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }
  if (opts.removeDir) fs.rmSync(c.dir, { recursive: true, force: true });
}
