/**
 * Background WAL checkpoints for the SQLite store, in a thread of their own.
 *
 * SQLite checkpoints inside whichever commit takes the WAL past 1000 pages, on the event loop. Nearly
 * all of a checkpoint's time is its fsync of the WAL, which waits for every page written since the
 * last one: measured here, a checkpoint of ~1000 frames takes 3.8 ms with fsync and 0.2 ms without.
 * A charged verification writes about four pages, so at 4,500 charges/s that is a 4 ms stall of
 * every request in flight, about 17 times a second: the tail of bench/verify at half rate.
 *
 * This thread runs a PASSIVE checkpoint every `intervalMs` on its own connection. PASSIVE neither
 * waits for nor blocks the connector's reads and writes, and the fsync waits in this thread instead.
 * SQLite's own checkpoint in the commit stays on: only a checkpoint that completes with no writer
 * active lets the WAL start over from its beginning, so without it the WAL would grow while writes
 * continue. With this thread ahead of it, that checkpoint finds little left to write and sync.
 * bench/verify at half rate: p99 4.0 ms with it against 8.5–11.4 ms without (README, Benchmarks).
 *
 * If the thread fails, SQLite's checkpoints in the commit still bound the WAL as before; the
 * failure is reported through `onError`, nothing else changes.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface CheckpointerOptions {
  intervalMs: number;
  onError(err: Error): void;
}

export interface Checkpointer {
  stop(): Promise<void>;
}

// Plain CommonJS evaluated in the thread, so the bundle needs no entry for it; it needs only
// better-sqlite3, resolved by the main thread.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
// PASSIVE takes no lock it would wait for; a zero timeout keeps any other busy case from waiting.
db.pragma('busy_timeout = 0');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');
let failed = false;
const timer = setInterval(() => {
  try {
    checkpoint.run();
    failed = false;
  } catch (err) {
    // Reported once per run of failures, not every interval.
    if (!failed) parentPort.postMessage({ error: String(err && err.message || err) });
    failed = true;
  }
}, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export function startCheckpointer(file: string, opts: CheckpointerOptions): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD, { eval: true, workerData: { file: path.resolve(file), driver, intervalMs: opts.intervalMs } });
  let exited = false;
  const exit = new Promise<void>((resolve) => worker.once('exit', () => ((exited = true), resolve())));
  worker.on('message', (m: { error?: string }) => {
    if (m.error) opts.onError(new Error(`WAL checkpoint thread: ${m.error}`));
  });
  worker.on('error', (err) => opts.onError(new Error(`WAL checkpoint thread stopped: ${err.message}`)));
  // The store's close() stops it; it never keeps the process alive on its own.
  worker.unref();
  return {
    async stop() {
      if (exited) return;
      worker.postMessage('stop');
      await exit;
    },
  };
}
