/** POST /api/v1/documents/extract: what the upload itself is refused for, before any extraction runs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;

beforeAll(async () => {
  // No workers: these cases are decided at upload time; jobs stay pending.
  // A sandbox key against the global bound alone: the sandbox keys' share of it is tested in extraction-share and lanes tests.
  srv = await startTestServer({
    workers: false,
    env: { COVERCHECK_EXTRACT_MAX_PENDING: '3', COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT: '100' },
  });
  key = (await srv.key({ mode: 'test' })).key;
});
afterAll(async () => srv.close());

async function upload(parts: { file?: { name: string; type: string; data: Buffer }; fields?: Record<string, string> }, k = key) {
  const form = new FormData();
  if (parts.file) form.append('file', new Blob([parts.file.data], { type: parts.file.type }), parts.file.name);
  for (const [n, v] of Object.entries(parts.fields ?? {})) form.append(n, v);
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, { method: 'POST', headers: { authorization: `Bearer ${k}` }, body: form });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const pdf = (size = 2000) => {
  const b = Buffer.alloc(size, 0x20);
  b.write('%PDF-1.7\n');
  return b;
};

describe('POST /api/v1/documents/extract (upload checks)', () => {
  it('accepts a PDF: 202 with job_id, pending and poll_url; the document is stored with the job', async () => {
    const data = pdf();
    const r = await upload({ file: { name: 'policy.pdf', type: 'application/pdf', data } });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending',
      poll_url: `/api/v1/jobs/${r.body.job_id}`,
    });
    expect(await srv.store.jobs.document(r.body.job_id)).toEqual(data);
    expect((await srv.store.jobs.get(r.body.job_id))!.kind).toBe('extraction');
  });
  it('a 15 MB file -> 413 in the contract error form', async () => {
    const r = await upload({ file: { name: 'big.pdf', type: 'application/pdf', data: pdf(15 * 1024 * 1024) } });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ error: 'payload_too_large', message: 'The file is larger than 14 MB.', code: 413 });
  });
  it('14 MB is inclusive: a file of exactly 14 MiB is accepted, one byte more is 413 (the same rule as /verify/async)', async () => {
    const exact = await upload({ file: { name: 'exact.pdf', type: 'application/pdf', data: pdf(14 * 1024 * 1024) } });
    expect(exact.status).toBe(202);
    expect((await srv.store.jobs.document(exact.body.job_id))!.length).toBe(14 * 1024 * 1024);
    const over = await upload({ file: { name: 'over.pdf', type: 'application/pdf', data: pdf(14 * 1024 * 1024 + 1) } });
    expect(over.status).toBe(413);
    expect(over.body).toMatchObject({ error: 'payload_too_large' });
  });
  it('a GIF renamed .pdf -> 400 invalid_document (judged by magic bytes; JPEG and PNG are read: extract-images.test.ts)', async () => {
    const gif = Buffer.concat([Buffer.from('GIF89a', 'latin1'), Buffer.alloc(100)]);
    const r = await upload({ file: { name: 'scan.pdf', type: 'application/pdf', data: gif } });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'invalid_document', code: 400 });
  });
  it('an empty upload -> 400 invalid_document; no file field -> 400 missing_required_field', async () => {
    expect((await upload({ file: { name: 'empty.pdf', type: 'application/pdf', data: Buffer.alloc(0) } })).body).toMatchObject({
      error: 'invalid_document',
      message: 'The uploaded file is empty.',
    });
    expect((await upload({ fields: { webhook_url: 'https://hooks.example.com/x' } })).body).toMatchObject({
      error: 'missing_required_field',
      code: 400,
    });
  });
  it('unknown fields, a second file field name, and non-multipart bodies are refused', async () => {
    expect((await upload({ file: { name: 'p.pdf', type: 'application/pdf', data: pdf() }, fields: { colour: 'red' } })).body).toMatchObject(
      { error: 'invalid_request' },
    );
    const form = new FormData();
    form.append('document', new Blob([pdf()]), 'p.pdf');
    const wrongField = await fetch(`${srv.url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(wrongField.status).toBe(400);
    const json = await fetch(`${srv.url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });
  it('webhook_url over http or to a private address -> 400 invalid_webhook_url', async () => {
    const r = await upload({
      file: { name: 'p.pdf', type: 'application/pdf', data: pdf() },
      fields: { webhook_url: 'http://hooks.example.com/x' },
    });
    expect(r.body, JSON.stringify(r.body)).toMatchObject({ error: 'invalid_webhook_url' });
    const p = await upload({
      file: { name: 'p.pdf', type: 'application/pdf', data: pdf() },
      fields: { webhook_url: 'https://192.168.1.10/x' },
    });
    expect(p.body).toMatchObject({ error: 'invalid_webhook_url' });
  });
  it('a key without the extract scope -> 403', async () => {
    const { key: k } = await srv.key({ scopes: ['verify'] });
    expect((await upload({ file: { name: 'p.pdf', type: 'application/pdf', data: pdf() } }, k)).status).toBe(403);
  });
  it('with too many extractions pending, uploads get 503 with Retry-After (no unbounded backlog)', async () => {
    // Two are pending from the first tests; fill up to the limit of 3.
    let last;
    for (let i = 0; i < 3; i++) last = await upload({ file: { name: 'p.pdf', type: 'application/pdf', data: pdf() } });
    expect(last!.status).toBe(503);
    expect(last!.headers.get('retry-after')).toBe('10');
    expect(last!.body).toMatchObject({ error: 'service_unavailable', code: 503, retry_after: 10 });
  });
});
