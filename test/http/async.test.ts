import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZJobAcceptedSchema, ZJobSchema } from '../../shared/job.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
const pdf = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

beforeAll(async () => {
  srv = await startTestServer();
  // Live keys are charged on answers from real sources: an operator's registry extract.
  await importOperatorRegistry(srv.store);
});
afterAll(async () => srv.close());

const submit = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(srv.url, 'POST', '/api/v1/verify/async', { key, body, headers });
const finished = (b: any) => b.status !== 'pending';

describe('POST /api/v1/verify/async', () => {
  it('answers 202 at once with a UUID job_id, pending and poll_url; the job completes with the 2.2 result', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r = await submit(key, policy);
    expect(r.status).toBe(202);
    expect(ZJobAcceptedSchema.strict().parse(r.body)).toEqual({
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      poll_url: `/api/v1/jobs/${r.body.job_id}`,
    });
    const job = await pollUntil(srv.url, r.body.poll_url, key, finished);
    expect(ZJobSchema.parse(job)).toBeTruthy();
    expect(job).toMatchObject({
      job_id: r.body.job_id,
      status: 'complete',
      kind: 'verification',
      result: { status: 'verified', policy_number: 'UKM10000001', credits_charged: 0 },
    });
    expect(job.completed_at).not.toBeNull();
    expect(job.document).toBeUndefined();
  });

  it('reserves a credit on submission and keeps it for a verified result', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 3 });
    const r = await submit(key, OPERATOR_UK_MOTOR);
    expect((await srv.store.credits.ledger(id))[0]).toMatchObject({
      delta: -1,
      reason: 'reserve',
      ref: `job:${r.body.job_id}`,
      balance_after: 2,
    });
    const job = await pollUntil(srv.url, r.body.poll_url, key, finished);
    expect(job.result.credits_charged).toBe(1);
    expect((await srv.store.keys.get(id))!.balance).toBe(2);
    expect((await srv.store.credits.ledger(id)).map((e) => [e.delta, e.reason])).toEqual([[-1, 'reserve']]);
  });

  it('gives the credit back, once, for an inconclusive result', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 3 });
    const r = await submit(key, { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' });
    const job = await pollUntil(srv.url, r.body.poll_url, key, finished);
    expect(job.result).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect((await srv.store.keys.get(id))!.balance).toBe(3);
    expect((await srv.store.credits.ledger(id)).map((e) => [e.delta, e.reason])).toEqual([
      [-1, 'reserve'],
      [1, 'refund'],
    ]);
  });

  it('402 when the balance cannot cover the reservation; nothing is stored', async () => {
    const { key } = await srv.key({ mode: 'live', credits: 0 });
    const r = await submit(key, policy);
    expect(r.status).toBe(402);
    expect(r.body).toEqual({ error: 'insufficient_credits', message: expect.stringContaining('balance'), code: 402 });
  });

  it('a job is visible only to its key: another key and an unknown id get the same 404', async () => {
    const a = await srv.key({ mode: 'test' });
    const b = await srv.key({ mode: 'test' });
    const r = await submit(a.key, policy);
    const foreign = await call(srv.url, 'GET', r.body.poll_url, { key: b.key });
    const unknown = await call(srv.url, 'GET', '/api/v1/jobs/00000000-0000-4000-8000-000000000000', { key: b.key });
    expect(foreign.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(foreign.body.error).toBe('not_found');
    expect(Object.keys(foreign.body).sort()).toEqual(Object.keys(unknown.body).sort());
  });

  it('keeps a document and records that no extraction ran', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r = await submit(key, { ...policy, document: pdf.toString('base64') });
    expect(r.status).toBe(202);
    const job = await pollUntil(srv.url, r.body.poll_url, key, finished);
    expect(job.document).toEqual({ bytes: pdf.length, extraction: 'not_available', detail: expect.stringContaining('not available') });
    expect(await srv.store.jobs.document(r.body.job_id)).toEqual(pdf);
  });

  const bad: [string, Record<string, unknown>, number, string][] = [
    ['missing fields', { country: 'UK' }, 400, 'missing_required_field'],
    ['unsupported country', { ...policy, country: 'ES' }, 400, 'unsupported_country'],
    ['bad policy number', { ...policy, policy_number: 'AB' }, 400, 'invalid_policy_number'],
    ['document not base64', { ...policy, document: 'this is not base64!' }, 400, 'invalid_document'],
    ['document not a PDF', { ...policy, document: Buffer.from('\x89PNG\r\n\x1a\n0000').toString('base64') }, 400, 'invalid_document'],
    ['webhook over http', { ...policy, webhook_url: 'http://example.com/hook' }, 400, 'invalid_webhook_url'],
    ['webhook to a loopback address', { ...policy, webhook_url: 'https://127.0.0.1/hook' }, 400, 'invalid_webhook_url'],
    ['webhook to a private address', { ...policy, webhook_url: 'https://10.1.2.3/hook' }, 400, 'invalid_webhook_url'],
    ['webhook to link-local metadata', { ...policy, webhook_url: 'https://169.254.169.254/latest' }, 400, 'invalid_webhook_url'],
    [
      'webhook_url over 2,048 characters (the fuzz run stored and returned 19 MB)',
      { ...policy, webhook_url: `https://hooks.example.com/${'a'.repeat(2048)}` },
      400,
      'invalid_webhook_url',
    ],
    ['unknown field', { ...policy, colour: 'red' }, 400, 'invalid_request'],
  ];
  for (const [name, body, status, error] of bad) {
    it(`${name} -> ${status} ${error} in the standard error form, nothing reserved`, async () => {
      const { key, id } = await srv.key({ mode: 'live', credits: 5 });
      const r = await submit(key, body);
      expect(r.status).toBe(status);
      expect(r.body).toEqual({ error, message: expect.any(String), code: status });
      expect((await srv.store.keys.get(id))!.balance).toBe(5);
    });
  }

  it('a document over 14 MB decoded -> 413', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const big = Buffer.alloc(15 * 1024 * 1024, 0x41);
    big.write('%PDF-1.4');
    const r = await submit(key, { ...policy, document: big.toString('base64') });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: 'payload_too_large', code: 413 });
  });

  it('14 MB is inclusive, as on /documents/extract: exactly 14 MiB decoded is accepted, one byte more is 413', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const doc = (size: number) => {
      const b = Buffer.alloc(size, 0x41);
      b.write('%PDF-1.4');
      return b.toString('base64');
    };
    const exact = await submit(key, { ...policy, document: doc(14 * 1024 * 1024) });
    expect(exact.status).toBe(202);
    expect((await srv.store.jobs.document(exact.body.job_id))!.length).toBe(14 * 1024 * 1024);
    const over = await submit(key, { ...policy, document: doc(14 * 1024 * 1024 + 1) });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: 'payload_too_large', code: 413 });
  });

  it('Idempotency-Key: a repeated submission returns the same job and reserves once', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const headers = { 'idempotency-key': 'async-1' };
    const a = await submit(key, OPERATOR_UK_MOTOR, headers);
    const b = await submit(key, OPERATOR_UK_MOTOR, headers);
    expect(b.body.job_id).toBe(a.body.job_id);
    expect((await srv.store.keys.get(id))!.balance).toBe(4);
  });
});
