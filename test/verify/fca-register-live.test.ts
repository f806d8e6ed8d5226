/**
 * The FCA register API as the UK register check's online source, through the real server: a stand-in
 * on loopback that speaks the recorded response shapes (test/helpers/fca-standin.ts) answers, hangs and fails, and no verification stalls or errors. Sandbox keys never reach it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ZVerificationResultSchema, type TVerificationResult } from '../../shared/verification.js';
import { startFcaStandin, type FcaStandin } from '../helpers/fca-standin.js';
import { importOperatorRegistry } from '../helpers/operator-registry.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let fca: FcaStandin;
let srv: TestServer;
let live: string;
let sandbox: string;
beforeAll(async () => {
  fca = await startFcaStandin();
  srv = await startTestServer({
    env: {
      COVERCHECK_FCA_API_URL: fca.baseUrl,
      COVERCHECK_FCA_API_EMAIL: fca.email,
      COVERCHECK_FCA_API_KEY: fca.key,
      COVERCHECK_FCA_TIMEOUT_MS: '400',
      COVERCHECK_FCA_PER_SEC: '1000',
    },
  });
  await importOperatorRegistry(srv.store);
  live = (await srv.key({ mode: 'live', credits: 1000 })).key;
  sandbox = (await srv.key({ mode: 'test' })).key;
});
afterAll(async () => {
  await srv.close();
  await fca.close();
});
beforeEach(() => {
  fca.fault = () => null;
  fca.delayMs = 0;
});

// A number the operator's extract covers but does not hold: the register check then rests on the provider alone.
async function verify(key: string, provider: string, policy_number = 'UKO-9999-0001'): Promise<TVerificationResult> {
  const r = await call(srv.url, 'POST', '/api/v1/verify', {
    key,
    body: { policy_number, country: 'UK', insurance_type: 'motor', provider },
  });
  expect(r.status).toBe(200);
  return ZVerificationResultSchema.parse(r.body);
}
const register = (r: TVerificationResult) => r.checks.find((c) => c.source === 'fca_register')!;

describe('a live key with the FCA register API configured', () => {
  it('a firm the shipped extract lacks is found online, with its register status and link', async () => {
    const r = await verify(live, 'Example Bancassurance plc');
    expect(r.insurer).toMatchObject({
      name: 'Example Bancassurance plc',
      reference: '900004',
      source: 'fca-register-api',
      authorised: true,
      demo: false,
    });
    expect(r.insurer!.register_url).toContain('q=900004');
    expect(register(r).outcome).toBe('pass');
    expect(fca.requests.some((q) => q.startsWith('/services/V0.1/Search'))).toBe(true);
  });

  it("a firm whose permissions are an intermediary's is refused as the insurer", async () => {
    const r = await verify(live, 'Example Motor Brokers Limited');
    expect(r.insurer).toBeNull();
    expect(r.flags).toContain('provider_is_intermediary');
    expect(register(r)).toMatchObject({
      outcome: 'fail',
      detail: expect.stringContaining('is an intermediary, FRN 900001, not an insurer'),
    });
  });

  it('a name the register does not hold is provider_not_found: that register is complete', async () => {
    const r = await verify(live, 'Nowhere Near Insurance Limited');
    expect(r.flags).toContain('provider_not_found');
    expect(register(r)).toMatchObject({ outcome: 'warn', detail: expect.stringContaining('No firm on the FCA register API matches') });
  });

  it('a hanging register makes the check unavailable within its deadline; other verifications go on meanwhile', async () => {
    fca.fault = () => 'hang';
    const started = Date.now();
    const slow = verify(live, 'Another Unknown Insurer Limited', 'UKO-1000-0001');
    // While it waits: a verification that needs no online lookup, and a sandbox one, answer at once.
    const quick = await verify(live, 'Hiscox');
    const sand = await verify(sandbox, 'Another Unknown Insurer Limited', 'UKM-1000-0001');
    expect(Date.now() - started).toBeLessThan(400);
    expect(quick.insurer?.reference).toBe('113849');
    expect(sand.status).toBe('verified');
    const r = await slow;
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(register(r)).toMatchObject({ outcome: 'unavailable', detail: expect.stringContaining('could not be consulted') });
    // The registry still answers and names its insurer: verified; the provider could not be checked.
    expect(r.status).toBe('verified');
    expect(r.flags).not.toContain('provider_not_found');
  });

  it('a failing register (500, garbage) is unavailable, never a 500 to the caller', async () => {
    for (const fault of [500, 'garbage'] as const) {
      fca.fault = () => fault;
      const r = await verify(live, `Failing Case ${fault} Insurance Limited`);
      expect(register(r).outcome, String(fault)).toBe('unavailable');
    }
  });
});

describe('a sandbox key', () => {
  it('never reaches the FCA register API', async () => {
    const before = fca.requests.length;
    const r = await verify(sandbox, 'Example Bancassurance plc', 'UKM-1000-0001');
    expect(r.flags).toContain('provider_not_found');
    expect(fca.requests.length).toBe(before);
  });
});
