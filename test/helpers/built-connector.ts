/**
 * The built connector (`dist/connector/main.js`, as `npm start` runs it) in a child process on
 * loopback, for tests that need a process of its own: its descriptors limited, its memory read, its
 * connections held. Ready when main.ts prints its address and sandbox key (demo data must be on).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { built } from './build.js';

export interface BuiltConnector {
  proc: ChildProcess;
  url: string;
  port: number;
  /** The sandbox key main.ts printed. */
  key: string;
  /** The folder of its database and mail outbox. */
  dir: string;
}

export async function startBuiltConnector(opts: {
  /** Its folder (a database made beforehand, say); default a new temporary one. */
  dir?: string;
  env?: Record<string, string>;
  /** `ulimit -n` for the process (soft and hard, so node cannot raise it). */
  openFiles?: number;
}): Promise<BuiltConnector> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-child-'));
  const main = built().main;
  const [cmd, args] = opts.openFiles
    ? ['sh', ['-c', `ulimit -n ${opts.openFiles} && exec "$0" "$@"`, process.execPath, main]]
    : [process.execPath, [main]];
  const proc = spawn(cmd as string, args as string[], {
    cwd: process.cwd(),
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
  proc.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<BuiltConnector>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connector did not start:\n${out}\n${err}`)), 60_000);
    proc.once('exit', (code, signal) => reject(new Error(`connector exited (${signal ?? code}) before it was ready:\n${out}\n${err}`)));
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      // What main.ts prints for the operator once it is listening (with demo data on, the default: without it, nothing).
      const m = /Covercheck connector on (http:\/\/[\d.]+:(\d+))\nSandbox key \(never charged; shown once\): (pk_test_\w+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      resolve({ proc, url: m[1]!, port: Number(m[2]), key: m[3]!, dir });
    });
  });
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
