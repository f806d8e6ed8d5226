/**
 * The spreadsheet-binding API (docs/sheets-binding.md) on the real server and the Sheets stand-in,
 * on both store backends (this folder also runs on PostgreSQL): the token is shown once and kept
 * only as its hash; verify finds it in DOCUMENT-visible metadata only; every reason a spreadsheet
 * is not bound gets the same answer; re-issuing replaces the token; bindings are per key; checks
 * are limited per key, and a key's checks waiting for the Sheets quota are bounded.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { ZSheetBindingIssuedSchema, ZSheetBindingListSchema, ZSheetBindingSchema } from '../../shared/sheets.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const google = new FakeGoogle();
let srv: TestServer;
let key: string;
const S1 = 'binding-api-sheet-0001';
const S2 = 'binding-api-sheet-0002';
const CHECKS_PER_MIN = 20;

beforeAll(async () => {
  await google.start();
  srv = await startTestServer({
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_SHEETS_PER_MIN: '6000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
      COVERCHECK_SHEETS_BINDING_CHECKS_PER_MIN: String(CHECKS_PER_MIN),
    },
  });
  key = (await srv.key({ mode: 'test' })).key;
  google.sheet(S1, 'Policies', [['Policy', 'Status'], ['UKM-1000-0001']]);
  google.sheet(S2, 'Policies', [['Policy', 'Status']]);
});
afterAll(async () => {
  await srv.close();
  await google.stop();
});

const issue = (spreadsheet_id: string, k = key) => call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: k, body: { spreadsheet_id } });
const verify = (id: string, k = key) => call(srv.url, 'POST', `/api/v1/sheets/bindings/${id}/verify`, { key: k });

describe('POST /api/v1/sheets/bindings', () => {
  it('issues a pending binding with a token shown once; the store keeps only its SHA-256', async () => {
    const r = await issue(S1);
    expect(r.status).toBe(201);
    const issued = ZSheetBindingIssuedSchema.parse(r.body);
    expect(Object.keys(r.body)).toEqual([
      'binding_id',
      'spreadsheet_id',
      'status',
      'metadata_key',
      'metadata_value',
      'created_at',
      'verified_at',
    ]);
    expect(issued).toMatchObject({
      binding_id: expect.stringMatching(/^sbd_[0-9a-f]{32}$/),
      spreadsheet_id: S1,
      status: 'pending',
      metadata_key: 'covercheck.binding',
      verified_at: null,
    });
    // 256 random bits, base64url.
    expect(issued.metadata_value).toMatch(/^cvb_[A-Za-z0-9_-]{43}$/);
    const stored = (await srv.store.sheetBindings.get(issued.binding_id))!;
    expect(stored.token_hash).toBe(crypto.createHash('sha256').update(issued.metadata_value).digest('hex'));
    expect(JSON.stringify(stored)).not.toContain(issued.metadata_value);
    const one = await call(srv.url, 'GET', `/api/v1/sheets/bindings/${issued.binding_id}`, { key });
    const list = await call(srv.url, 'GET', '/api/v1/sheets/bindings', { key });
    expect(ZSheetBindingSchema.strict().parse(one.body)).toMatchObject({ status: 'pending' });
    ZSheetBindingListSchema.parse(list.body);
    for (const body of [one.body, list.body]) expect(JSON.stringify(body)).not.toContain(issued.metadata_value);
  });

  it('an Idempotency-Key does not store the answer for replay: a repeat issues a new token', async () => {
    const { key: k, id } = await srv.key({ mode: 'test' });
    const headers = { 'idempotency-key': 'bind-once-please' };
    const a = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: k, body: { spreadsheet_id: S2 }, headers });
    const b = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: k, body: { spreadsheet_id: S2 }, headers });
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body.binding_id).toBe(a.body.binding_id);
    expect(b.body.metadata_value).not.toBe(a.body.metadata_value);
    // Nothing was recorded under that Idempotency-Key: claiming it now finds it new.
    const at = new Date().toISOString();
    expect(await srv.store.idempotency.begin(id, 'bind-once-please', 'x', at, at)).toEqual({ state: 'new' });
  });

  it('refuses bad bodies; any valid key may ask, but without a service account there is nothing to bind', async () => {
    for (const body of [{}, { spreadsheet_id: 'short' }, { spreadsheet_id: S1, extra: 1 }, { spreadsheet_id: 'has/slash/in/it' }]) {
      const r = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error).toBe('invalid_request');
    }
    const verifyOnly = (await srv.key({ mode: 'live', credits: 10, scopes: ['verify'] })).key;
    expect((await issue(S2, verifyOnly)).status).toBe(201);
    // ...while the scopes that write still gate what a binding is used for.
    const sched = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key: verifyOnly,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: S2, sheet_name: 'Policies', cadence: 'daily' },
    });
    expect(sched.body.error).toBe('insufficient_scope');
    const plain = await startTestServer({ workers: false });
    try {
      const k = (await plain.key({ mode: 'test' })).key;
      expect((await call(plain.url, 'POST', '/api/v1/sheets/bindings', { key: k, body: { spreadsheet_id: S1 } })).status).toBe(503);
    } finally {
      await plain.close();
    }
  });
});

describe('POST /api/v1/sheets/bindings/{id}/verify', () => {
  it('active only when the token is DOCUMENT-visible metadata of the spreadsheet itself', async () => {
    const { body } = await issue(S1);
    expect((await verify(body.binding_id)).status).toBe(403);
    // The add-on's mistake: PROJECT visibility hides it from the connector's service account.
    google.addDeveloperMetadata(S1, { key: 'covercheck.binding', value: body.metadata_value, visibility: 'PROJECT' });
    expect((await verify(body.binding_id)).body.error).toBe('sheet_not_bound');
    // On a sheet rather than the spreadsheet: not where the add-on puts it, not looked at.
    google.addDeveloperMetadata(S1, { key: 'covercheck.binding', value: body.metadata_value, visibility: 'DOCUMENT', sheet: 'Policies' });
    expect((await verify(body.binding_id)).status).toBe(403);
    // Under another key: not a binding.
    google.addDeveloperMetadata(S1, { key: 'covercheck.other', value: body.metadata_value, visibility: 'DOCUMENT' });
    expect((await verify(body.binding_id)).status).toBe(403);
    google.addDeveloperMetadata(S1, { key: 'covercheck.binding', value: body.metadata_value, visibility: 'DOCUMENT' });
    const ok = await verify(body.binding_id);
    expect(ok.status).toBe(200);
    expect(ZSheetBindingSchema.parse(ok.body)).toMatchObject({
      binding_id: body.binding_id,
      status: 'active',
      verified_at: expect.any(String),
    });
    expect(JSON.stringify(ok.body)).not.toContain(body.metadata_value);
  });

  it('token absent, spreadsheet not shared, spreadsheet not there: one and the same answer', async () => {
    const PRIVATE = 'binding-private-sheet1';
    const MISSING = 'binding-missing-sheet1';
    google.sheet(PRIVATE, 'Payroll', [['secret']]);
    const absent = await issue(S2);
    const unshared = await issue(PRIVATE);
    google.addDeveloperMetadata(PRIVATE, { key: 'covercheck.binding', value: unshared.body.metadata_value, visibility: 'DOCUMENT' });
    google.share(PRIVATE, false);
    const missing = await issue(MISSING);
    const answers = [
      [S2, await verify(absent.body.binding_id)],
      [PRIVATE, await verify(unshared.body.binding_id)],
      [MISSING, await verify(missing.body.binding_id)],
    ] as const;
    for (const [id, r] of answers)
      expect({ status: r.status, body: { ...r.body, message: r.body.message.replace(id, 'ID') } }, id).toEqual({
        status: 403,
        body: { error: 'sheet_not_bound', code: 403, message: expect.stringContaining('Spreadsheet ID is not connected') },
      });
    expect(new Set(answers.map(([id, r]) => r.body.message.replace(id, 'ID'))).size).toBe(1);
    google.share(PRIVATE, true);
  });

  it('asking again replaces the token: same binding, back to pending, the old token no longer counts', async () => {
    const first = await issue(S2);
    google.addDeveloperMetadata(S2, { key: 'covercheck.binding', value: first.body.metadata_value, visibility: 'DOCUMENT' });
    expect((await verify(first.body.binding_id)).body.status).toBe('active');
    const second = await issue(S2);
    expect(second.body).toMatchObject({ binding_id: first.body.binding_id, status: 'pending', verified_at: null });
    expect(second.body.metadata_value).not.toBe(first.body.metadata_value);
    expect((await verify(first.body.binding_id)).status).toBe(403);
    google.addDeveloperMetadata(S2, { key: 'covercheck.binding', value: second.body.metadata_value, visibility: 'DOCUMENT' });
    expect((await verify(first.body.binding_id)).body.status).toBe('active');
  });
});

describe('GET and DELETE', () => {
  it("list and get show the key's own bindings; another key sees none of them; DELETE removes once", async () => {
    const list = (await call(srv.url, 'GET', '/api/v1/sheets/bindings', { key })).body.bindings as {
      binding_id: string;
      spreadsheet_id: string;
    }[];
    expect(list.map((b) => b.spreadsheet_id)).toEqual([S1, S2, 'binding-private-sheet1', 'binding-missing-sheet1']);
    const other = (await srv.key({ mode: 'test' })).key;
    expect((await call(srv.url, 'GET', '/api/v1/sheets/bindings', { key: other })).body).toEqual({ bindings: [] });
    const id = list.at(-1)!.binding_id;
    expect((await call(srv.url, 'GET', `/api/v1/sheets/bindings/${id}`, { key: other })).status).toBe(404);
    expect((await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${id}`, { key: other })).status).toBe(404);
    expect((await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${id}`, { key })).status).toBe(204);
    expect((await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${id}`, { key })).status).toBe(404);
    expect((await call(srv.url, 'GET', '/api/v1/sheets/bindings', { key })).body.bindings).toHaveLength(3);
  });
});

/** A refusal in the contract's form, with Retry-After in the header and the body. */
function expectRetryable(r: { status: number; body: unknown; headers: Headers }, status: 429 | 503, error: string) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  const body = ZErrorBodySchema.strict().parse(r.body);
  expect(body).toMatchObject({ error, code: status, retry_after: expect.any(Number) });
  expect(Number(r.headers.get('retry-after'))).toBe(body.retry_after);
  expect(body.retry_after).toBeGreaterThanOrEqual(1);
}

describe('limits on binding checks', () => {
  it(`at most ${CHECKS_PER_MIN} checks a minute per key, then 429 with Retry-After and no Sheets call; other keys unaffected`, async () => {
    const { key: k } = await srv.key({ mode: 'test' });
    const { body } = await issue(S2, k);
    const searches = () => google.count('developerMetadata.search', S2);
    const before = searches();
    for (let i = 0; i < CHECKS_PER_MIN; i++) expect((await verify(body.binding_id, k)).status).toBe(403);
    expect(searches() - before).toBe(CHECKS_PER_MIN);
    const refused = await verify(body.binding_id, k);
    expectRetryable(refused, 429, 'rate_limit_exceeded');
    expect(refused.body.retry_after).toBeLessThanOrEqual(60);
    expect(refused.body.message).toContain('binding checks');
    // A submission naming the pending binding would check it too: the same budget, the same answer.
    const submitted = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: k,
      body: {
        policy_number: 'UKM-1000-0001',
        country: 'UK',
        insurance_type: 'motor',
        sheet_target: { spreadsheet_id: S2, sheet_name: 'Policies', key_column: 'A', columns: { status: 'B' } },
      },
    });
    expectRetryable(submitted, 429, 'rate_limit_exceeded');
    expect(searches() - before).toBe(CHECKS_PER_MIN);
    // Another key's budget is its own.
    const other = (await srv.key({ mode: 'test' })).key;
    expect((await verify((await issue(S2, other)).body.binding_id, other)).status).toBe(403);
  });

  it("a key's checks waiting for the Sheets quota are bounded: past the bound 429 at once, and other keys are served meanwhile", async () => {
    const PER_KEY = 3;
    const HANG_MS = 5000;
    const busy = await startTestServer({
      env: {
        GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
        COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
        COVERCHECK_SHEETS_PER_MIN: '6000',
        COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
        COVERCHECK_SHEETS_QUEUE_PER_KEY: String(PER_KEY),
        // The first check below hangs at the stand-in until this deadline.
        COVERCHECK_SHEETS_TIMEOUT_MS: String(HANG_MS),
        COVERCHECK_SHEETS_RETRY_MS: '50',
      },
    });
    try {
      const noisy = await busy.key({ mode: 'test', name: 'noisy' });
      const quiet = (await busy.key({ mode: 'test', name: 'quiet' })).key;
      const ids: string[] = [];
      for (let i = 0; i < PER_KEY + 3; i++) {
        const r = await call(busy.url, 'POST', '/api/v1/sheets/bindings', {
          key: noisy.key,
          body: { spreadsheet_id: `busy-sheet-${String(i).padStart(4, '0')}` },
        });
        ids.push(r.body.binding_id);
      }
      const verifyOn = (id: string, k: string) => call(busy.url, 'POST', `/api/v1/sheets/bindings/${id}/verify`, { key: k });
      // The noisy key's first check is at Google and gets no answer for now.
      google.unanswered.push({ kind: 'developerMetadata.search', spreadsheetId: 'busy-sheet-0000' });
      const first = verifyOn(ids[0]!, noisy.key);
      const deadline = Date.now() + 5000;
      while (google.count('developerMetadata.search', 'busy-sheet-0000') === 0 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 10));
      const rest = ids.slice(1).map((id) => verifyOn(id, noisy.key));
      // Should an assertion below fail, closing the server ends these: not an unhandled rejection too.
      for (const p of [first, ...rest]) p.catch(() => undefined);
      // The refused come back at once, while the others still wait behind the first.
      const settled: { status: number; body: any; headers: Headers }[] = [];
      for (const p of rest) void p.then((r) => settled.push(r));
      while (settled.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(settled).toHaveLength(2);
      for (const r of settled) expectRetryable(r, 429, 'rate_limit_exceeded');
      expect(busy.ctx.sheets!.limiter.waiting(noisy.id)).toBe(PER_KEY);
      // Another key is not held behind the noisy one's backlog: answered while it still waits.
      const quietBinding = (
        await call(busy.url, 'POST', '/api/v1/sheets/bindings', { key: quiet, body: { spreadsheet_id: 'busy-sheet-quiet1' } })
      ).body.binding_id;
      expect((await verifyOn(quietBinding, quiet)).status).toBe(403);
      expect(busy.ctx.sheets!.limiter.waiting(noisy.id)).toBe(PER_KEY);
      // When the first times out, the waiting ones are checked; nothing ends in a 5xx.
      const answers = await Promise.all([first, ...rest]);
      for (const r of answers) expect([403, 429], JSON.stringify(r.body)).toContain(r.status);
      expect(answers.filter((r) => r.status === 403).length).toBeGreaterThanOrEqual(PER_KEY);
    } finally {
      await busy.close();
    }
  }, 30_000);
});
