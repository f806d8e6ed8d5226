/**
 * Keeps the SQLite WAL synced to disk in the background, so that the checkpoints SQLite runs inside
 * commits, on the event loop, find little left to fsync.
 *
 * SQLite checkpoints inside whichever commit takes the WAL past 1000 pages. A checkpoint first
 * fsyncs the WAL, which waits for every page written since the last one: measured here, a
 * checkpoint of ~1000 frames takes ~4 ms, 0.2 ms of it work and the rest that fsync. A charged
 * verification writes about four pages, so at 4,500 charges/s that is a 4 ms stall of every request
 * in flight about 19 times a second.
 *
 * Every `intervalMs`, if the WAL changed since the last time, this calls fdatasync on it through
 * libuv's thread pool: the waiting happens there, off the event loop. The checkpoint's own fsync
 * then has only the last few milliseconds of writes to flush (measured: ~4 ms → 0.8–1.0 ms per
 * checkpoint). Extra syncs never weaken durability; SQLite's own checkpoints, and so the WAL's
 * bound, are untouched.
 *
 * A worker thread running the checkpoints on a connection of its own did more for the tail in its
 * A/B, since it also took the copy into the database file and that file's fsync off the event loop,
 * but it costs ~10 MB of RSS (its own V8 isolate), which bench/extract's memory target has no room
 * for; this costs an open file (docs/benchmarks.md).
 */
import fs from 'node:fs';

export interface WalPresyncOptions {
  intervalMs: number;
  onError(err: Error): void;
}

export interface WalPresync {
  stop(): Promise<void>;
}

function openIfThere(file: string): Promise<number | null> {
  return new Promise((resolve, reject) =>
    fs.open(file, 'r', (err, fd) => {
      if (!err) resolve(fd);
      else if (err.code === 'ENOENT') resolve(null);
      else reject(err);
    }),
  );
}

export function startWalPresync(walPath: string, opts: WalPresyncOptions): WalPresync {
  let fd: number | null = null;
  let synced = '';
  let busy: Promise<void> | null = null;
  let failing = false;

  const tick = async () => {
    try {
      // The WAL appears with the first write after the last connection closed (SQLite removes it then).
      if (fd === null) fd = await openIfThere(walPath);
      if (fd === null) return;
      const open = fd;
      const st = await new Promise<fs.Stats>((resolve, reject) => fs.fstat(open, (err, s) => (err ? reject(err) : resolve(s))));
      if (st.nlink === 0) {
        // Removed meanwhile (every connection closed): follow the next one by name.
        fd = null;
        synced = '';
        fs.close(open, () => {});
        return;
      }
      const version = `${st.size}:${st.mtimeMs}`;
      if (version === synced) return;
      await new Promise<void>((resolve, reject) => fs.fdatasync(open, (err) => (err ? reject(err) : resolve())));
      synced = version;
      failing = false;
    } catch (err) {
      // Reported once per run of failures; SQLite's checkpoints keep the WAL durable and bounded anyway.
      if (!failing) opts.onError(new Error(`WAL pre-sync of ${walPath}: ${(err as Error).message}`));
      failing = true;
    }
  };

  const timer = setInterval(() => {
    if (busy) return;
    busy = tick().finally(() => (busy = null));
  }, opts.intervalMs);
  // The store's close() stops it; it never keeps the process alive on its own.
  timer.unref();

  return {
    async stop() {
      clearInterval(timer);
      await busy;
      if (fd === null) return;
      const closing = fd;
      fd = null;
      await new Promise<void>((resolve) => fs.close(closing, () => resolve()));
    },
  };
}
