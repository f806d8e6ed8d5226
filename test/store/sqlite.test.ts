import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../connector/src/store/sqlite/migrations.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

const open = (file?: string): Store => openTempStore('store', { file }).store;
afterEach(closeTempStores);

const newKey = (id: string, allowance = 3) => ({
  id,
  lookup: `L${id}`.padEnd(12, '0').slice(0, 12),
  hash: 'ab'.repeat(32),
  name: id,
  mode: 'live' as const,
  plan: 'free' as const,
  scopes: ['verify' as const],
  allowance,
  period: '2026-11',
  created_at: '2026-11-01T00:00:00.000Z',
});

/**
 * SQLite-only specifics. Behaviour every backend shares (credits, idempotency, insurers, keys, ...)
 * is in the storage contract suite, test/store/contract/ (one file per section).
 */
describe('SQLite store', () => {
  it('creates a WAL database file with every migration recorded, and reopens without reapplying', async () => {
    const file = tempDbPath('store');
    const s1 = open(file);
    await s1.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id)).toEqual(
      MIGRATIONS.map((m) => m.id),
    );
    db.close();
    const s2 = open(file);
    expect(await s2.ping()).toBe(true);
  });

  it('two processes charging the same file never overdraw (separate connections)', async () => {
    const file = tempDbPath('store');
    const a = open(file);
    const b = open(file);
    await a.keys.create(newKey('k2', 5));
    const at = '2026-11-02T00:00:00Z';
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).credits.charge('k2', 1, '2026-11', null, at)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    expect((await a.keys.get('k2'))!.balance).toBe(0);
  });
});
