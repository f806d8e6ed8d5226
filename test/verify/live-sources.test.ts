/**
 * Live keys see real sources only, and say so when one is missing, through the real server:
 * a fresh install with the shipped data, a live key beside a sandbox key. The mirror of sandbox.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZVerificationResultSchema, type TCheck, type TVerificationResult } from '../../shared/verification.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import { parseSanctionsFile, storeSanctionsList } from '../../connector/src/sanctions/importers/index.js';
import { parseRegistryCsv } from '../../connector/src/verify/registry/import.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let live: string;
let sandbox: string;
beforeAll(async () => {
  srv = await startTestServer();
  live = (await srv.key({ mode: 'live', credits: 100 })).key;
  sandbox = (await srv.key({ mode: 'test' })).key;
});
afterAll(async () => {
  await srv.close();
});

async function verify(key: string, body: object): Promise<TVerificationResult> {
  const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body });
  expect(r.status).toBe(200);
  return ZVerificationResultSchema.parse(r.body);
}
async function balance(key: string): Promise<number> {
  return (await call(srv.url, 'GET', '/api/v1/account', { key })).body.credits.balance;
}
const check = (r: TVerificationResult, source: string): TCheck | undefined => r.checks.find((c) => c.source === source);

const demoRows = parseRegistryCsv(fs.readFileSync(path.join(shippedDataDir(), 'registry', 'demo_policies.csv'), 'utf8'), {
  source: 'demo',
  demo: true,
  now: '2026-01-01',
}).rows;

describe('a live key on a fresh install (shipped data only)', () => {
  it('a real, well-formed UK policy with a real insurer is inconclusive, free, and names every missing source', async () => {
    const before = await balance(live);
    const r = await verify(live, { policy_number: 'AB12345678', country: 'UK', insurance_type: 'motor', provider: 'Aviva' });
    expect(r).toMatchObject({ status: 'inconclusive', credits_charged: 0, insurer: null });
    expect(r.flags).not.toContain('demo_data');
    expect(r.flags).not.toContain('provider_not_found');
    expect(r.flags).toEqual(expect.arrayContaining(['no_registry_coverage', 'sanctions_not_checked']));
    expect(check(r, 'registry')).toMatchObject({
      outcome: 'not_available',
      detail: expect.stringContaining('No registry source is configured for UK motor'),
    });
    expect(check(r, 'registry')!.detail).toContain('COVERCHECK_REGISTRY_UPSTREAMS');
    // Aviva is real but not in the shipped extract: unknown, never "not authorised" or "not found".
    expect(check(r, 'fca_register')).toMatchObject({ outcome: 'unknown' });
    expect(check(r, 'fca_register')!.detail).toMatch(/partial extract.*COVERCHECK_FCA_API_KEY/);
    expect(check(r, 'sanctions')).toMatchObject({ outcome: 'not_checked', detail: expect.stringContaining('npm run sanctions:import') });
    expect(await balance(live)).toBe(before);
  });

  it('no demo policy is known to any real source: every one is inconclusive, uncharged, without demo data', async () => {
    expect(demoRows.length).toBeGreaterThan(15);
    for (const row of demoRows) {
      const r = await verify(live, { policy_number: row.policy_number, country: row.country, insurance_type: row.insurance_type });
      expect(r, row.policy_number).toMatchObject({ status: 'inconclusive', credits_charged: 0, coverage: null, insurer: null });
      expect(r.flags, row.policy_number).not.toContain('demo_data');
      expect(JSON.stringify(r), row.policy_number).not.toMatch(/DEMO-/); // no demo insurer reference or row
    }
  });

  it('the demo insurers and the demo sanctions list are invisible to it', async () => {
    const r = await verify(live, {
      policy_number: 'UKM-1000-0006',
      country: 'UK',
      insurance_type: 'motor',
      provider: 'Seaview Demo Insurance Company Limited',
    });
    expect(r.flags).not.toContain('sanctioned');
    expect(r.insurer).toBeNull();
    expect(check(r, 'sanctions')!.outcome).toBe('not_checked');
  });

  it('finds a UK insurer of the real extract by name, with its FRN, status and register link', async () => {
    const r = await verify(live, { policy_number: 'AB12345678', country: 'UK', insurance_type: 'travel', provider: 'Hiscox' });
    expect(r.insurer).toMatchObject({
      name: 'Hiscox Insurance Company Limited',
      reference: '113849',
      authorised: true,
      demo: false,
      source: 'uk-register-extract',
      register_status: 'Authorised',
    });
    expect(r.insurer!.register_url).toBe('https://register.fca.org.uk/s/search?q=113849&type=Companies');
    expect(check(r, 'fca_register')).toMatchObject({ outcome: 'pass' });
    expect(r.status).toBe('inconclusive'); // still no registry source
  });

  it('refuses an intermediary as the insurer, by trading name too, and says so', async () => {
    const r = await verify(live, { policy_number: 'AB12345678', country: 'UK', insurance_type: 'motor', provider: 'Hastings Direct' });
    expect(r.insurer).toBeNull();
    expect(r.flags).toContain('provider_is_intermediary');
    expect(check(r, 'fca_register')).toMatchObject({
      outcome: 'fail',
      detail: expect.stringContaining('Hastings Insurance Services Limited is an intermediary, FRN 311492, not an insurer'),
    });
  });

  it('an insurer whose source states no status is unknown, not "not authorised"', async () => {
    const r = await verify(live, {
      policy_number: 'AB12345678',
      country: 'UK',
      insurance_type: 'motor',
      provider: 'Direct Line Insurance PLC',
    });
    expect(r.insurer).toMatchObject({ reference: '202684', authorised: false, register_status: null });
    expect(r.flags).not.toContain('insurer_not_authorised');
    expect(check(r, 'fca_register')!.outcome).toBe('unknown');
  });

  it('a firm the register shows as no longer authorised fails the register check', async () => {
    const r = await verify(live, {
      policy_number: 'AB12345678',
      country: 'UK',
      insurance_type: 'motor',
      provider: 'Linea Directa Aseguradora',
    });
    expect(r.insurer).toMatchObject({ reference: '203342', authorised: false, register_status: 'No longer authorised' });
    expect(r.flags).toContain('insurer_not_authorised');
  });
});

describe('a sandbox key beside it: answers unchanged', () => {
  // The table in docs/data-sources.md.
  const expected: Record<string, [string, number, string[]]> = {
    'UKM-1000-0001': ['verified', 0.85, []],
    'UKM-1000-0002': ['unverified', 0.4, ['expired']],
    'UKM-1000-0005': ['unverified', 0.55, ['insurer_not_authorised']],
    'UKM-1000-0006': ['unverified', 0.1, ['sanctioned']],
    'KFZ-5096-000001': ['verified', 0.85, []],
    'AUTO-2109-000001': ['verified', 0.85, []],
  };
  it.each(Object.entries(expected))('%s', async (number, [status, confidence, extra]) => {
    const row = demoRows.find((r) => r.policy_number === number.replace(/-/g, ''))!;
    const r = await verify(sandbox, { policy_number: number, country: row.country, insurance_type: row.insurance_type });
    expect(r).toMatchObject({ status, confidence_score: confidence, credits_charged: 0 });
    expect(r.flags).toEqual(expect.arrayContaining(['demo_data', 'sandbox', ...extra]));
    expect(r.flags).not.toContain('sanctions_not_checked');
  });
  it('FR health stays uncovered (inconclusive) and an unknown number unverified', async () => {
    expect(await verify(sandbox, { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' })).toMatchObject({
      status: 'inconclusive',
      confidence_score: 0.2,
    });
    expect(await verify(sandbox, { policy_number: 'UKM-9999-9999', country: 'UK', insurance_type: 'motor' })).toMatchObject({
      status: 'unverified',
      confidence_score: 0.2,
    });
  });
});

describe('a live key once the operator imports a real registry extract', () => {
  beforeAll(async () => {
    const { rows, coverage } = parseRegistryCsv(
      'policy_number,country,insurance_type,insurer_reference,start_date,end_date,status,vehicle_registration\n' +
        'UKD-4242-0001,UK,motor,202810,2026-01-01,2030-12-31,active,AB12 CDE\n' +
        'UKD-4242-0002,UK,motor,311492,2026-01-01,2030-12-31,active,AB12 CDF\n',
      { source: 'mid-extract', demo: false, now: new Date().toISOString() },
    );
    await srv.store.registry.upsertMany(rows);
    await srv.store.registry.setCoverage(coverage);
  });

  it('a policy it holds is verified and charged; its insurer is found by FRN', async () => {
    const r = await verify(live, { policy_number: 'UKD-4242-0001', country: 'UK', insurance_type: 'motor', provider: 'U K Insurance' });
    expect(r).toMatchObject({ status: 'verified', credits_charged: 1, insurer: { name: 'U K Insurance Limited', reference: '202810' } });
    expect(check(r, 'registry')!.outcome).toBe('pass');
  });

  it('a number it does not hold is unverified: "not found" now comes from a real source', async () => {
    const r = await verify(live, { policy_number: 'UKD-4242-9999', country: 'UK', insurance_type: 'motor' });
    expect(r).toMatchObject({ status: 'unverified', credits_charged: 1 });
    expect(r.flags).not.toContain('demo_data');
  });

  it("a registry record naming an intermediary's FRN gets no insurer", async () => {
    const r = await verify(live, { policy_number: 'UKD-4242-0002', country: 'UK', insurance_type: 'motor' });
    expect(r.insurer).toBeNull();
    expect(check(r, 'fca_register')).toMatchObject({ outcome: 'fail', detail: expect.stringContaining('an intermediary') });
  });

  it('other types of the same country stay not configured', async () => {
    const r = await verify(live, { policy_number: 'UKH-3000-0001', country: 'UK', insurance_type: 'health' });
    expect(r).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect(check(r, 'registry')).toMatchObject({ outcome: 'not_available', detail: expect.stringContaining('UK health') });
  });

  it("the sandbox still does not see the operator's rows", async () => {
    const r = await verify(sandbox, { policy_number: 'UKD-4242-0001', country: 'UK', insurance_type: 'motor' });
    expect(r.status).toBe('unverified');
    expect(r.coverage).toBeNull();
  });
});

describe('the contract', () => {
  it('the OpenAPI document lists the new outcomes, flags and the register link', async () => {
    const doc = await call(srv.url, 'GET', '/api/v1/openapi.json');
    const schemas = doc.body.components.schemas;
    expect(schemas.Check.properties.outcome.enum).toEqual(expect.arrayContaining(['not_available', 'not_checked', 'unknown']));
    expect(schemas.Flag.enum).toEqual(expect.arrayContaining(['provider_is_intermediary', 'sanctions_not_checked']));
    expect(Object.keys(schemas.Insurer.properties)).toEqual(expect.arrayContaining(['register_url', 'register_status']));
  });
});

describe('a live key once the operator loads the official sanctions lists', () => {
  let withLists: TestServer;
  let key: string;
  beforeAll(async () => {
    withLists = await startTestServer();
    const fixture = (f: string) => fs.readFileSync(new URL(`../fixtures/sanctions/${f}`, import.meta.url), 'utf8');
    // As npm run sanctions:import does, before the first verification reads the lists.
    await storeSanctionsList(withLists.store.sanctions, parseSanctionsFile('ofsi', fixture('ofsi-conlist.csv')));
    await storeSanctionsList(withLists.store.sanctions, parseSanctionsFile('eu', fixture('eu-fsf.xml')));
    key = (await withLists.key({ mode: 'live', credits: 10 })).key;
  });
  afterAll(async () => withLists.close());

  const verifyOn = async (provider: string, country = 'UK') => {
    const r = await call(withLists.url, 'POST', '/api/v1/verify', {
      key,
      body: { policy_number: country === 'UK' ? 'AB12345678' : 'KFZ-5096-000001', country, insurance_type: 'motor', provider },
    });
    return ZVerificationResultSchema.parse(r.body);
  };

  it('a name on the OFSI list flags sanctioned, in every country, naming the list and its reference', async () => {
    for (const country of ['UK', 'DE']) {
      const r = await verifyOn('Example Sanctioned Insurance Company Limited', country);
      expect(r.flags, country).toContain('sanctioned');
      expect(r.flags).not.toContain('sanctions_not_checked');
      expect(r.confidence_score).toBeLessThanOrEqual(0.1);
      expect(check(r, 'sanctions')).toMatchObject({
        outcome: 'fail',
        detail: expect.stringMatching(/on the (uk-ofsi|eu-fsf) sanctions list/),
      });
    }
  });

  it('an alias on the EU list flags sanctioned too', async () => {
    const r = await verifyOn('ESIC Versicherung AG', 'DE');
    expect(r.flags).toContain('sanctioned');
    expect(check(r, 'sanctions')!.detail).toContain('eu-fsf');
  });

  it('a name on no list passes, naming the lists it was checked against; the demo list is still invisible', async () => {
    const r = await verifyOn('Seaview Demo Insurance Company Limited');
    expect(r.flags).not.toContain('sanctioned');
    expect(check(r, 'sanctions')).toMatchObject({ outcome: 'pass', detail: 'No listing for the insurer on eu-fsf, uk-ofsi.' });
  });
});
