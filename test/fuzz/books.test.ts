/**
 * The fuzz's books check (books.ts) on made-up books: what it must let through (a 2xx that did what its
 * route does, for its own key) and what it must catch (a refused request that moved a watch or took a credit).
 */
import { describe, expect, it } from 'vitest';
import type { RawOutcome, RawRequest } from '../helpers/raw-http.js';
import { actingKeys, booksProblem, type Books, type KeyIds, type WatchRow } from './books.js';

const IDS: KeyIds = { test: 'k_test', live: 'k_live', verifyOnly: 'k_verify', other: 'k_other' };

const watch = (id: string, key_id = 'k_test', over: Partial<WatchRow> = {}): WatchRow => ({
  id,
  key_id,
  paused_at: null,
  cadence: 'daily',
  expiry_window_days: 30,
  webhook_url: null,
  email_to: null,
  sheet_target: null,
  notify_unchanged: 0,
  policy_count: 1,
  created_at: '2026-11-02T10:00:00.000Z',
  ...over,
});
const books = (watches: WatchRow[], ledger: Books['ledger'] = []): Books => ({ watches, ledger, lastLedgerId: 7 });
const req = (method: string, path: string): RawRequest => ({ method, path, headers: [] });
const answer = (status: number, body: unknown = {}): RawOutcome => ({
  ok: true,
  response: { status, headers: {}, body: Buffer.alloc(0), text: JSON.stringify(body) },
});

describe('booksProblem', () => {
  const before = books([watch('wat_a'), watch('wat_b', 'k_other')]);

  it('lets through what a 2xx did for its own key', () => {
    const create = booksProblem(
      req('POST', '/api/v1/watches'),
      answer(201, { watch_id: 'wat_c' }),
      actingKeys('test', IDS),
      before,
      books([...before.watches, watch('wat_c')]),
      false,
    );
    expect(create).toBeNull();
    const pause = books([watch('wat_a', 'k_test', { paused_at: '2026-11-02T11:00:00.000Z' }), watch('wat_b', 'k_other')]);
    expect(booksProblem(req('POST', '/api/v1/watches/wat_a/pause'), answer(200), ['k_test'], before, pause, false)).toBeNull();
    expect(
      booksProblem(req('DELETE', '/api/v1/watches/wat_a/'), answer(204), ['k_test'], before, books([watch('wat_b', 'k_other')]), false),
    ).toBeNull();
    // A run's reservation is background work, whatever request was in hand.
    const run = books(before.watches, [{ id: 8, key_id: 'k_live', delta: -20, reason: 'reserve', ref: 'watch:wrn_1' }]);
    expect(booksProblem(req('GET', '/api/v1/verifications'), answer(200), ['k_test'], before, run, false)).toBeNull();
  });

  it('catches a refused create that made a watch, and a create that made two', () => {
    const one = books([...before.watches, watch('wat_c')]);
    expect(booksProblem(req('POST', '/api/v1/watches'), answer(400), ['k_test'], before, one, false)).toMatch(/watches moved on a 400/);
    const two = books([...one.watches, watch('wat_d')]);
    expect(booksProblem(req('POST', '/api/v1/watches'), answer(201, { watch_id: 'wat_c' }), ['k_test'], before, two, false)).toMatch(
      /watches moved on a 201/,
    );
  });

  it("catches another key's watch paused, deleted, or a watch moved by a request that is no watch request", () => {
    const paused = books([watch('wat_a'), watch('wat_b', 'k_other', { paused_at: '2026-11-02T11:00:00.000Z' })]);
    expect(booksProblem(req('POST', '/api/v1/watches/wat_b/pause'), answer(200), ['k_test'], before, paused, false)).toMatch(
      /of key k_other/,
    );
    expect(
      booksProblem(req('DELETE', '/api/v1/watches/wat_a'), answer(204), [], before, books([watch('wat_b', 'k_other')]), false),
    ).toMatch(/of key k_test/);
    expect(booksProblem(req('POST', '/api/v1/verify'), answer(200), ['k_test'], before, books([watch('wat_b', 'k_other')]), true)).toMatch(
      /watches moved/,
    );
    const edited = books([watch('wat_a', 'k_test', { paused_at: '2026-11-02T11:00:00.000Z', policy_count: 2 }), watch('wat_b', 'k_other')]);
    expect(booksProblem(req('POST', '/api/v1/watches/wat_a/pause'), answer(200), ['k_test'], before, edited, false)).toMatch(
      /a pause of wat_a/,
    );
  });

  it('catches a credit taken on a route that takes none, answered or refused', () => {
    const charged = books(before.watches, [{ id: 8, key_id: 'k_live', delta: -1, reason: 'charge', ref: null }]);
    expect(booksProblem(req('POST', '/api/v1/watches'), answer(400), ['k_live'], before, charged, false)).toMatch(/credits taken/);
    expect(booksProblem(req('GET', '/api/v1/verifications'), answer(200), ['k_live'], before, charged, false)).toMatch(/credits taken/);
    // The verify routes take credits: not this check's to judge.
    expect(booksProblem(req('POST', '/api/v1/verify'), answer(200), ['k_live'], before, charged, true)).toBeNull();
  });
});
