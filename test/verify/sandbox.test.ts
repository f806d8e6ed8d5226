/**
 * Sandbox keys stay in the sandbox: a pk_test_ key sees the demo registry rows
 * only, never reaches an upstream registry, and every result says so with the `sandbox` flag. A
 * real upstream on loopback counts the calls it gets; a live key beside it still reaches it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZVerificationResultSchema } from '../../shared/verification.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

/** Answers every lookup "found, active" so a call that slipped through would change the result. */
const calls: string[] = [];
const upstream = http.createServer((req, res) => {
  calls.push(req.url!);
  const number = decodeURIComponent(req.url!.split('/').pop()!);
  const type = req.url!.split('/')[3];
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      found: true,
      policies: [
        {
          policy_number: number,
          insurance_type: type,
          insurer_reference: '21090402',
          start_date: '2026-01-01',
          end_date: '2030-12-31',
          status: 'active',
        },
      ],
    }),
  );
});

let srv: TestServer;
let live: string;
let sandbox: string;
beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  srv = await startTestServer({ env: { COVERCHECK_REGISTRY_UPSTREAMS: `UK=${base},DE=${base},FR=${base}` } });
  live = (await srv.key({ mode: 'live', credits: 100 })).key;
  sandbox = (await srv.key({ mode: 'test' })).key;
  // A real (non-demo) registry file the operator imported: a UK motor policy, and FR health coverage.
  await srv.store.registry.upsertMany([
    {
      policy_number: 'UKM77770001',
      country: 'UK',
      insurance_type: 'motor',
      insurer_reference: 'DEMO-UK-0001',
      start_date: '2026-01-01',
      end_date: '2030-12-31',
      status: 'active',
      vehicle_registration: null,
      source: 'mid-extract',
      demo: false,
    },
  ]);
  await srv.store.registry.setCoverage([
    { country: 'FR', insurance_type: 'health', source: 'fr-mutuelles', demo: false, updated_at: new Date().toISOString() },
  ]);
});
afterAll(async () => {
  await srv.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});
beforeEach(() => {
  calls.length = 0;
});

const unknownUk = { policy_number: 'UKM-5555-0001', country: 'UK', insurance_type: 'motor' };
const frHealth = { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' };
const realUk = { policy_number: 'UKM-7777-0001', country: 'UK', insurance_type: 'motor' };
const demoUk = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

describe('a sandbox key', () => {
  it('sync: demo rows answer as before, with the sandbox flag; nothing reaches the upstream', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: sandbox, body: demoUk });
    expect(r.status).toBe(200);
    expect(ZVerificationResultSchema.parse(r.body)).toMatchObject({ status: 'verified', credits_charged: 0 });
    expect(r.body.flags).toEqual(['demo_data', 'sandbox']);
    expect(calls).toEqual([]);
  });

  it('sync: a number the demo data does not hold is unverified, and the upstream is never asked', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: sandbox, body: unknownUk });
    expect(r.body).toMatchObject({ status: 'unverified', credits_charged: 0 });
    expect(r.body.flags).toContain('sandbox');
    expect(calls).toEqual([]);
  });

  it('never sees a real registry row or real-only coverage', async () => {
    const row = await call(srv.url, 'POST', '/api/v1/verify', { key: sandbox, body: realUk });
    expect(row.body.status).toBe('unverified');
    expect(row.body.coverage).toBeNull();
    expect(JSON.stringify(row.body)).not.toContain('mid-extract');
    // FR health: only the operator's real source covers it; for the sandbox it is not covered at all.
    const cov = await call(srv.url, 'POST', '/api/v1/verify', { key: sandbox, body: frHealth });
    expect(cov.body).toMatchObject({ status: 'inconclusive', flags: ['no_registry_coverage', 'sandbox'] });
    expect(cov.body.checks.find((c: { source: string }) => c.source === 'registry').detail).toContain('sandbox key sees demo data only');
    expect(calls).toEqual([]);
  });

  it('async jobs and batches: the sandbox flag on every result, no upstream call', async () => {
    const job = await call(srv.url, 'POST', '/api/v1/verify/async', { key: sandbox, body: frHealth });
    expect(job.status).toBe(202);
    const done = await pollUntil(srv.url, job.body.poll_url, sandbox, (b) => b.status !== 'pending');
    expect(ZVerificationResultSchema.parse(done.result).flags).toContain('sandbox');

    const batch = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: sandbox,
      body: { policies: [unknownUk, frHealth, realUk, demoUk] },
    });
    expect(batch.status).toBe(202);
    const b = await pollUntil(srv.url, `/api/v1/batches/${batch.body.batch_id}`, sandbox, (x) => x.status === 'complete');
    for (const item of b.results) expect(ZVerificationResultSchema.parse(item.result).flags).toContain('sandbox');
    expect(b.results.map((i: { result: { status: string } }) => i.result.status)).toEqual([
      'unverified',
      'inconclusive',
      'unverified',
      'verified',
    ]);
    expect(calls).toEqual([]);
  });
});

describe('a live key beside it', () => {
  it('still reaches the upstream for what the local registry does not know, and has no sandbox flag', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: live, body: unknownUk });
    expect(r.body).toMatchObject({ status: 'verified', credits_charged: 1 });
    expect(r.body.flags).not.toContain('sandbox');
    expect(calls).toEqual(['/policies/UK/motor/UKM55550001']);
  });

  it('sees the real registry row without asking the upstream', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: live, body: realUk });
    expect(r.body).toMatchObject({ status: 'verified', coverage: { registry_status: 'active' } });
    expect(calls).toEqual([]);
  });
});

describe('the contract', () => {
  it('the OpenAPI document lists the sandbox flag', async () => {
    const doc = await call(srv.url, 'GET', '/api/v1/openapi.json');
    expect(doc.body.components.schemas.Flag.enum).toContain('sandbox');
  });
});
