/**
 * Every route of the table (shared/routes/) answers a valid request with a body its contract declares:
 * each route is called once (the job and batch reads until their work is done), and each 2xx body is
 * parsed with the schema the route declares for that status, which must keep every field (a field the
 * server sends but the contract does not declare fails, as does a missing or mistyped one). A route
 * the table gains fails the last test until it is called here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, type RouteContract, type RouteName } from '../../shared/routes/index.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const google = new FakeGoogle();
const SHEET = 'route-responses-sheet-0001';
let srv: TestServer;
let key: string;
const checked = new Set<RouteName>();

beforeAll(async () => {
  await google.start();
  srv = await startTestServer({ env: { GOOGLE_APPLICATION_CREDENTIALS: google.keyFile, COVERCHECK_SHEETS_ROOT_URL: `${google.url}/` } });
  key = (await srv.key({ mode: 'live', credits: 100 })).key;
  google.sheet(SHEET, 'Rates', [['Date', 'Value']]);
});
afterAll(async () => {
  await srv.close();
  await google.stop();
});

/**
 * The answer's status must be a 2xx the route declares, and its body what that status declares: the
 * schema parses it to the same value (nothing undeclared dropped), or no body where none is declared.
 */
function expectDeclared(name: RouteName, answer: { status: number; body: unknown }): any {
  const route: RouteContract = ROUTES[name];
  const declared = route.responses[answer.status];
  expect(
    answer.status >= 200 && answer.status < 300 && declared !== undefined,
    `${name}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
  ).toBe(true);
  if (!declared!.schema) {
    expect(answer.body, name).toBe('');
  } else {
    const parsed = declared!.schema.safeParse(answer.body);
    expect(parsed.success ? [] : parsed.error.issues, name).toEqual([]);
    expect(parsed.data, `${name}: fields the schema does not declare`).toEqual(answer.body);
  }
  checked.add(name);
  return answer.body;
}

/** Calls the route `name` with its path parameters filled in. */
async function send(name: RouteName, opts: { params?: Record<string, string>; query?: string; body?: unknown; key?: string | null } = {}) {
  const route: RouteContract = ROUTES[name];
  const path =
    route.path.replace(/:(\w+)/g, (_m, p: string) => encodeURIComponent(opts.params?.[p] ?? '')) + (opts.query ? `?${opts.query}` : '');
  const k = opts.key === null ? undefined : (opts.key ?? key);
  return expectDeclared(
    name,
    await call(srv.url, route.method.toUpperCase(), path, {
      ...(k ? { key: k } : {}),
      ...(opts.body !== undefined ? { body: opts.body } : {}),
    }),
  );
}

/** Reads a job or batch until its work is done, checking every answer on the way. */
async function untilDone(name: 'job' | 'batch', params: Record<string, string>): Promise<any> {
  for (let i = 0; i < 100; i++) {
    const body = await send(name, { params, query: 'wait=2' });
    if (body.status === 'complete' || body.status === 'completed' || body.status === 'failed') return body;
  }
  throw new Error(`${name} ${JSON.stringify(params)} not done`);
}

const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', provider: 'Aviva' };

describe('each route answers a valid request with a body its contract declares', () => {
  it('health, readiness, the document and the account', async () => {
    await send('health', { key: null });
    await send('ready', { key: null });
    await send('openapi', { key: null });
    await send('account');
  });

  it('verification: sync, async, batch, and the job and batch they make', async () => {
    await send('verify', { body: policy });
    const job = await send('verifyAsync', { body: policy });
    await untilDone('job', { job_id: job.job_id });
    await send('jobDelete', { params: { job_id: job.job_id } });
    const batch = await send('verifyBatch', { body: { policies: [policy, { ...policy, policy_number: 'nonsense' }] } });
    await untilDone('batch', { batch_id: batch.batch_id });
    await send('deliveries');
    await send('verifications', { query: 'limit=2' });
  });

  it('extraction: the upload is accepted', async () => {
    const pdf = Buffer.alloc(2000, 0x20);
    pdf.write('%PDF-1.7\n');
    const form = new FormData();
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'policy.pdf');
    const res = await fetch(`${srv.url}${ROUTES.extract.path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expectDeclared('extract', { status: res.status, body: await res.json() });
  });

  it('datasets, without a key and with one', async () => {
    await send('datasetList', { key: null, query: 'q=gdp' });
    await send('dataset', { params: { slug: 'uk-gdp-abmi' } });
    await send('datasetSeries', { key: null, params: { slug: 'uk-gdp-abmi' }, query: 'limit=3' });
  });

  it('sheets: the service account, a binding made active, a schedule through its life, then unbound', async () => {
    await send('serviceAccount');
    const binding = await send('bindingCreate', { body: { spreadsheet_id: SHEET } });
    google.addDeveloperMetadata(SHEET, { key: binding.metadata_key, value: binding.metadata_value, visibility: 'DOCUMENT' });
    expect((await send('bindingVerify', { params: { binding_id: binding.binding_id } })).status).toBe('active');
    await send('bindingList');
    await send('bindingGet', { params: { binding_id: binding.binding_id } });
    const schedule = await send('scheduleCreate', {
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SHEET, sheet_name: 'Rates', cadence: 'daily' },
    });
    await send('scheduleList');
    await send('scheduleGet', { params: { schedule_id: schedule.schedule_id } });
    await send('scheduleResume', { params: { schedule_id: schedule.schedule_id } });
    await send('scheduleDelete', { params: { schedule_id: schedule.schedule_id } });
    await send('bindingDelete', { params: { binding_id: binding.binding_id } });
  });

  it('watches: one made, read after its first run, paused, resumed, deleted', async () => {
    const watch = await send('watchCreate', { body: { policies: [policy], cadence: 'weekly' } });
    const id = { watch_id: watch.watch_id };
    for (let i = 0; i < 200 && !(await send('watchGet', { params: id })).last_run?.finished_at; i++)
      await new Promise((r) => setTimeout(r, 25));
    await send('watchList');
    await send('watchPause', { params: id });
    await send('watchResume', { params: id });
    await send('watchDelete', { params: id });
  });

  it('no route of the table was left out', () => {
    expect([...checked].sort()).toEqual(Object.keys(ROUTES).sort());
  });
});
