/**
 * Extraction through the whole connector: upload -> durable job -> worker-thread pool (pdf.js and
 * tesseract OCR) -> job result. Corpus PDFs from test/fixtures/policies with their ground truth.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZJobSchema } from '../../shared/job.js';
import { corpusPdf, corpusTruth, encryptedPdf } from '../extract/helpers.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer({ extraction: true });
});
afterAll(async () => srv.close());

async function upload(data: Buffer, key: string) {
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/pdf' }), 'policy.pdf');
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}
const done = (b: any) => b.status !== 'pending';
const FIELDS = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;

describe('document extraction end to end', () => {
  it('a text PDF: the job completes with every field of its ground truth and a confidence per field; 1 credit kept', async () => {
    const { key, id } = await srv.key({ mode: 'live', credits: 5 });
    const r = await upload(corpusPdf('002'), key);
    expect(r.status).toBe(202);
    const job = ZJobSchema.parse(await pollUntil(srv.url, r.body.poll_url, key, done, 30_000));
    expect(job).toMatchObject({ status: 'complete', kind: 'extraction' });
    // `document` is for a PDF attached to an async verification; here the PDF is the job itself.
    expect(job).not.toHaveProperty('document');
    const truth = corpusTruth('002');
    const result = job.result as Record<string, unknown> & { confidence: Record<string, number> };
    for (const f of FIELDS) if (truth[f]) expect(String(result[f]).replace(/\s/g, ''), f).toBe(String(truth[f]).replace(/\s/g, ''));
    expect(Object.keys(result.confidence).sort()).toEqual(FIELDS.filter((f) => result[f] !== undefined).sort());
    expect((await srv.store.keys.get(id))!.balance).toBe(4);
  });

  it('a scanned PDF goes through OCR and yields the insurer and type', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r = await upload(corpusPdf('001'), key);
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 60_000);
    expect(job.status).toBe('complete');
    expect(job.result).toMatchObject({ insurer: 'Northgate Demo Mutual Insurance Society Limited', insurance_type: 'motor' });
    // The poll above may wait 60 s: OCR runs at the lowest priority, and both store projects run it at once.
  }, 90_000);

  for (const [name, data, mention] of [
    ['a truncated PDF', corpusPdf('002').subarray(0, 400), 'not a readable PDF'],
    ['a password-protected PDF', encryptedPdf(), 'password'],
  ] as const) {
    it(`${name}: the job fails with unreadable_document and the credit comes back`, async () => {
      const { key, id } = await srv.key({ mode: 'live', credits: 5 });
      const r = await upload(Buffer.from(data), key);
      expect(r.status).toBe(202);
      const job = await pollUntil(srv.url, r.body.poll_url, key, done, 30_000);
      expect(job).toMatchObject({
        status: 'failed',
        error: { error: 'unreadable_document', code: 422, message: expect.stringContaining(mention) },
      });
      expect(job).not.toHaveProperty('document');
      expect((await srv.store.keys.get(id))!.balance).toBe(5);
    });
  }

  it('async verification with a document cross-checks it: agreement, then a mismatch flagged', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const doc = corpusPdf('002').toString('base64');
    const truth = corpusTruth('002');
    const agree = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: { policy_number: truth.policy_number, country: 'DE', insurance_type: 'motor', document: doc },
    });
    const agreed = await pollUntil(srv.url, agree.body.poll_url, key, done, 30_000);
    expect(agreed.document).toMatchObject({ extraction: 'complete', mismatches: [], fields: { policy_number: truth.policy_number } });
    expect(agreed.result.flags).not.toContain('document_mismatch');
    const differ = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: { policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', document: doc },
    });
    const differed = await pollUntil(srv.url, differ.body.poll_url, key, done, 30_000);
    expect(differed.document.mismatches).toContain('policy_number');
    expect(differed.result.flags).toContain('document_mismatch');
  });
});
