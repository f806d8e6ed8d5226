import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
// Live keys are charged for answers from real sources only: an operator's registry extract.
const policy = OPERATOR_UK_MOTOR;

beforeAll(async () => {
  srv = await startTestServer();
  await importOperatorRegistry(srv.store);
});
afterAll(async () => srv.close());

describe('credits (spec 8)', () => {
  it('200 concurrent calls on 50 credits charge exactly 50 and answer 402 to the other 150', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 50 });
    const results = await Promise.all(Array.from({ length: 200 }, () => call(srv.url, 'POST', '/api/v1/verify', { key, body: policy })));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(150);
    expect(ok.every((r) => r.body.credits_charged === 1)).toBe(true);
    for (const r of refused) {
      expect(r.body).toEqual({ error: 'insufficient_credits', detail: expect.stringMatching(/balance 0\.$/), balance: 0 });
    }
    const record = (await srv.store.keys.get(id))!;
    expect(record.balance).toBe(0);
    const ledger = await srv.store.credits.ledger(id);
    expect(ledger.filter((e) => e.reason === 'charge')).toHaveLength(50);
    expect(ledger.reduce((s, e) => s + e.delta, 0)).toBe(-50);
  });

  it('an exhausted key gets 402 with the balance in detail', async () => {
    const { key } = await srv.key({ mode: 'live', credits: 0 });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
    expect(r.status).toBe(402);
    expect(r.body.detail).toContain('balance 0');
  });

  it('sandbox keys are never charged, even with no credits', async () => {
    const { key, id } = await srv.key({ mode: 'test', credits: 0 });
    for (let i = 0; i < 3; i++) {
      const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
      expect(r.status).toBe(200);
      expect(r.body.credits_charged).toBe(0);
    }
    expect(await srv.store.credits.ledger(id)).toEqual([]);
  });

  it('inconclusive results cost 0 on a live key', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 3 });
    const r = await call(srv.url, 'POST', '/api/v1/verify', {
      key,
      body: { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' },
    });
    expect(r.body).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect((await srv.store.keys.get(id))!.balance).toBe(3);
  });

  it('a new billing period restores the allowance', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 2 });
    await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
    await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
    expect((await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy })).status).toBe(402);
    // The next month, seen through the store with a later clock:
    expect(await srv.store.credits.balance(id, '2999-01', '2999-01-01T00:00:00Z')).toBe(2);
    const ledger = await srv.store.credits.ledger(id);
    expect(ledger.at(-1)).toMatchObject({ reason: 'period_reset', ref: '2999-01', balance_after: 2 });
  });
});

describe('Idempotency-Key', () => {
  it('a repeat returns the first response and charges nothing again', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'order-42' };
    const first = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers });
    const second = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await srv.store.keys.get(id))!.balance).toBe(9);
  });
  it('concurrent repeats charge once', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'burst-1' };
    const rs = await Promise.all(Array.from({ length: 10 }, () => call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers })));
    expect(rs.filter((r) => r.status === 200).length).toBeGreaterThanOrEqual(1);
    expect(rs.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    expect((await srv.store.keys.get(id))!.balance).toBe(9);
  });
  it('the same key with another body -> 422 idempotency_key_reused', async () => {
    const { key } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'k-1' };
    await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: { ...policy, policy_number: 'UKO-1000-0004' }, headers });
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ error: 'idempotency_key_reused', code: 422 });
  });
  it('idempotency keys are per API key', async () => {
    const a = await srv.key({ mode: 'live', credits: 10 });
    const b = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'shared-name' };
    await call(srv.url, 'POST', '/api/v1/verify', { key: a.key, body: policy, headers });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: b.key, body: policy, headers });
    expect(r.headers.get('idempotent-replayed')).toBeNull();
    expect((await srv.store.keys.get(b.id))!.balance).toBe(9);
  });
  it('a 402 is not replayed: after a top-up the same key goes through', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 0 });
    const headers = { 'idempotency-key': 'retry-after-topup' };
    expect((await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers })).status).toBe(402);
    await srv.store.credits.adjust(id, { add: 1 }, new Date().toISOString());
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers });
    expect(r.status).toBe(200);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });
  it('a validation error is replayed as it was', async () => {
    const { key } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'bad-1' };
    const first = await call(srv.url, 'POST', '/api/v1/verify', { key, body: { country: 'UK' }, headers });
    const again = await call(srv.url, 'POST', '/api/v1/verify', { key, body: { country: 'UK' }, headers });
    expect(first.status).toBe(400);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
  it('an over-long key -> 400', async () => {
    const { key } = await srv.key({ mode: 'live', credits: 10 });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy, headers: { 'idempotency-key': 'x'.repeat(256) } });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });
});
