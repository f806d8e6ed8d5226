/** Bench helpers: start a target child process, drive it with autocannon, summarise. */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { generateKey } from '../connector/src/auth/keys.js';
import { freePort } from '../test/helpers/services.js';

/**
 * Node flags of bench targets: those `npm start` uses (an 8 MB young generation, see
 * docs/benchmarks.md), unless BENCH_NODE_FLAGS says otherwise.
 */
const TARGET_FLAGS = (process.env.BENCH_NODE_FLAGS ?? '--max-semi-space-size=8').split(' ').filter(Boolean);

export async function startTarget<T>(
  script: string,
  env: Record<string, string> = {},
): Promise<{ info: T; stop: () => Promise<void>; signal: (s: NodeJS.Signals) => void }> {
  const child: ChildProcess = spawn(process.execPath, [...TARGET_FLAGS, '--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const rl = readline.createInterface({ input: child.stdout! });
  const info = await new Promise<T>((resolve, reject) => {
    rl.once('line', (line) => resolve(JSON.parse(line) as T));
    child.once('exit', (code) => reject(new Error(`bench target exited ${code}`)));
  });
  return {
    info,
    signal: (s) => child.kill(s),
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

export interface Load {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationS?: number;
  /** Requests per second across all connections; omitted = as fast as possible. */
  overallRate?: number;
  /** Stop after this many requests (duration then only bounds it). */
  amount?: number;
}

export interface Measured {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  requests: number;
}

export async function drive(load: Load): Promise<Measured> {
  const result = await autocannon({
    url: load.url,
    method: load.method ?? 'GET',
    headers: load.headers ?? {},
    ...(load.body !== undefined ? { body: load.body } : {}),
    connections: load.connections ?? 10,
    duration: load.durationS ?? 8,
    ...(load.overallRate ? { overallRate: load.overallRate } : {}),
    ...(load.amount ? { amount: load.amount } : {}),
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    requests: result.requests.total,
  };
}

export function fmt(n: number, digits = 1): string {
  return n.toFixed(digits);
}

/** The middle value (the upper one of an even count): robust to the odd round a shared machine spoils. */
export const median = (xs: readonly number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * Latency of one request at a time over a kept-alive connection, timed with performance.now()
 * (autocannon reports whole milliseconds, too coarse for sub-millisecond routes).
 */
export async function sequentialLatency(
  url: string,
  durationS: number,
): Promise<{ p50: number; p99: number; rps: number; failed: number }> {
  const { default: http } = await import('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times: number[] = [];
  let failed = 0;
  const end = performance.now() + durationS * 1000;
  while (performance.now() < end) {
    const t = performance.now();
    const status = await new Promise<number>((resolve) => {
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', () => resolve(0));
    });
    times.push(performance.now() - t);
    if (status < 200 || status >= 300) failed++;
  }
  agent.destroy();
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
  return { p50: at(50), p99: at(99), rps: times.length / durationS, failed };
}

/** Bundles the connector as `npm start` does (dist/connector/main.js and its worker). */
export { buildConnector } from '../scripts/build.mjs';

export interface BuiltConnector {
  url: string;
  pid: number;
  /** The fixed sandbox key it was started with (test mode: never charged). */
  sandboxKey: string;
  stop(): Promise<void>;
}

/**
 * Starts the production build (`buildConnector()` first) as `npm start` runs it: plain node with
 * its flags, no TypeScript loader. Benches that measure memory must use this: under tsx every
 * loaded module is also held in transformed form (pdf.js alone: ~390 MB under tsx, ~37 MB without).
 * Default: a fresh SQLite file in a temp folder, removed by stop().
 */
export async function startConnectorBuild(env: Record<string, string> = {}): Promise<BuiltConnector> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-bench-'));
  const sandboxKey = generateKey('test').key;
  const child: ChildProcess = spawn(process.execPath, [...TARGET_FLAGS, 'dist/connector/main.js'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      COVERCHECK_DB: path.join(dir, 'bench.db'),
      COVERCHECK_SANDBOX_KEY: sandboxKey,
      COVERCHECK_LOG_LEVEL: 'warn',
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '10000000',
      COVERCHECK_RATE_LIMIT_IP_PER_MIN: '10000000',
      // As package.json's start script: one malloc arena instead of one per thread (see docs/extraction.md).
      MALLOC_ARENA_MAX: '1',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((resolve) => {
      const done = () => {
        fs.rmSync(dir, { recursive: true, force: true });
        resolve();
      };
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', done);
      child.kill('SIGTERM');
    });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`connector exited with ${child.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error('connector did not answer /healthz within 30 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, sandboxKey, stop };
}
