/**
 * Background WAL checkpoints (store/sqlite/checkpointer.ts): the thread copies the WAL into the
 * database file without the writer's help, stops with the store, reports failures, and the WAL
 * still starts over under continuous writes.
 *
 * What SQLite has copied is read from its own shared-memory index (the `-shm` file): `mxFrame`, the
 * frames in the WAL, at byte 16 of the index header; `nBackfill`, the frames already copied into
 * the database, at byte 96 (the first field after the header's two 48-byte copies). Native byte
 * order. https://www.sqlite.org/walformat.html
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCheckpointer } from '../../connector/src/store/sqlite/checkpointer.js';
import { openSqliteStore } from '../../connector/src/store/sqlite/index.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';

function walIndex(file: string): { mxFrame: number; nBackfill: number } {
  const shm = fs.readFileSync(`${file}-shm`);
  return { mxFrame: shm.readUInt32LE(16), nBackfill: shm.readUInt32LE(96) };
}

const opened: { store: Store; file: string }[] = [];
function open(checkpointMs: number | null, errors: Error[] = []): { store: Store; file: string } {
  const file = tempDbPath('ckpt');
  const store = openSqliteStore(file, checkpointMs ? { checkpoint: { intervalMs: checkpointMs, onError: (e) => errors.push(e) } } : {});
  opened.push({ store, file });
  return { store, file };
}
afterEach(async () => {
  for (const { store, file } of opened.splice(0)) {
    await store.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

const key = (i: number) => ({
  id: `k${i}`,
  lookup: `L${String(i).padStart(11, '0')}`,
  hash: 'ab'.repeat(32),
  name: `key ${i}`,
  mode: 'live' as const,
  plan: 'standard' as const,
  scopes: ['verify' as const],
  allowance: 1_000_000,
  period: '2026-11',
  created_at: '2026-11-01T00:00:00.000Z',
});

async function until(check: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 10));
  }
  return check();
}

describe('background WAL checkpoints', () => {
  it('copy committed frames into the database file without a commit doing it', async () => {
    const errors: Error[] = [];
    const withThread = open(10, errors);
    const without = open(null);
    for (const { store } of [withThread, without]) {
      // Well under SQLite's 1000-frame threshold, so no checkpoint runs inside a commit.
      for (let i = 0; i < 40; i++) await store.keys.create(key(i));
    }
    const before = walIndex(without.file);
    expect(before.mxFrame).toBeGreaterThan(40);
    expect(before.mxFrame).toBeLessThan(1000);

    expect(await until(() => walIndex(withThread.file).nBackfill === walIndex(withThread.file).mxFrame)).toBe(true);
    expect(walIndex(withThread.file).mxFrame).toBeGreaterThan(40);
    // The same writes on a store without the thread: nothing copied in the same time.
    expect(walIndex(without.file).nBackfill).toBe(0);
    expect(errors).toEqual([]);
  });

  it('keeps the WAL bounded under continuous writes: commits still start it over', async () => {
    const { store, file } = open(5);
    await store.keys.create(key(1));
    // One commit per charge, ~4 frames each: ~8,000 frames in all, 32 MB of WAL if it never started over.
    for (let i = 0; i < 2000; i++) await store.credits.charge('k1', 1, '2026-11', `r${i}`, new Date().toISOString());
    expect(await store.credits.balance('k1', '2026-11', new Date().toISOString())).toBe(1_000_000 - 2000);
    expect(fs.statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
  });

  it('stops with the store, and no checkpoint runs after that', async () => {
    const { store, file } = open(5);
    await store.keys.create(key(1));
    expect(await until(() => walIndex(file).nBackfill > 0)).toBe(true);
    await store.close();
    // Writes from another store without the thread: the stopped one must copy none of them.
    const again = openSqliteStore(file);
    opened.push({ store: again, file });
    for (let i = 2; i < 20; i++) await again.keys.create(key(i));
    await new Promise((r) => setTimeout(r, 100));
    const after = walIndex(file);
    expect(after.mxFrame).toBeGreaterThan(after.nBackfill);
  });

  it('reports a thread that cannot open the database, and stop() still resolves', async () => {
    const errors: Error[] = [];
    const missing = path.join(path.dirname(tempDbPath('ckpt-missing')), 'nowhere', 'none.db');
    const c = startCheckpointer(missing, { intervalMs: 5, onError: (e) => errors.push(e) });
    expect(await until(() => errors.length > 0)).toBe(true);
    expect(errors[0]!.message).toMatch(/WAL checkpoint thread stopped: .*(unable to open|does not exist|directory)/i);
    await c.stop();
  });
});
