/** Storage contract, credits (store/types/credits.ts): charges, period rollover, adjustments, the ledger, concurrent charges. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../../connector/src/store/types.js';
import { at, PERIOD, count } from './fixtures.js';
import { storeContract } from './harness.js';

storeContract((t) => {
  let store: Store;
  beforeEach(() => {
    store = t.store;
  });
  const { key } = t;

  describe('credits', () => {
    it('charges exactly while the balance covers it, one ledger row per charge', async () => {
      await key('k1', { allowance: 5 });
      expect(await store.credits.charge('k1', 2, PERIOD, 'req_a', at(1))).toEqual({ ok: true, balance: 3 });
      expect(await store.credits.charge('k1', 3, PERIOD, null, at(2))).toEqual({ ok: true, balance: 0 });
      const ledger = await store.credits.ledger('k1');
      expect(
        ledger.map(({ key_id, delta, reason, ref, balance_after, created_at }) => ({
          key_id,
          delta,
          reason,
          ref,
          balance_after,
          created_at,
        })),
      ).toEqual([
        { key_id: 'k1', delta: -2, reason: 'charge', ref: 'req_a', balance_after: 3, created_at: at(1) },
        { key_id: 'k1', delta: -3, reason: 'charge', ref: null, balance_after: 0, created_at: at(2) },
      ]);
      expect(ledger[0]!.id).toBeLessThan(ledger[1]!.id);
      expect(await store.credits.balance('k1', PERIOD, at(3))).toBe(0);
      expect((await store.keys.get('k1'))?.balance).toBe(0);
    });

    it('refuses a charge the balance cannot cover: unchanged balance, nothing written', async () => {
      await key('k1', { allowance: 2 });
      await key('k2', { allowance: 9 });
      expect(await store.credits.charge('k1', 3, PERIOD, 'big', at(1))).toEqual({ ok: false, balance: 2 });
      expect(await store.credits.ledger('k1')).toEqual([]);
      expect(await store.credits.charge('k1', 2, PERIOD, 'fits', at(2))).toEqual({ ok: true, balance: 0 });
      expect(await store.credits.charge('k1', 1, PERIOD, 'none', at(3))).toEqual({ ok: false, balance: 0 });
      expect((await store.credits.ledger('k1')).map((e) => e.ref)).toEqual(['fits']);
      expect(await store.credits.ledger('k2')).toEqual([]);
      expect((await store.keys.get('k2'))?.balance).toBe(9);
    });

    it('rolls over to a newer period (balance = allowance, period_reset row), never to an older one', async () => {
      await key('k1', { allowance: 10 });
      expect(await store.credits.charge('k1', 4, PERIOD, 'a', at(1))).toEqual({ ok: true, balance: 6 });
      // An older period (a request stamped just before midnight) does not reset anything.
      expect(await store.credits.charge('k1', 1, '2026-10', 'b', at(2))).toEqual({ ok: true, balance: 5 });
      expect((await store.keys.get('k1'))?.period).toBe('2026-11');
      expect(await store.credits.charge('k1', 2, '2026-12', 'c', at(3))).toEqual({ ok: true, balance: 8 });
      expect(await store.keys.get('k1')).toMatchObject({ period: '2026-12', balance: 8, allowance: 10 });
      expect(await store.credits.balance('k1', '2026-12', at(4))).toBe(8);
      expect(await store.credits.balance('k1', '2026-11', at(5))).toBe(8);
      const rows = (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({
        delta,
        reason,
        ref,
        balance_after,
        created_at,
      }));
      expect(rows).toEqual([
        { delta: -4, reason: 'charge', ref: 'a', balance_after: 6, created_at: at(1) },
        { delta: -1, reason: 'charge', ref: 'b', balance_after: 5, created_at: at(2) },
        { delta: 0, reason: 'period_reset', ref: '2026-12', balance_after: 10, created_at: at(3) },
        { delta: -2, reason: 'charge', ref: 'c', balance_after: 8, created_at: at(3) },
      ]);
    });

    it('balance() rolls over once per newer period and writes the reset row', async () => {
      await key('k1', { allowance: 4 });
      await store.credits.charge('k1', 3, PERIOD, null, at(1));
      expect(await store.credits.balance('k1', PERIOD, at(2))).toBe(1);
      expect(await store.credits.ledger('k1')).toHaveLength(1);
      expect(await store.credits.balance('k1', '2027-01', at(3))).toBe(4);
      expect(await store.credits.balance('k1', '2027-01', at(4))).toBe(4);
      const ledger = await store.credits.ledger('k1');
      expect(ledger).toHaveLength(2);
      expect(ledger[1]).toMatchObject({
        key_id: 'k1',
        delta: 0,
        reason: 'period_reset',
        ref: '2027-01',
        balance_after: 4,
        created_at: at(3),
      });
      expect((await store.keys.get('k1'))?.period).toBe('2027-01');
    });

    it('a refused charge in a newer period still answers the rolled-over balance', async () => {
      await key('k1', { allowance: 10 });
      await store.credits.charge('k1', 10, PERIOD, null, at(1));
      expect(await store.credits.charge('k1', 11, '2026-12', 'big', at(2))).toEqual({ ok: false, balance: 10 });
      expect(await store.credits.balance('k1', '2026-12', at(3))).toBe(10);
      expect((await store.credits.ledger('k1')).filter((e) => e.reason === 'charge')).toHaveLength(1);
    });

    it('adjust: allowance, add, set; clamped at 0; an adjust row only when the balance changes', async () => {
      await key('k1', { allowance: 10 });
      const a1 = await store.credits.adjust('k1', { allowance: 50 }, at(1));
      expect(a1).toMatchObject({ id: 'k1', allowance: 50, balance: 10 });
      expect(await store.credits.ledger('k1')).toEqual([]);
      expect(await store.credits.adjust('k1', { add: 5 }, at(2))).toMatchObject({ allowance: 50, balance: 15 });
      expect(await store.credits.adjust('k1', { set: 3 }, at(3))).toMatchObject({ balance: 3 });
      expect(await store.credits.adjust('k1', { add: -100 }, at(4))).toMatchObject({ balance: 0 });
      expect(await store.credits.adjust('k1', { set: 0 }, at(5))).toMatchObject({ balance: 0 });
      expect(await store.credits.adjust('k1', { add: 0 }, at(6))).toMatchObject({ balance: 0 });
      expect(await store.credits.adjust('k1', { set: -4 }, at(7))).toMatchObject({ balance: 0 });
      expect(await store.credits.adjust('k1', { set: 7, allowance: 9 }, at(8))).toMatchObject({ allowance: 9, balance: 7 });
      const rows = (await store.credits.ledger('k1')).map(({ delta, reason, ref, balance_after, created_at }) => ({
        delta,
        reason,
        ref,
        balance_after,
        created_at,
      }));
      expect(rows).toEqual([
        { delta: 5, reason: 'adjust', ref: null, balance_after: 15, created_at: at(2) },
        { delta: -12, reason: 'adjust', ref: null, balance_after: 3, created_at: at(3) },
        { delta: -3, reason: 'adjust', ref: null, balance_after: 0, created_at: at(4) },
        { delta: 7, reason: 'adjust', ref: null, balance_after: 7, created_at: at(8) },
      ]);
      // The next period starts from the adjusted allowance.
      expect(await store.credits.balance('k1', '2026-12', at(9))).toBe(9);
      expect(await store.credits.adjust('nope', { add: 1 }, at(10))).toBeNull();
      expect(await store.credits.ledger('nope')).toEqual([]);
    });

    it('a charge with an idempotent record completes the claim in the same step; a refused one does not', async () => {
      await key('k1', { allowance: 1 });
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(1), at(-600))).toEqual({ state: 'new' });
      expect(
        await store.credits.charge('k1', 1, PERIOD, 'r1', at(2), { idemKey: 'i1', response: { status: 200, body: '{"valid":true}' } }),
      ).toEqual({ ok: true, balance: 0 });
      expect(await store.idempotency.begin('k1', 'i1', 'h1', at(3), at(-600))).toEqual({
        state: 'replay',
        status: 200,
        body: '{"valid":true}',
      });
      expect(await store.idempotency.begin('k1', 'i2', 'h2', at(4), at(-600))).toEqual({ state: 'new' });
      expect(await store.credits.charge('k1', 1, PERIOD, 'r2', at(5), { idemKey: 'i2', response: { status: 200, body: '{}' } })).toEqual({
        ok: false,
        balance: 0,
      });
      expect(await store.idempotency.begin('k1', 'i2', 'h2', at(6), at(-600))).toEqual({ state: 'in_progress' });
    });

    it('CONCURRENCY: 200 concurrent charges on 50 credits: exactly 50 succeed, never overdrawn', async () => {
      await key('k1', { allowance: 50 });
      await key('k2', { allowance: 5 });
      const outcomes = await Promise.all(Array.from({ length: 200 }, (_, i) => store.credits.charge('k1', 1, PERIOD, `r${i}`, at(1))));
      expect(count(outcomes, (o) => o.ok)).toBe(50);
      expect(outcomes.filter((o) => !o.ok).every((o) => o.balance === 0)).toBe(true);
      expect(
        outcomes
          .filter((o) => o.ok)
          .map((o) => o.balance)
          .sort((a, b) => a - b),
      ).toEqual(Array.from({ length: 50 }, (_, i) => i));
      expect(await store.credits.balance('k1', PERIOD, at(2))).toBe(0);
      const ledger = await store.credits.ledger('k1');
      expect(ledger).toHaveLength(50);
      expect(ledger.every((e) => e.reason === 'charge' && e.delta === -1)).toBe(true);
      // In ledger order, each charge saw the balance the previous one left.
      expect(ledger.map((e) => e.balance_after)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
      expect(new Set(ledger.map((e) => e.ref)).size).toBe(50);
      expect((await store.keys.get('k2'))?.balance).toBe(5);
    });
  });
});
