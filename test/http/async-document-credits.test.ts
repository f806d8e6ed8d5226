/**
 * Reading a document costs the same credit wherever it is read (docs/keys-and-credits.md): an async
 * verification sent with a document reserves 1 credit for the verification (the sync rule) and 1 for the
 * extraction, kept when the document was read and its fields returned, as POST /documents/extract keeps its
 * credit, and given back when it could not be read. Real extraction process; live keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPdf } from '../extract/helpers.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ extraction: true });
  await importOperatorRegistry(srv.store);
});
afterAll(async () => srv.close());

const done = (b: any) => b.status !== 'pending';
const doc = () => corpusPdf('002').toString('base64');
/** A live key gets inconclusive (0 credits) where no source it may use covers the country and type. */
const inconclusivePolicy = () => ({ policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' });

async function upload(data: Buffer, key: string) {
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/pdf' }), 'policy.pdf');
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return (await res.json()) as any;
}
const balance = async (id: string) => (await srv.store.keys.get(id))!.balance;

describe('an async verification with a document, on a live key', () => {
  it('inconclusive, document read: 1 credit, what /documents/extract charges for the same fields', async () => {
    const extract = await srv.key({ mode: 'live', credits: 5 });
    const extracted = await pollUntil(srv.url, (await upload(corpusPdf('002'), extract.key)).poll_url, extract.key, done, 30_000);
    expect(extracted.status).toBe('complete');
    expect(await balance(extract.id)).toBe(4);

    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...inconclusivePolicy(), document: doc() } });
    expect(r.status).toBe(202);
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
    expect(job.result).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect(job.document).toMatchObject({ extraction: 'complete', fields: { policy_number: extracted.result.policy_number } });
    expect(await balance(id)).toBe(4);
    expect((await srv.store.credits.ledger(id)).map((e) => [e.delta, e.reason])).toEqual([
      [-2, 'reserve'],
      [1, 'refund'],
    ]);
  });

  it('verified, document read: 2 credits, one for each', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...OPERATOR_UK_MOTOR, document: doc() } });
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
    expect(job.result).toMatchObject({ status: 'verified', credits_charged: 1 });
    expect(job.document.extraction).toBe('complete');
    expect(await balance(id)).toBe(3);
  });

  it('inconclusive, document unreadable: nothing kept', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const truncated = corpusPdf('002').subarray(0, 400).toString('base64');
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...inconclusivePolicy(), document: truncated } });
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
    expect(job.document.extraction).toBe('failed');
    expect(job.document.fields).toBeUndefined();
    expect(await balance(id)).toBe(5);
  });

  it('402 when the balance covers the verification but not the document; nothing stored or reserved', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 1 });
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...inconclusivePolicy(), document: doc() } });
    expect(r.status).toBe(402);
    expect(r.body).toMatchObject({ error: 'insufficient_credits', message: expect.stringContaining('this needs 2') });
    expect(await balance(id)).toBe(1);
    // Without the document the same request fits.
    expect((await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: inconclusivePolicy() })).status).toBe(202);
  });

  it('a sandbox key is charged nothing, document or not', async () => {
    const { key, id } = await srv.key({ mode: 'test', credits: 5 });
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...inconclusivePolicy(), document: doc() } });
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
    expect(job.document.extraction).toBe('complete');
    expect(await balance(id)).toBe(5);
  });
});
