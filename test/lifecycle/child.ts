/**
 * The built connector (`dist/connector/main.js`, as `npm start` runs it) in a child process on
 * loopback, keeping all it writes: start-up failures, the log lines, what a stop prints. Unlike
 * test/helpers/built-connector.ts it may also fail to start, which is what some tests want to see.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { built } from '../helpers/build.js';

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

export function spawnConnector(opts: { dir?: string; env?: Record<string, string> } = {}): ConnectorChild {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-lifecycle-'));
  const proc = spawn(process.execPath, [built().main], {
    cwd: process.cwd(),
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: process.env.HOME ?? dir,
      TMPDIR: os.tmpdir(),
      PORT: '0',
      HOST: '127.0.0.1',
      COVERCHECK_DB: path.join(dir, 'covercheck.db'),
      COVERCHECK_MAIL_OUTBOX: path.join(dir, 'outbox'),
      COVERCHECK_LOG_LEVEL: 'info',
      COVERCHECK_EXTRACT_THREADS: '1',
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '100000',
      COVERCHECK_RATE_LIMIT_IP_PER_MIN: '100000',
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
export function whenReady(c: ConnectorChild, timeoutMs = 60_000): Promise<{ url: string; key: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`connector did not start:\n${c.stdout()}\n${c.stderr()}`)), timeoutMs);
    const look = () => {
      const m = /Covercheck connector on (http:\/\/[\d.]+:\d+)\nSandbox key \(never charged; shown once\): (pk_test_\w+)/.exec(c.stdout());
      if (m) done(null, { url: m[1]!, key: m[2]! });
    };
    const exited = (code: number | null) =>
      done(new Error(`connector exited (${code}) before it was ready:\n${c.stdout()}\n${c.stderr()}`));
    const done = (e: Error | null, v?: { url: string; key: string }) => {
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

/** Sends SIGTERM; resolves with the exit and how long it took from the signal, once all output is in. */
export async function terminate(c: ConnectorChild): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = performance.now();
  c.proc.kill('SIGTERM');
  const { code, signal, at } = await c.exited;
  await c.closed;
  return { code, signal, ms: at - t0 };
}

/** Kills what is left (a test that failed halfway) and removes the folder. */
export async function cleanUp(c: ConnectorChild | undefined, opts: { keepDir?: boolean } = {}): Promise<void> {
  if (!c) return;
  if (c.proc.exitCode === null && c.proc.signalCode === null) {
    c.proc.kill('SIGKILL');
    await c.closed;
  }
  if (!opts.keepDir) fs.rmSync(c.dir, { recursive: true, force: true });
}

/** Lines that look like a JavaScript stack trace. */
export function stackLines(text: string): string[] {
  return text.split('\n').filter((l) => /^\s+at /.test(l));
}
