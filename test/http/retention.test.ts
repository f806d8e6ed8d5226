/**
 * Retention and erasure through the real connector (docs/personal-data.md): an uploaded document is
 * removed once its job has been finished for the document retention period, and its bytes leave the
 * key's count; the job itself (result, deliveries, write-backs) goes after the result retention, and
 * GET then answers 404 job_expired. DELETE /api/v1/jobs/{id} erases a finished job of the calling key
 * at once; another key's job is 404 as an unknown id and is left intact; a pending job is 409.
 * The clock is moved, not waited for. Runs on SQLite and, in the `postgres` project, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { ZJobDeletedSchema } from '../../shared/job.js';
import { corpusPdf } from '../extract/helpers.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
const PDF = corpusPdf('002');

/** The app's clock: the real time moved on by `offset`. */
let offset = 0;
const now = () => new Date(Date.now() + offset);

async function upload(srv: TestServer, key: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'policy.pdf');
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const body = (await res.json()) as { job_id: string; poll_url: string };
  expect(res.status, JSON.stringify(body)).toBe(202);
  const job = await pollUntil(srv.url, body.poll_url, key, (b) => b.status !== 'pending', 30_000);
  expect(job.status).toBe('complete');
  return body.job_id;
}

/** Wakes the retention worker until `done` holds; fails after `timeoutMs` (no sweep, or it removed nothing). */
async function sweepUntil(srv: TestServer, what: string, done: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`retention did not remove ${what} within ${timeoutMs} ms`);
    srv.connector.workers.find((w) => w.name === 'retention')?.notify();
    await new Promise((r) => setTimeout(r, 50));
  }
}

function expectError(r: { status: number; body: unknown }, status: number, error: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(ZErrorBodySchema.parse(r.body)).toMatchObject({ error, code: status });
}

describe('retention and erasure of jobs', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      extraction: true,
      now,
      env: { COVERCHECK_DOCUMENT_RETENTION_HOURS: '24', COVERCHECK_RESULT_RETENTION_DAYS: '30' },
    });
  });
  afterAll(async () => srv.close());

  it('a document goes once its job has been finished for the retention period, its bytes with it; the result after the result retention', async () => {
    offset = 0;
    const { key, id: keyId } = await srv.key({ mode: 'live', credits: 10 });
    const older = await upload(srv, key);
    offset = 2 * HOUR;
    const newer = await upload(srv, key);
    expect(await srv.store.jobs.documentBytes(keyId)).toBe(2 * PDF.length);

    // 25 h after the first job finished, 23 h after the second: only the first document is due.
    offset = 25 * HOUR;
    await sweepUntil(srv, 'the older document', async () => (await srv.store.jobs.document(older)) === null);
    expect(await srv.store.jobs.document(newer)).not.toBeNull();
    expect(await srv.store.jobs.documentBytes(keyId)).toBe(PDF.length);
    // The job and its result stay: only the PDF is gone.
    const kept = await call(srv.url, 'GET', `/api/v1/jobs/${older}`, { key });
    expect(kept.status).toBe(200);
    expect(kept.body).toMatchObject({ status: 'complete', result: { policy_number: expect.any(String) } });

    // Past the result retention of both: each job answers 404 job_expired to its key, not_found to another.
    offset = 31 * DAY + 3 * HOUR;
    await sweepUntil(srv, 'the jobs', async () => (await srv.store.jobs.get(older)) === null && (await srv.store.jobs.get(newer)) === null);
    expect(await srv.store.jobs.documentBytes(keyId)).toBe(0);
    const expired = await call(srv.url, 'GET', `/api/v1/jobs/${older}`, { key });
    expectError(expired, 404, 'job_expired');
    expect(expired.body.message).toMatch(/30 days/);
    const other = await srv.key({ mode: 'live' });
    expectError(await call(srv.url, 'GET', `/api/v1/jobs/${older}`, { key: other.key }), 404, 'not_found');
  });

  it("DELETE erases the calling key's finished job at once: its document, its result, its bytes; twice is 404", async () => {
    offset = 40 * DAY;
    const owner = await srv.key({ mode: 'live', credits: 10 });
    const other = await srv.key({ mode: 'live', credits: 10 });
    const jobId = await upload(srv, owner.key);
    expect(await srv.store.jobs.documentBytes(owner.id)).toBe(PDF.length);

    // Another key: 404 as for an unknown id, and nothing is touched.
    expectError(await call(srv.url, 'DELETE', `/api/v1/jobs/${jobId}`, { key: other.key }), 404, 'not_found');
    expect((await call(srv.url, 'GET', `/api/v1/jobs/${jobId}`, { key: owner.key })).body).toMatchObject({ status: 'complete' });
    expect(await srv.store.jobs.document(jobId)).not.toBeNull();
    expect(await srv.store.jobs.documentBytes(owner.id)).toBe(PDF.length);

    const before = now().getTime();
    const erased = await call(srv.url, 'DELETE', `/api/v1/jobs/${jobId}`, { key: owner.key });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    const body = ZJobDeletedSchema.parse(erased.body);
    expect(body).toMatchObject({ job_id: jobId, deleted: true, document_bytes: PDF.length });
    // The app's (moved) clock, not the real one.
    expect(Date.parse(body.deleted_at)).toBeGreaterThanOrEqual(before);
    expect(await srv.store.jobs.document(jobId)).toBeNull();
    expect(await srv.store.jobs.get(jobId)).toBeNull();
    expect(await srv.store.jobs.documentBytes(owner.id)).toBe(0);
    expectError(await call(srv.url, 'GET', `/api/v1/jobs/${jobId}`, { key: owner.key }), 404, 'not_found');
    expectError(await call(srv.url, 'DELETE', `/api/v1/jobs/${jobId}`, { key: owner.key }), 404, 'not_found');
  });
});

describe('DELETE of a job still pending', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // No workers: the job stays pending.
    srv = await startTestServer({ workers: false });
  });
  afterAll(async () => srv.close());

  it('is 409 job_pending, and the job goes on', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const accepted = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' },
    });
    expect(accepted.status).toBe(202);
    expectError(await call(srv.url, 'DELETE', `/api/v1/jobs/${accepted.body.job_id}`, { key }), 409, 'job_pending');
    expect((await call(srv.url, 'GET', `/api/v1/jobs/${accepted.body.job_id}`, { key })).body).toMatchObject({ status: 'pending' });
  });
});
