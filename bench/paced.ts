/**
 * An open-loop, evenly paced load: request i is due at start + i/rate, whatever happened to the
 * previous ones (a 1 ms timer sends whatever is due, so the generator does not spin a core the
 * server needs). Latency runs from the moment the request is written, so the generator's own
 * timer lag is not charged to the server; server-side queueing still is, because sending never
 * waits for earlier answers. autocannon's own rate option sends each second's quota in one burst,
 * which measures peak-load latency rather than latency at a given rate.
 */
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

export interface PacedLoad {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  rate: number;
  durationS: number;
  connections?: number;
  /**
   * Checked every millisecond tick: once it returns true no more requests are sent (those in flight
   * still count), so a window can end with the background work it measures rather than run past it.
   */
  stopWhen?: () => boolean;
}

export interface PacedResult {
  sent: number;
  ok: number;
  failed: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  achievedRps: number;
  /** Every latency in ms, sorted, so that windows can be pooled. */
  latencies: number[];
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function pacedLoad(load: PacedLoad): Promise<PacedResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: load.connections ?? 32 });
  const url = new URL(load.url);
  const total = Math.round(load.rate * load.durationS);
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let sent = 0;
  const start = performance.now();
  const inflight: Promise<void>[] = [];

  const fire = () =>
    new Promise<void>((resolve) => {
      const due = performance.now();
      const req = http.request(
        { agent, host: url.hostname, port: url.port, path: url.pathname + url.search, method: load.method ?? 'GET', headers: load.headers },
        (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            if (res.statusCode && res.statusCode < 300) ok++;
            else failed++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end(load.body);
    });

  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (load.stopWhen?.()) {
        clearInterval(timer);
        resolve();
        return;
      }
      while (sent < total && start + (sent * 1000) / load.rate <= now) {
        inflight.push(fire());
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, 1);
  });
  await Promise.all(inflight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const r = (n: number) => Math.round(n * 100) / 100;
  return {
    sent,
    ok,
    failed,
    p50: r(percentile(latencies, 50)),
    p90: r(percentile(latencies, 90)),
    p99: r(percentile(latencies, 99)),
    max: r(latencies.at(-1) ?? NaN),
    achievedRps: r(sent / elapsed),
    latencies,
  };
}

export interface LoadGenerator {
  /** Runs one paced load in the generator process; `stop()` ends it early, as `stopWhen` would. */
  run(load: Omit<PacedLoad, 'stopWhen'>): Promise<PacedResult>;
  stop(): void;
  close(): void;
}

/**
 * Paced loads from a process that does nothing else, started with --single-threaded-gc. Where the
 * bench itself also uploads files and polls jobs, its garbage collections delay the reading of
 * answers (charged to the server as latency), and V8's parallel GC threads take CPU from the server
 * on a 2-core machine: in a busy window of bench/extract, `perf sched` showed the connector runnable
 * but waiting 13.7 ms behind four GC threads of the bench process; with the generator on one
 * thread the longest wait was 2.8 ms.
 */
export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child = fork(fileURLToPath(new URL('./paced-child.ts', import.meta.url)), [], {
    execArgv: ['--single-threaded-gc', '--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let pending: { resolve(r: PacedResult): void; reject(e: Error): void } | null = null;
  let exitCode: number | null | undefined;
  child.on('exit', (code) => {
    exitCode = code;
    const p = pending;
    pending = null;
    p?.reject(new Error(`load generator exited with ${code}`));
  });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`load generator exited with ${code}`)));
  });
  child.on('message', (msg: { type: string; result?: PacedResult }) => {
    if (msg.type === 'result' && pending) {
      const p = pending;
      pending = null;
      p.resolve(msg.result!);
    }
  });
  return {
    run(load) {
      if (exitCode !== undefined) return Promise.reject(new Error(`load generator exited with ${exitCode}`));
      if (pending) return Promise.reject(new Error('the load generator runs one load at a time'));
      return new Promise<PacedResult>((resolve, reject) => {
        pending = { resolve, reject };
        child.send({ type: 'run', load });
      });
    },
    stop() {
      if (child.connected) child.send({ type: 'stop' });
    },
    close() {
      if (child.connected) child.disconnect();
    },
  };
}
