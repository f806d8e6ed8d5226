import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../connector/src/store/sqlite/index.js';
import { MIGRATIONS } from '../../connector/src/store/sqlite/migrations.js';
import type { Store } from '../../connector/src/store/types.js';
import { tempDbPath } from '../helpers/server.js';

const opened: { store: Store; file: string }[] = [];
function open(file = tempDbPath('store')): Store {
  const store = openSqliteStore(file);
  opened.push({ store, file });
  return store;
}
afterEach(async () => {
  for (const { store, file } of opened.splice(0)) {
    await store.close();
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
});

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

describe('SQLite store', () => {
  it('creates a WAL database file with every migration recorded, and reopens without reapplying', async () => {
    const file = tempDbPath('store');
    const s1 = open(file);
    await s1.close();
    const db = new Database(file, { readonly: true });
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect((db.prepare('SELECT id FROM schema_migrations ORDER BY id').all() as { id: number }[]).map((r) => r.id)).toEqual(MIGRATIONS.map((m) => m.id));
    db.close();
    const s2 = open(file);
    expect(await s2.ping()).toBe(true);
  });

  it('charges atomically and refuses an overdraft, writing a ledger row per charge', async () => {
    const s = open();
    await s.keys.create(newKey('k1', 2));
    const at = '2026-11-02T00:00:00Z';
    expect(await s.credits.charge('k1', 1, '2026-11', 'a', at)).toEqual({ ok: true, balance: 1 });
    expect(await s.credits.charge('k1', 1, '2026-11', 'b', at)).toEqual({ ok: true, balance: 0 });
    expect(await s.credits.charge('k1', 1, '2026-11', 'c', at)).toEqual({ ok: false, balance: 0 });
    const ledger = await s.credits.ledger('k1');
    expect(ledger.map((e) => [e.delta, e.reason, e.ref, e.balance_after])).toEqual([
      [-1, 'charge', 'a', 1],
      [-1, 'charge', 'b', 0],
    ]);
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

  it('rolls the balance over to the allowance once per new period', async () => {
    const s = open();
    await s.keys.create(newKey('k3', 4));
    await s.credits.charge('k3', 3, '2026-11', null, '2026-11-05T00:00:00Z');
    expect(await s.credits.balance('k3', '2026-11', '2026-11-06T00:00:00Z')).toBe(1);
    expect(await s.credits.balance('k3', '2026-12', '2026-12-01T00:00:00Z')).toBe(4);
    expect(await s.credits.balance('k3', '2026-12', '2026-12-02T00:00:00Z')).toBe(4);
    expect((await s.credits.ledger('k3')).filter((e) => e.reason === 'period_reset')).toHaveLength(1);
  });

  it('records an idempotent response in the same transaction as a successful charge only', async () => {
    const s = open();
    await s.keys.create(newKey('k4', 1));
    const at = '2026-11-02T00:00:00Z';
    expect((await s.idempotency.begin('k4', 'i1', 'h', at, '2026-11-01T00:00:00Z')).state).toBe('new');
    await s.credits.charge('k4', 1, '2026-11', null, at, { idemKey: 'i1', response: { status: 200, body: '{"ok":1}' } });
    expect(await s.idempotency.begin('k4', 'i1', 'h', at, '2026-11-01T00:00:00Z')).toEqual({ state: 'replay', status: 200, body: '{"ok":1}' });
    expect((await s.idempotency.begin('k4', 'i2', 'h', at, '2026-11-01T00:00:00Z')).state).toBe('new');
    await s.credits.charge('k4', 1, '2026-11', null, at, { idemKey: 'i2', response: { status: 200, body: '{}' } });
    expect((await s.idempotency.begin('k4', 'i2', 'h', at, '2026-11-01T00:00:00Z')).state).toBe('in_progress');
  });

  it('idempotency: mismatch on another body, takeover of a stale claim, release', async () => {
    const s = open();
    const early = '2026-11-02T00:00:00Z';
    expect((await s.idempotency.begin('k', 'x', 'h1', early, '2026-11-01T00:00:00Z')).state).toBe('new');
    expect((await s.idempotency.begin('k', 'x', 'h2', early, '2026-11-01T00:00:00Z')).state).toBe('mismatch');
    expect((await s.idempotency.begin('k', 'x', 'h1', early, '2026-11-01T00:00:00Z')).state).toBe('in_progress');
    expect((await s.idempotency.begin('k', 'x', 'h1', '2026-11-03T00:00:00Z', '2026-11-02T12:00:00Z')).state).toBe('new');
    await s.idempotency.release('k', 'x');
    expect((await s.idempotency.begin('k', 'x', 'h2', early, '2026-11-01T00:00:00Z')).state).toBe('new');
  });

  it('an insurer upsert never replaces a row from a higher-priority source', async () => {
    const s = open();
    const row = {
      country: 'DE' as const, reference: '5096', scheme: 'bafin_reg_nr' as const, name: 'HDI Global SE', aliases: [], regulated: 'YES' as const,
      authorised: true, lei: null, source: 'eiopa-register', source_detail: null, demo: false, priority: 30, updated_at: '2026-11-01T00:00:00Z',
    };
    const v0 = await s.insurers.version();
    await s.insurers.upsertMany([row]);
    await s.insurers.upsertMany([{ ...row, name: 'HDI (from a list)', source: 'de-vu-list', priority: 20 }]);
    expect((await s.insurers.get('DE', '5096'))!.name).toBe('HDI Global SE');
    await s.insurers.upsertMany([{ ...row, name: 'HDI Global SE (new export)' }]);
    expect((await s.insurers.get('DE', '5096'))!.name).toBe('HDI Global SE (new export)');
    expect(await s.insurers.version()).toBe(v0 + 3);
  });

  it('revoking a key changes its status once', async () => {
    const s = open();
    await s.keys.create(newKey('k5'));
    expect(await s.keys.revoke('k5', '2026-11-03T00:00:00Z')).toBe(true);
    expect(await s.keys.revoke('k5', '2026-11-04T00:00:00Z')).toBe(false);
    expect((await s.keys.get('k5'))!).toMatchObject({ status: 'revoked', revoked_at: '2026-11-03T00:00:00Z' });
  });
});
