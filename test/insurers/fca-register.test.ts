/**
 * The FCA register API as an online source, against a stand-in on loopback that speaks the recorded
 * response shapes (test/helpers/fca-standin.ts): lookups by FRN and by name, insurer and intermediary
 * told apart, caching, and every way the upstream can fail answered as `unavailable` within the deadline.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../connector/src/config.js';
import {
  fcaRegister,
  fcaRegisterFromConfig,
  type FcaRegisterOptions,
  type OnlineRegister,
} from '../../connector/src/insurers/online/fca-register.js';
import { firmKindFromPermissions } from '../../connector/src/insurers/online/firm-kind.js';
import { startFcaStandin, type FcaStandin } from '../helpers/fca-standin.js';

let standin: FcaStandin;
const open: OnlineRegister[] = [];
let clock = Date.parse('2026-03-02T10:00:00Z');

beforeAll(async () => {
  standin = await startFcaStandin();
});
afterAll(async () => {
  await standin.close();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.stop()));
  standin.delayMs = 0;
  standin.fault = () => null;
  standin.requests.length = 0;
  standin.peakInFlight = 0;
});

function register(over: Partial<FcaRegisterOptions> = {}): OnlineRegister {
  const r = fcaRegister({
    baseUrl: standin.baseUrl,
    email: standin.email,
    key: standin.key,
    timeoutMs: 2_000,
    maxConcurrent: 4,
    minTimeMs: 0,
    cacheTtlMs: 60_000,
    now: () => clock,
    ...over,
  });
  open.push(r);
  return r;
}

describe('found', () => {
  it('by FRN: the firm record as an InsurerRecord, an insurer by its permissions', async () => {
    const a = await register().byReference('113849');
    expect(a).toEqual({
      kind: 'found',
      firmKind: 'insurer',
      record: expect.objectContaining({
        country: 'UK',
        reference: '113849',
        scheme: 'fca_frn',
        name: 'Hiscox Insurance Company Limited',
        authorised: true,
        source: 'fca-register-api',
        demo: false,
        priority: 30,
        updated_at: '2026-03-02T10:00:00.000Z',
      }),
    });
    if (a.kind !== 'found') return;
    expect(a.record.source_detail).toContain(`${standin.baseUrl}/Firm/113849`);
    expect(a.record.source_detail).toContain('read 2026-03-02');
    expect(a.record.source_detail).toContain('status "Authorised" since 01/12/2001');
    expect(standin.requests).toEqual(expect.arrayContaining(['/services/V0.1/Firm/113849', '/services/V0.1/Firm/113849/Permissions']));
  });

  it('by name: another spelling of the legal form, the authorised firm of two namesakes', async () => {
    const r = register();
    const hiscox = await r.byName('HISCOX INSURANCE COMPANY LTD.');
    expect(hiscox).toMatchObject({ kind: 'found', firmKind: 'insurer', record: { reference: '113849' } });
    expect(standin.requests[0]).toBe('/services/V0.1/Search?q=HISCOX+INSURANCE&type=firm');

    const mutual = await r.byName('Example Mutual Insurance Limited');
    expect(mutual).toMatchObject({
      kind: 'found',
      record: { reference: '900003', name: 'EXAMPLE MUTUAL INSURANCE LTD.', authorised: true },
    });
  });

  it('by a trading name the register alone knows: its sole hit', async () => {
    expect(await register().byName('Example Car Cover')).toMatchObject({
      kind: 'found',
      record: { reference: '900001', name: 'Example Motor Brokers Limited' },
    });
  });

  it('an intermediary: arranging, dealing and assisting with insurance, no effecting or carrying out', async () => {
    const a = await register().byReference('900001');
    expect(a).toMatchObject({ kind: 'found', firmKind: 'intermediary', record: { reference: '900001', kind: 'intermediary' } });
  });

  it('reads every page of a long permission list: the insurer permission on page 2', async () => {
    const a = await register().byReference('900004');
    expect(a).toMatchObject({ kind: 'found', firmKind: 'insurer' });
    expect(standin.requests).toContain('/services/V0.1/Firm/900004/Permissions?pgnp=2');
  });

  it('a firm without permissions, not authorised: found, of unknown kind', async () => {
    expect(await register().byReference('900005')).toMatchObject({ kind: 'found', firmKind: 'unknown', record: { authorised: false } });
  });
});

describe('the kind rule', () => {
  const nii = [{ 'Investment Type': ['Non-investment insurance contracts'] }];
  it('arranging shares alone is not insurance distribution; an unread page leaves the kind unknown', () => {
    expect(
      firmKindFromPermissions(new Map([['Arranging (bringing about) deals in investments', [{ 'Investment Type': ['Share'] }]]]), true),
    ).toBe('unknown');
    expect(firmKindFromPermissions(new Map([['Arranging (bringing about) deals in investments', nii]]), true)).toBe('intermediary');
    expect(firmKindFromPermissions(new Map([['Arranging (bringing about) deals in investments', nii]]), false)).toBe('unknown');
    expect(firmKindFromPermissions(new Map([['Effecting contracts of insurance', []]]), false)).toBe('insurer');
  });
});

describe('not found', () => {
  it('an FRN the register does not hold, a name it does not know, a malformed FRN (never sent)', async () => {
    const r = register();
    expect(await r.byReference('123456')).toEqual({ kind: 'not_found' });
    expect(await r.byName('Nonexistent Assurance Limited')).toEqual({ kind: 'not_found' });
    const before = standin.requests.length;
    expect(await r.byReference('12AB')).toEqual({ kind: 'not_found' });
    expect(standin.requests.length).toBe(before);
  });

  it('a name with an apostrophe, which the register refuses in a search, is searched without it', async () => {
    expect(await register().byName("Example's Underwriting Agency Limited")).toEqual({ kind: 'not_found' });
    expect(standin.requests).toEqual(['/services/V0.1/Search?q=Examples+Underwriting+Agency&type=firm']);
  });

  it('several hits of which none has the asked name: not found rather than a namesake', async () => {
    expect(await register().byName('Example')).toEqual({ kind: 'not_found' });
  });
});

describe('cache', () => {
  it('a second lookup does not reach the register; after the TTL it does', async () => {
    const r = register({ cacheTtlMs: 60_000 });
    await r.byReference('113849');
    const calls = standin.requests.length;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found', record: { reference: '113849' } });
    expect(await r.byReference('123456')).toEqual({ kind: 'not_found' });
    const afterNotFound = standin.requests.length;
    expect(await r.byReference('123456')).toEqual({ kind: 'not_found' });
    expect(standin.requests.length).toBe(afterNotFound);
    expect(afterNotFound).toBe(calls + 2);

    clock += 60_001;
    await r.byReference('113849');
    expect(standin.requests.length).toBe(afterNotFound + 2);
  });

  it('a firm found by name is then known by its FRN; a caller changing its copy changes nothing', async () => {
    const r = register();
    const a = await r.byName('Hiscox Insurance Company Limited');
    if (a.kind === 'found') a.record.name = 'changed';
    const calls = standin.requests.length;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found', record: { name: 'Hiscox Insurance Company Limited' } });
    expect(standin.requests.length).toBe(calls);
  });

  it('unavailable is never cached', async () => {
    const r = register();
    standin.fault = () => 500;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'unavailable' });
    standin.fault = () => null;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found' });
  });
});

describe('unavailable', () => {
  it('a 500 and a malformed body', async () => {
    const r = register();
    standin.fault = () => 500;
    expect(await r.byReference('113849')).toEqual({ kind: 'unavailable', reason: 'answered HTTP 500' });
    standin.fault = () => 'garbage';
    expect(await r.byReference('113849')).toEqual({ kind: 'unavailable', reason: 'answered with an unexpected body' });
    expect(await r.byName('Hiscox Insurance Company Limited')).toEqual({ kind: 'unavailable', reason: 'answered with an unexpected body' });
  });

  it('an answer past 1 MB is refused while it arrives, not held whole', async () => {
    const r = register();
    standin.fault = () => 'huge';
    expect(await r.byReference('113849')).toEqual({ kind: 'unavailable', reason: 'answered more than 1048576 bytes' });
  });

  it('permissions that fail leave the firm found, of unknown kind, and not cached', async () => {
    const r = register();
    standin.fault = (p) => (p.includes('/Permissions') ? 500 : null);
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found', firmKind: 'unknown' });
    standin.fault = () => null;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found', firmKind: 'insurer' });
  });

  it('wrong credentials: the FCA error body, a reason that names the credentials but never the key', async () => {
    const r = register({ key: 'wrong-key-5e6f7a8b' });
    const a = await r.byReference('113849');
    expect(a).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('refused the API e-mail and key') });
    expect(JSON.stringify(a)).not.toContain('wrong-key-5e6f7a8b');
    expect(JSON.stringify(r)).not.toContain('wrong-key-5e6f7a8b');
  });

  it('a 429: unavailable, and the register is left alone until its Retry-After has passed', async () => {
    const r = register();
    standin.fault = () => 429;
    expect(await r.byReference('113849')).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('HTTP 429') });
    standin.fault = () => null;
    const calls = standin.requests.length;
    expect(await r.byReference('900001')).toMatchObject({ kind: 'unavailable', reason: expect.stringContaining('rate limited') });
    expect(standin.requests.length).toBe(calls);
    clock += 60_000;
    expect(await r.byReference('900001')).toMatchObject({ kind: 'found' });
  });

  it('a register that never answers: unavailable at the deadline, and other lookups are not held up', async () => {
    const r = register({ timeoutMs: 300, maxConcurrent: 4 });
    standin.fault = (p) => (p.startsWith('/services/V0.1/Firm/900003') ? 'hang' : null);
    const started = Date.now();
    const hung = r.byReference('900003').then((a) => ({ a, ms: Date.now() - started }));
    const others = await Promise.all([r.byReference('113849'), r.byReference('900001')]);
    const othersMs = Date.now() - started;
    expect(others.map((a) => a.kind)).toEqual(['found', 'found']);
    const { a, ms } = await hung;
    expect(a).toEqual({ kind: 'unavailable', reason: 'timed out after 300 ms' });
    expect(othersMs).toBeLessThan(ms);
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(1_500);
  });

  it('the deadline covers the queue, and holds even when a call ignores its signal', async () => {
    // The firm call neither answers nor stops when aborted, so it keeps the one slot until released.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stubborn: typeof fetch = (url, init) =>
      String(url).endsWith('/Firm/113849') ? gate.then(() => new Response('{}', { status: 500 })) : fetch(url, init);
    const r = register({ timeoutMs: 300, maxConcurrent: 1, fetch: stubborn });
    const started = Date.now();
    const [first, second] = await Promise.all([r.byReference('113849'), r.byName('Example Payments Limited')]);
    expect(first).toEqual({ kind: 'unavailable', reason: 'timed out after 300 ms' });
    expect(second).toEqual({ kind: 'unavailable', reason: 'timed out in queue after 300 ms' });
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(standin.requests.some((p) => p.startsWith('/services/V0.1/Search'))).toBe(false);
    release();
  });
});

describe('limits', () => {
  it('ten lookups of one firm at once make one lookup; each gets its own copy', async () => {
    const r = register();
    standin.delayMs = 30;
    const before = standin.requests.length;
    const answers = await Promise.all(Array.from({ length: 10 }, () => r.byName('Example Bancassurance plc')));
    expect(answers.every((a) => a.kind === 'found' && a.record.reference === '900004')).toBe(true);
    // One search, one firm record, two permission pages: the same as a single lookup.
    expect(standin.requests.length - before).toBe(4);
    if (answers[0]!.kind === 'found' && answers[1]!.kind === 'found') expect(answers[0]!.record).not.toBe(answers[1]!.record);
  });

  it('concurrent lookups never have more calls in flight than maxConcurrent', async () => {
    const r = register({ maxConcurrent: 2, timeoutMs: 5_000 });
    standin.delayMs = 40;
    const frns = ['113849', '900001', '900002', '900003', '900005', '123456'];
    const answers = await Promise.all(frns.map((f) => r.byReference(f)));
    expect(answers.map((a) => a.kind)).toEqual(['found', 'found', 'found', 'found', 'found', 'not_found']);
    expect(standin.peakInFlight).toBe(2);
  });

  it('stop: waiting lookups answer unavailable, later ones too, and nothing hangs', async () => {
    const r = register({ maxConcurrent: 1, timeoutMs: 5_000 });
    standin.delayMs = 100;
    const pending = Promise.all([r.byReference('113849'), r.byReference('900001')]);
    await new Promise((res) => setTimeout(res, 20));
    await r.stop();
    const answers = await pending;
    expect(answers.some((a) => a.kind === 'unavailable')).toBe(true);
    expect(await r.byReference('900003')).toEqual({ kind: 'unavailable', reason: 'stopped' });
  });
});

describe('configuration', () => {
  it('off without an e-mail and key; both or neither; the rest defaults', () => {
    expect(fcaRegisterFromConfig(loadConfig({}))).toBeNull();
    expect(() => loadConfig({ COVERCHECK_FCA_API_KEY: 'k' })).toThrow(/COVERCHECK_FCA_API_EMAIL and COVERCHECK_FCA_API_KEY/);
    const config = loadConfig({
      COVERCHECK_FCA_API_KEY: 'k',
      COVERCHECK_FCA_API_EMAIL: 'ops@example.test',
      COVERCHECK_REGISTRY_TIMEOUT_MS: '1500',
    });
    expect(config.fcaRegister).toEqual({
      baseUrl: 'https://register.fca.org.uk/services/V0.1',
      email: 'ops@example.test',
      key: 'k',
      cacheTtlMs: 86_400_000,
      timeoutMs: 1500,
      perSecond: 5,
    });
  });

  it('built from the configuration, it reaches the URL configured', async () => {
    const config = loadConfig({
      COVERCHECK_FCA_API_KEY: standin.key,
      COVERCHECK_FCA_API_EMAIL: standin.email,
      COVERCHECK_FCA_API_URL: `${standin.baseUrl}/`,
    });
    const r = fcaRegisterFromConfig(config)!;
    open.push(r);
    expect(r.name).toBe('fca-register-api');
    expect(await r.byReference('113849')).toMatchObject({ kind: 'found' });
  });
});
