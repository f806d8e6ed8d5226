import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZBatchSchema } from '../../shared/batch.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
const ok = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

beforeAll(async () => {
  srv = await startTestServer();
  // Live keys are charged on answers from real sources: an operator's registry extract.
  await importOperatorRegistry(srv.store);
});
afterAll(async () => srv.close());

const submit = (key: string, body: unknown) => call(srv.url, 'POST', '/api/v1/verify/batch', { key, body });
const complete = (b: any) => b.status === 'complete';

describe('POST /api/v1/verify/batch', () => {
  it('answers at once with batch_id, pending and total_count; results come back in submission order', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const policies = [
      ok,
      { policy_number: 'KFZ-5096-000001', country: 'DE', type: 'motor' },
      { policy_number: 'UKM-9999-9999', country: 'UK', insurance_type: 'motor' },
    ];
    const r = await submit(key, { policies });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ batch_id: expect.stringMatching(/^[0-9a-f-]{36}$/), status: 'pending', total_count: 3 });
    const batch = await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, key, complete);
    expect(ZBatchSchema.parse(batch)).toBeTruthy();
    expect(batch).toMatchObject({ batch_id: r.body.batch_id, status: 'complete', total_count: 3, completed_count: 3 });
    expect(batch.results.map((x: any) => [x.index, x.policy_number, x.result?.status])).toEqual([
      [0, 'UKM-1000-0001', 'verified'],
      [1, 'KFZ-5096-000001', 'verified'],
      [2, 'UKM-9999-9999', 'unverified'],
    ]);
  });

  it('a bad item gets its own error and does not sink the batch', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const policies = [ok, { country: 'UK' }, { ...ok, country: 'ES' }, { ...ok, policy_number: '12' }, 'not an object', ok];
    const r = await submit(key, { policies });
    const batch = await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, key, complete);
    const byIndex = Object.fromEntries(batch.results.map((x: any) => [x.index, x]));
    expect(batch.results.map((x: any) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(byIndex[0].result.status).toBe('verified');
    expect(byIndex[1].error).toMatchObject({
      error: 'missing_required_field',
      code: 400,
      message: 'Missing required fields: policy_number, insurance_type',
    });
    expect(byIndex[2].error).toMatchObject({ error: 'unsupported_country' });
    expect(byIndex[3].error).toMatchObject({ error: 'invalid_policy_number' });
    expect(byIndex[4].error).toMatchObject({ error: 'invalid_request' });
    expect(byIndex[4].policy_number).toBeNull();
    expect(byIndex[5].result.status).toBe('verified');
    for (const x of batch.results) expect(Boolean(x.result) !== Boolean(x.error)).toBe(true);
  });

  it('reserves one credit per valid item and settles each with the sync rule', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    const policies = [
      OPERATOR_UK_MOTOR,
      { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' },
      { country: 'UK' },
      { policy_number: 'UKO-9999-9999', country: 'UK', insurance_type: 'motor' },
    ];
    const r = await submit(key, { policies });
    // The reservation is the first ledger row, written with the batch (the worker may already be done).
    expect((await srv.store.credits.ledger(id))[0]).toMatchObject({
      delta: -3,
      reason: 'reserve',
      ref: `batch:${r.body.batch_id}`,
      balance_after: 7,
    });
    const batch = await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, key, complete);
    expect(batch.results.map((x: any) => x.result?.credits_charged ?? null)).toEqual([1, 0, null, 1]);
    expect((await srv.store.keys.get(id))!.balance).toBe(8);
    const ledger = await srv.store.credits.ledger(id);
    expect(ledger.map((e) => [e.delta, e.reason])).toEqual([
      [-3, 'reserve'],
      [1, 'refund'],
    ]);
  });

  it('402 when the balance cannot cover the valid items', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 2 });
    const r = await submit(key, { policies: [ok, ok, ok] });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'insufficient_credits', code: 402 });
    expect((await srv.store.keys.get(id))!.balance).toBe(2);
  });

  it('101 policies, none, or a missing or non-array policies -> 400', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r101 = await submit(key, { policies: Array.from({ length: 101 }, () => ok) });
    expect(r101.status).toBe(400);
    expect(r101.body).toEqual({ error: 'invalid_request', message: 'policies must hold 1 to 100 policy objects; got 101.', code: 400 });
    expect((await submit(key, { policies: [] })).status).toBe(400);
    expect((await submit(key, {})).body).toMatchObject({ error: 'missing_required_field', code: 400 });
    expect((await submit(key, { policies: ok })).status).toBe(400);
    expect((await submit(key, { policies: [ok], extra: 1 })).status).toBe(400);
    expect((await submit(key, { policies: [ok], webhook_url: 'http://x.example' })).body.error).toBe('invalid_webhook_url');
  });

  it('100 policies are accepted and all get results', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r = await submit(key, {
      policies: Array.from({ length: 100 }, (_, i) => ({ ...ok, policy_number: `UKM-1000-${String(i).padStart(4, '0')}` })),
    });
    expect(r.body.total_count).toBe(100);
    const batch = await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, key, complete);
    expect(batch.results).toHaveLength(100);
    expect(batch.results.map((x: any) => x.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
  });

  it('a batch is visible only to its key', async () => {
    const a = await srv.key({ mode: 'test' });
    const b = await srv.key({ mode: 'test' });
    const r = await submit(a.key, { policies: [ok] });
    expect((await call(srv.url, 'GET', `/api/v1/batches/${r.body.batch_id}`, { key: b.key })).status).toBe(404);
    expect((await call(srv.url, 'GET', '/api/v1/batches/nope', { key: b.key })).status).toBe(404);
  });
});

describe('long-poll ?wait=N', () => {
  it('holds a batch GET until it completes (woken on completion, not at the deadline)', async () => {
    const paused = await startTestServer({ workers: false });
    try {
      const { key } = await paused.key({ mode: 'test' });
      const r = await call(paused.url, 'POST', '/api/v1/verify/batch', { key, body: { policies: [ok, ok] } });
      const started = Date.now();
      const held = call(paused.url, 'GET', `/api/v1/batches/${r.body.batch_id}?wait=10`, { key });
      await new Promise((res) => setTimeout(res, 300));
      paused.ctx.queue.start();
      const b = await held;
      const elapsed = Date.now() - started;
      expect(b.body.status).toBe('complete');
      expect(elapsed).toBeGreaterThanOrEqual(300);
      expect(elapsed).toBeLessThan(2000);
    } finally {
      await paused.close();
    }
  });
  it('answers with the current state when the wait runs out; bad wait values -> 400', async () => {
    const paused = await startTestServer({ workers: false });
    try {
      const { key } = await paused.key({ mode: 'test' });
      const r = await call(paused.url, 'POST', '/api/v1/verify/batch', { key, body: { policies: [ok] } });
      const started = Date.now();
      const b = await call(paused.url, 'GET', `/api/v1/batches/${r.body.batch_id}?wait=1`, { key });
      expect(b.body.status).toBe('pending');
      expect(Date.now() - started).toBeGreaterThanOrEqual(950);
      for (const w of ['26', '-1', 'x', '1.5'])
        expect((await call(paused.url, 'GET', `/api/v1/batches/${r.body.batch_id}?wait=${w}`, { key })).status, w).toBe(400);
      const j = await call(paused.url, 'POST', '/api/v1/verify/async', { key, body: ok });
      expect((await call(paused.url, 'GET', `/api/v1/jobs/${j.body.job_id}?wait=0`, { key })).body.status).toBe('pending');
      expect((await call(paused.url, 'GET', `/api/v1/jobs/${j.body.job_id}?wait=99`, { key })).status).toBe(400);
    } finally {
      await paused.close();
    }
  });
});
