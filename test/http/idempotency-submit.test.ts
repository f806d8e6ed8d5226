/**
 * Idempotency-Key on the accepting routes (/verify/batch, /verify/async): the 202 answer is stored in the
 * same transaction as the accepted work and its reservation, before anything is sent, so a crash between
 * committing and answering can't leave a key whose repeat would submit (and charge) again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { submitAsyncVerification, submitBatch, type SubmitDeps } from '../../connector/src/jobs/submit.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;

beforeAll(async () => {
  // No workers: what is checked is the submission, and the ledger stays at the reservation.
  srv = await startTestServer({ workers: false });
  await importOperatorRegistry(srv.store);
});
afterAll(async () => srv.close());

const policies = [OPERATOR_UK_MOTOR, { ...OPERATOR_UK_MOTOR, policy_number: 'UKO-1000-0004' }, { country: 'UK' }];

function deps(): SubmitDeps {
  return { store: srv.store, allowPrivateWebhooks: true, now: () => new Date(), notify: () => {} };
}

const claim = (keyId: string, idemKey: string) =>
  srv.store.idempotency.begin(keyId, idemKey, 'hash', new Date().toISOString(), new Date(Date.now() - 60_000).toISOString());

describe('Idempotency-Key on POST /api/v1/verify/batch', () => {
  it('a repeat replays the first 202 (same batch id) and reserves once', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'batch-once' };
    const first = await call(srv.url, 'POST', '/api/v1/verify/batch', { key, body: { policies }, headers });
    const second = await call(srv.url, 'POST', '/api/v1/verify/batch', { key, body: { policies }, headers });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await srv.store.credits.ledger(id)).map((e) => [e.delta, e.reason, e.ref])).toEqual([
      [-2, 'reserve', `batch:${first.body.batch_id}`],
    ]);
    expect((await srv.store.keys.get(id))!.balance).toBe(8);
  });

  it('the 202 is stored with the batch: complete as soon as submitBatch returns, before any answer is sent', async () => {
    const { id } = await srv.key({ mode: 'live', credits: 10 });
    const key = (await srv.store.keys.get(id))!;
    expect(await claim(id, 'batch-tx')).toEqual({ state: 'new' });
    const accepted = await submitBatch({ policies }, key, deps(), { idemKey: 'batch-tx' });
    expect(await claim(id, 'batch-tx')).toEqual({ state: 'replay', status: 202, body: JSON.stringify(accepted) });
  });

  it('a refused submission (402) stores nothing: the claim stays open for the middleware to release', async () => {
    const { id } = await srv.key({ mode: 'live', credits: 1 });
    const key = (await srv.store.keys.get(id))!;
    expect(await claim(id, 'batch-402')).toEqual({ state: 'new' });
    await expect(submitBatch({ policies }, key, deps(), { idemKey: 'batch-402' })).rejects.toMatchObject({ code: 'insufficient_credits' });
    expect(await claim(id, 'batch-402')).toEqual({ state: 'in_progress' });
  });
});

describe('Idempotency-Key on POST /api/v1/verify/async', () => {
  it('a repeat replays the first 202 (same job id) and reserves once', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    const headers = { 'idempotency-key': 'async-once' };
    const first = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: OPERATOR_UK_MOTOR, headers });
    const second = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: OPERATOR_UK_MOTOR, headers });
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body).toEqual(first.body);
    expect((await srv.store.credits.ledger(id)).map((e) => [e.delta, e.reason])).toEqual([[-1, 'reserve']]);
  });

  it('the 202 is stored with the job: complete as soon as submitAsyncVerification returns', async () => {
    const { id } = await srv.key({ mode: 'live', credits: 10 });
    const key = (await srv.store.keys.get(id))!;
    expect(await claim(id, 'async-tx')).toEqual({ state: 'new' });
    const accepted = await submitAsyncVerification(OPERATOR_UK_MOTOR, key, deps(), { idemKey: 'async-tx' });
    expect(await claim(id, 'async-tx')).toEqual({ state: 'replay', status: 202, body: JSON.stringify(accepted) });
  });

  it('a sandbox key (nothing reserved) gets its 202 stored with the job too', async () => {
    const { id } = await srv.key({ mode: 'test' });
    const key = (await srv.store.keys.get(id))!;
    expect(await claim(id, 'async-sandbox')).toEqual({ state: 'new' });
    const accepted = await submitAsyncVerification(OPERATOR_UK_MOTOR, key, deps(), { idemKey: 'async-sandbox' });
    expect(await claim(id, 'async-sandbox')).toEqual({ state: 'replay', status: 202, body: JSON.stringify(accepted) });
  });
});
