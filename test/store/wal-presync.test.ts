/**
 * Background WAL syncs (store/sqlite/wal-presync.ts): the store's WAL is fdatasync'ed off the event
 * loop after it changes and only then, a WAL that appears later is picked up, failures are
 * reported once per run, and stop() closes the file. Which file a synced descriptor is, is read
 * from /proc/self/fd.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startWalPresync } from '../../connector/src/store/sqlite/wal-presync.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

const fileOf = (fd: number): string | null => {
  try {
    return fs.readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
};

/** Every fdatasync call, by the file it synced. */
function watchSyncs(): { on: (file: string) => number; readonly fds: number[] } {
  const seen: { fd: number; file: string | null }[] = [];
  const original = fs.fdatasync;
  vi.spyOn(fs, 'fdatasync').mockImplementation(((fd: number, cb: fs.NoParamCallback) => {
    seen.push({ fd, file: fileOf(fd) });
    return original(fd, cb);
  }) as typeof fs.fdatasync);
  return {
    on: (file) => seen.filter((s) => s.file === file).length,
    get fds() {
      return seen.map((s) => s.fd);
    },
  };
}

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 5));
  }
  return check();
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const c of cleanup.splice(0).reverse()) await c();
  await closeTempStores();
});

function openStore(errors: Error[] = []): { store: Store; wal: string } {
  const { store, file } = openTempStore('presync', { walPresync: { intervalMs: 10, onError: (e) => errors.push(e) } });
  return { store, wal: `${path.resolve(file)}-wal` };
}

const key = (i: number) => ({
  id: `k${i}`,
  lookup: `L${String(i).padStart(11, '0')}`,
  hash: 'ab'.repeat(32),
  name: `key ${i}`,
  mode: 'live' as const,
  plan: 'standard' as const,
  scopes: ['verify' as const],
  allowance: 100,
  period: '2026-11',
  created_at: '2026-11-01T00:00:00.000Z',
});

describe('WAL pre-sync', () => {
  it("syncs the store's WAL after it changes, and not while it does not", async () => {
    const syncs = watchSyncs();
    const errors: Error[] = [];
    const { store, wal } = openStore(errors);
    await store.keys.create(key(1));
    expect(await until(() => syncs.on(wal) >= 1)).toBe(true);
    await sleep(50);
    const settled = syncs.on(wal);
    // Five more intervals with no write: no sync.
    await sleep(60);
    expect(syncs.on(wal)).toBe(settled);
    await store.keys.create(key(2));
    expect(await until(() => syncs.on(wal) > settled)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('picks up a WAL that appears after it started', async () => {
    const syncs = watchSyncs();
    const dir = path.dirname(tempDbPath('presync-late'));
    const wal = path.join(dir, 'late.db-wal');
    const errors: Error[] = [];
    const p = startWalPresync(wal, { intervalMs: 5, onError: (e) => errors.push(e) });
    cleanup.push(
      () => fs.rmSync(dir, { recursive: true, force: true }),
      () => p.stop(),
    );
    await sleep(40);
    expect(syncs.on(wal)).toBe(0);
    fs.writeFileSync(wal, 'frames');
    expect(await until(() => syncs.on(wal) === 1)).toBe(true);
    expect(errors).toEqual([]);
  });

  it('reports a failing sync once per run of failures', async () => {
    const dir = path.dirname(tempDbPath('presync-fail'));
    const wal = path.join(dir, 'f.db-wal');
    fs.writeFileSync(wal, 'a');
    let fail = true;
    vi.spyOn(fs, 'fdatasync').mockImplementation(((_fd: number, cb: fs.NoParamCallback) => {
      setImmediate(() => cb(fail ? Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }) : null));
    }) as typeof fs.fdatasync);
    const errors: Error[] = [];
    const p = startWalPresync(wal, { intervalMs: 5, onError: (e) => errors.push(e) });
    cleanup.push(
      () => fs.rmSync(dir, { recursive: true, force: true }),
      () => p.stop(),
    );
    // The file stays unsynced, so every tick retries and fails: reported once.
    await sleep(60);
    expect(errors.map((e) => e.message)).toEqual([`WAL pre-sync of ${wal}: EIO: i/o error, fdatasync`]);
    fail = false;
    await sleep(30);
    fail = true;
    fs.appendFileSync(wal, 'b');
    expect(await until(() => errors.length === 2)).toBe(true);
  });

  it('stop() closes the WAL and syncs no more', async () => {
    const syncs = watchSyncs();
    const { store, wal } = openStore();
    await store.keys.create(key(1));
    expect(await until(() => syncs.on(wal) >= 1)).toBe(true);
    const fd = syncs.fds.at(-1)!;
    expect(fileOf(fd)).toBe(wal);
    await store.close();
    // Closed: the descriptor is gone (or already reused for another file), not "<wal> (deleted)".
    expect(fileOf(fd)?.startsWith(wal) ?? false).toBe(false);
    const count = syncs.fds.length;
    await sleep(50);
    expect(syncs.fds.length).toBe(count);
  });
});
