/**
 * Documents kept in the store are bounded (docs/document-limits.md, "Storage"): each key may hold so
 * many bytes of documents (sandbox keys fewer), refused 429 past it, and no document is stored when
 * the store's filesystem would fall below its reserve of free space, refused 507. Both in the
 * contract's error body, before anything is stored; another key, and work without a document, are unaffected.
 * Runs on SQLite and, in the `postgres` project, on PostgreSQL (vitest.config.ts).
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const KB = 1024;
const MB = 1024 * KB;
/** Each document a quarter of a sandbox key's quota: the fifth is one too many. */
const SANDBOX_QUOTA_MB = 1;
const LIVE_QUOTA_MB = 2;
const DOC = 256 * KB;
const POLICY = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

const pdf = (size = DOC) => {
  const b = Buffer.alloc(size, 0x20);
  b.write('%PDF-1.7\n');
  return b;
};

async function upload(srv: TestServer, key: string, data = pdf()) {
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/pdf' }), 'policy.pdf');
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any };
}

const asyncWithDocument = (srv: TestServer, key: string, data = pdf()) =>
  call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...POLICY, document: data.toString('base64') } });

/** The per-key quota: 429 with a retry delay (the key's own doing; retention makes room). The disk guard: 507. */
function expectRefused(r: { status: number; body: unknown }, error: 'document_quota_exceeded' | 'insufficient_storage'): void {
  const status = error === 'document_quota_exceeded' ? 429 : 507;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  const body = ZErrorBodySchema.parse(r.body);
  expect(body).toMatchObject({ error, code: status });
  if (status === 429) expect(body.retry_after).toBeGreaterThanOrEqual(60);
}

describe('per-key document quota', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // No workers: every job stays pending with its document.
    srv = await startTestServer({
      workers: false,
      env: {
        COVERCHECK_DOCUMENT_QUOTA_SANDBOX_MB: String(SANDBOX_QUOTA_MB),
        COVERCHECK_DOCUMENT_QUOTA_MB: String(LIVE_QUOTA_MB),
        COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY: '1000',
      },
    });
  });
  afterAll(async () => srv.close());

  it('a sandbox key past its quota is refused 429 document_quota_exceeded on both routes; another key is not', async () => {
    const a = await srv.key({ mode: 'test', name: 'a' });
    const b = await srv.key({ mode: 'test', name: 'b' });
    // Four documents of a quarter each fill the quota exactly (it is inclusive), by either route.
    for (let i = 0; i < 2; i++) expect((await upload(srv, a.key)).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await asyncWithDocument(srv, a.key)).status).toBe(202);

    const over = await upload(srv, a.key, pdf(16));
    expectRefused(over, 'document_quota_exceeded');
    expect(over.body.message).toMatch(/1 MB/);
    expectRefused(await asyncWithDocument(srv, a.key, pdf(100)), 'document_quota_exceeded');
    // Nothing of the refused ones was stored.
    expect(await srv.store.jobs.documentBytes(a.id)).toBe(4 * DOC);

    // The other key, and the same key's work without a document, go on.
    expect((await upload(srv, b.key)).status).toBe(202);
    expect((await call(srv.url, 'POST', '/api/v1/verify/async', { key: a.key, body: POLICY })).status).toBe(202);
    expect((await call(srv.url, 'POST', '/api/v1/verify', { key: a.key, body: POLICY })).status).toBe(200);
    expect(await srv.store.jobs.documentBytes(b.id)).toBe(DOC);
  });

  it('a live key has the larger quota', async () => {
    const live = await srv.key({ mode: 'live', credits: 100 });
    for (let i = 0; i < (LIVE_QUOTA_MB * MB) / DOC; i++) expect((await upload(srv, live.key)).status).toBe(202);
    expectRefused(await upload(srv, live.key, pdf(16)), 'document_quota_exceeded');
    // Its refused upload reserved no credit: one reserved per stored document.
    expect((await call(srv.url, 'GET', '/api/v1/account', { key: live.key })).body.credits.balance).toBe(100 - (LIVE_QUOTA_MB * MB) / DOC);
  });
});

describe('disk guard', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // A reserve larger than any disk: the guard refuses every document, whatever the disk holds.
    srv = await startTestServer({
      workers: false,
      env: { COVERCHECK_DISK_RESERVE_MB: '1000000000', COVERCHECK_DISK_GUARD_PATH: os.tmpdir() },
    });
  });
  afterAll(async () => srv.close());

  it('no document is stored below the reserve: 507 insufficient_storage; work without a document goes on', async () => {
    const k = await srv.key({ mode: 'test' });
    expectRefused(await upload(srv, k.key), 'insufficient_storage');
    expectRefused(await asyncWithDocument(srv, k.key), 'insufficient_storage');
    expect(await srv.store.jobs.documentBytes(k.id)).toBe(0);
    expect((await call(srv.url, 'POST', '/api/v1/verify/async', { key: k.key, body: POLICY })).status).toBe(202);
  });
});
