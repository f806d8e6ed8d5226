import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ZSyncErrorBodySchema, ZErrorBodySchema } from '../../shared/errors.js';
import { ZVerificationResultSchema } from '../../shared/verification.js';
import { importOperatorRegistry } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;
let sandbox: string;
const verify = (body: unknown, k = key, headers: Record<string, string> = {}) =>
  call(srv.url, 'POST', '/api/v1/verify', { key: k, body, headers });

beforeAll(async () => {
  srv = await startTestServer();
  key = (await srv.key({ mode: 'live', credits: 1000 })).key;
  sandbox = (await srv.key({ mode: 'test' })).key;
});
afterAll(async () => srv.close());

describe('POST /api/v1/verify results', () => {
  // A live key sees real sources only: these run on an operator's registry extract (test/helpers/operator-registry.ts).
  beforeAll(async () => importOperatorRegistry(srv.store));

  it('a known, active policy is verified, charged 1 and valid against the contract', async () => {
    const r = await verify({ policy_number: 'uko 1000 0001', country: 'uk', insurance_type: 'motor' });
    expect(r.status).toBe(200);
    expect(ZVerificationResultSchema.parse(r.body)).toBeTruthy();
    expect(r.body).toMatchObject({
      status: 'verified',
      credits_charged: 1,
      policy_number: 'UKO10000001',
      verification_sources: ['format', 'fca_register', 'registry'],
      insurer: { name: 'U K Insurance Limited', reference: '202810', demo: false, regulated: 'YES', authorised: true },
      coverage: { start_date: '2026-01-01', end_date: '2030-12-31', registry_status: 'active' },
    });
    expect(r.body.flags).toEqual(['sanctions_not_checked']);
    expect(r.body.confidence_score).toBeGreaterThan(0.7);
    expect(Number.isInteger(r.body.processed_in_ms)).toBe(true);
  });
  it('a sandbox key gets the same on a demo policy, uncharged, flagged demo_data and sandbox', async () => {
    const r = await verify({ policy_number: 'ukm 1000 0001', country: 'uk', insurance_type: 'motor' }, sandbox);
    expect(r.body).toMatchObject({
      status: 'verified',
      credits_charged: 0,
      insurer: { reference: 'DEMO-UK-0001', demo: true, authorised: true },
    });
    expect(r.body.flags).toEqual(['demo_data', 'sandbox']);
  });
  it('a matching provider name raises confidence to 1 and carries the match score', async () => {
    const base = { policy_number: 'KFZ-5096-900001', country: 'DE', insurance_type: 'motor' };
    const without = await verify(base);
    const withProvider = await verify({ ...base, provider: 'hdi global se' });
    expect(without.body.status).toBe('verified');
    expect(withProvider.body.confidence_score).toBe(1);
    expect(withProvider.body.confidence_score).toBeGreaterThan(without.body.confidence_score);
    expect(withProvider.body.insurer).toMatchObject({ name: 'HDI Global SE', reference: '5096', demo: false, match_score: 1 });
    // The spec's value for the register check whatever the country; which register ran is in checks[].
    expect(withProvider.body.verification_sources).toEqual(['format', 'fca_register', 'registry']);
    expect(withProvider.body.checks.map((c: { source: string }) => c.source)).toEqual([
      'format',
      'bafin_register',
      'registry',
      'sanctions',
    ]);
  });
  it('a provider naming another insurer than the registry holds is unverified with provider_mismatch', async () => {
    const r = await verify({
      policy_number: 'KFZ-5096-900001',
      country: 'DE',
      insurance_type: 'motor',
      provider: 'Debeka Allgemeine Versicherung AG',
    });
    expect(r.body).toMatchObject({ status: 'unverified', credits_charged: 1 });
    expect(r.body.flags).toContain('provider_mismatch');
  });
  it('country and insurance type as staff type them: Deutschland and Kfz are answered as DE motor', async () => {
    const r = await verify({ policy_number: 'KFZ-5096-000001', country: 'Deutschland', insurance_type: 'Kfz' }, sandbox);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'verified', country: 'DE', insurance_type: 'motor' });
  });
  it('an expired policy is unverified with the expired flag', async () => {
    const r = await verify({ policy_number: 'UKO-1000-0002', country: 'UK', insurance_type: 'motor' });
    expect(r.body.status).toBe('unverified');
    expect(r.body.flags).toContain('expired');
    expect(r.body.confidence_score).toBeLessThanOrEqual(0.4);
  });
  it('a cancelled policy carries cancelled; a future one not_yet_active', async () => {
    expect((await verify({ policy_number: 'UKO-1000-0003', country: 'UK', insurance_type: 'motor' })).body.flags).toContain('cancelled');
    expect((await verify({ policy_number: 'UKO-1000-0007', country: 'UK', insurance_type: 'motor' })).body.flags).toContain(
      'not_yet_active',
    );
  });
  it('a policy whose insurer is sanctioned carries sanctioned and is unverified (the demo list: sandbox)', async () => {
    const r = await verify({ policy_number: 'UKM-1000-0006', country: 'UK', insurance_type: 'motor' }, sandbox);
    expect(r.body.status).toBe('unverified');
    expect(r.body.flags).toContain('sanctioned');
    expect(r.body.confidence_score).toBeLessThanOrEqual(0.1);
  });
  it('an insurer the register shows as no longer authorised is flagged', async () => {
    const r = await verify({ policy_number: 'UKO-1000-0005', country: 'UK', insurance_type: 'motor' });
    expect(r.body.insurer).toMatchObject({ reference: '203342', authorised: false, register_status: 'No longer authorised' });
    expect(r.body.flags).toContain('insurer_not_authorised');
    expect(r.body.status).toBe('unverified');
  });
  it('a number the covering registry does not know is unverified and charged', async () => {
    const r = await verify({ policy_number: 'UKO-9999-9999', country: 'UK', insurance_type: 'motor' });
    expect(r.body).toMatchObject({ status: 'unverified', credits_charged: 1, coverage: null, insurer: null });
  });
  it('a number held for another type is unverified with type_mismatch', async () => {
    const r = await verify({ policy_number: 'UKO-1000-0001', country: 'UK', insurance_type: 'travel' });
    expect(r.body.status).toBe('unverified');
    expect(r.body.flags).toContain('type_mismatch');
  });
  it('no registry coverage (FR health) is inconclusive and free', async () => {
    const r = await verify({ policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health', provider: 'AXA France IARD' });
    expect(r.body).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect(r.body.flags).toContain('no_registry_coverage');
    expect(r.body.insurer).toMatchObject({ reference: '21090402' });
  });
  it('an unknown provider is flagged provider_not_found in the sandbox, whose demo register counts as complete', async () => {
    const r = await verify(
      { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', provider: 'Zzyzx Mutual Holdings' },
      sandbox,
    );
    expect(r.body.flags).toContain('provider_not_found');
  });
  it('for a live key the same name is unknown to a partial register extract, not "not found"', async () => {
    const r = await verify({ policy_number: 'UKO-1000-0001', country: 'UK', insurance_type: 'motor', provider: 'Zzyzx Mutual Holdings' });
    expect(r.body.flags).not.toContain('provider_not_found');
    expect(r.body.checks.find((c: { source: string }) => c.source === 'fca_register')).toMatchObject({ outcome: 'unknown' });
    expect(r.body.status).toBe('verified');
  });
});

describe('verification_sources keeps to the spec (2.2: format, fca_register, registry)', () => {
  // A client that decodes the field as the spec's enum, as a generated client would.
  const ZSpecSources = z.array(z.enum(['format', 'fca_register', 'registry']));
  const policies = [
    { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' },
    { policy_number: 'UKM-1000-0006', country: 'UK', insurance_type: 'motor' },
    { policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' },
    { policy_number: 'AUTO-2109-000001', country: 'FR', insurance_type: 'motor' },
    { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health', provider: 'Harmonie Mutuelle' },
  ];
  it("sync, async and batch results decode with the spec's three values; the register and sanctions checks are named in checks[]", async () => {
    const { key } = await srv.key({ mode: 'test' });
    const seen = new Set<string>();
    for (const p of policies) {
      const sync = await verify(p, key);
      expect(ZSpecSources.safeParse(sync.body.verification_sources).success, JSON.stringify(sync.body.verification_sources)).toBe(true);
      for (const c of sync.body.checks) seen.add(c.source);
      const job = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: p });
      const done = await pollUntil(srv.url, job.body.poll_url, key, (b: any) => b.status !== 'pending');
      expect(ZSpecSources.safeParse(done.result.verification_sources).success).toBe(true);
    }
    const batch = await call(srv.url, 'POST', '/api/v1/verify/batch', { key, body: { policies } });
    const finished = await pollUntil(srv.url, `/api/v1/batches/${batch.body.batch_id}`, key, (b: any) => b.status === 'complete');
    for (const r of finished.results) expect(ZSpecSources.safeParse(r.result.verification_sources).success).toBe(true);
    // The actual registers and the sanctions check still show, in checks[].
    for (const source of ['fca_register', 'bafin_register', 'acpr_register', 'sanctions']) expect(seen, source).toContain(source);
  });
});

describe('POST /api/v1/verify errors (sync form: error + detail)', () => {
  const cases: [string, unknown, number, string, string?][] = [
    ['all fields missing', {}, 400, 'missing_required_fields', 'policy_number, country, insurance_type'],
    ['one field missing', { policy_number: 'UKM-1000-0001', country: 'UK' }, 400, 'missing_required_fields', 'insurance_type'],
    ['unsupported country', { policy_number: 'X1234567', country: 'ES', insurance_type: 'motor' }, 400, 'unsupported_country', 'ES'],
    ['unsupported type', { policy_number: 'X1234567', country: 'UK', insurance_type: 'pet' }, 400, 'unsupported_insurance_type', 'pet'],
    [
      'unsupported country name',
      { policy_number: 'X1234567', country: 'Spanien', insurance_type: 'motor' },
      400,
      'unsupported_country',
      'Supported: UK, DE, FR (also names such as United Kingdom, Deutschland, France)',
    ],
    [
      'bad number for the country',
      { policy_number: 'AB12 CDE', country: 'UK', insurance_type: 'motor' },
      400,
      'invalid_policy_number',
      'UK motor',
    ],
    ['wrong field type', { policy_number: 12345678, country: 'UK', insurance_type: 'motor' }, 400, 'invalid_request', 'policy_number'],
    [
      'async-only field',
      { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', webhook_url: 'https://x' },
      400,
      'invalid_request',
      '/api/v1/verify/async',
    ],
    ['body is an array', [1, 2], 400, 'invalid_request'],
  ];
  for (const [name, body, status, error, mention] of cases) {
    it(`${name} -> ${status} ${error}`, async () => {
      const r = await verify(body);
      expect(r.status).toBe(status);
      expect(ZSyncErrorBodySchema.strict().parse(r.body)).toMatchObject({ error });
      if (mention) expect(r.body.detail).toContain(mention);
    });
  }
  it('errors charge nothing', async () => {
    const { key: k, id } = await srv.key({ credits: 5 });
    await verify({ policy_number: 'AB', country: 'UK', insurance_type: 'motor' }, k);
    await verify({}, k);
    expect((await srv.store.keys.get(id))!.balance).toBe(5);
  });
});

describe('bad input never makes a 500', () => {
  it('malformed JSON -> 400 invalid_json in the standard form', async () => {
    const r = await verify('{"policy_number": "UKM', key);
    expect(r.status).toBe(400);
    expect(ZErrorBodySchema.parse(r.body)).toEqual({ error: 'invalid_json', message: expect.any(String), code: 400 });
  });
  it('oversized body -> 413 payload_too_large', async () => {
    const r = await verify({ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', provider: 'x'.repeat(200_000) });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ error: 'payload_too_large', code: 413 });
  });
  it('a non-JSON content type -> 415', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', {
      key,
      body: 'policy_number=1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ error: 'unsupported_media_type', code: 415 });
  });
  it('an empty body -> 400 in the sync form', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });
  it('unknown routes -> 404 not_found, with or without a key', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/nope', { key });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ error: 'not_found', code: 404 });
    expect((await call(srv.url, 'GET', '/elsewhere')).status).toBe(404);
  });
  it('a JSON null, number or string body is refused cleanly', async () => {
    for (const raw of ['null', '42', '"text"', 'true']) {
      const r = await verify(raw);
      expect(r.status, raw).toBe(400);
    }
  });
  it('deeply nested or odd unicode input is refused cleanly', async () => {
    const nested = '['.repeat(5000) + ']'.repeat(5000);
    expect((await verify(nested)).status).toBe(400);
    const r = await verify({ policy_number: '\u0000\uFFFF\uD800', country: 'UK', insurance_type: 'motor' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_policy_number');
  });
});

describe('health', () => {
  it('GET /healthz answers ok without a key', async () => {
    const r = await call(srv.url, 'GET', '/healthz');
    expect(r).toMatchObject({ status: 200, body: { status: 'ok' } });
  });
});
