/**
 * Spreadsheet binding on the real connector with the Sheets stand-in: a key writes only into a
 * spreadsheet whose editor bound it to that key. The cross-tenant attack (schedule into another
 * tenant's spreadsheet, read its sheet names from a failed run, probe its key column through
 * sheet_target and sheet_writeback.missing) fails; binding, recheck after the interval and
 * unbinding work as docs/sheets-binding.md says.
 *
 * The server runs without background workers and on a clock the tests move: each test drives the
 * queue, the write-back processor and the schedule runner itself, so every step is deterministic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_LONGER_BOUND } from '../../connector/src/sheets/bindings.js';
import { FakeGoogle, type Grid } from '../helpers/fake-google.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';

const google = new FakeGoogle();
let srv: TestServer;
let offset = 0;
const now = () => new Date(Date.now() + offset);
const RECHECK_MS = 600_000;
let alice: string;
let mallory: string;
let malloryId: string;

/** Alice's spreadsheet: the attack's target. */
const VICTIM = 'victim-spreadsheet-0001';
const victimGrid = (): Grid => [
  ['Policy', 'Holder', 'Status'],
  ['UKM-1000-0001', 'Jane Doe', ''],
  ['UKM-1000-0004', 'John Roe', ''],
];
const snapshot = (id: string) => JSON.stringify([...google.spreadsheets.get(id)!.entries()]);
const callsOn = (id: string) => google.calls.filter((c) => c.spreadsheetId === id).length;

beforeAll(async () => {
  await google.start();
  srv = await startTestServer({
    workers: false,
    now,
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_SHEETS_PER_MIN: '6000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
      COVERCHECK_SHEETS_BINDING_RECHECK_MS: String(RECHECK_MS),
    },
  });
  alice = (await srv.key({ mode: 'test', name: 'alice' })).key;
  ({ key: mallory, id: malloryId } = await srv.key({ mode: 'test', name: 'mallory', scopes: ['verify', 'extract', 'datasets'] }));
  google.sheet(VICTIM, 'Claims 2026', victimGrid());
  google.sheet(VICTIM, 'Payroll (confidential)', [
    ['Name', 'Salary'],
    ['Jane Doe', '81000'],
  ]);
  await bindOverHttp(srv.url, alice, google, VICTIM);
});
afterAll(async () => {
  await srv.close();
  await google.stop();
});

const policy = (n: string) => ({ policy_number: n, country: 'UK', insurance_type: 'motor' });
const target = (spreadsheet_id: string, sheet_name = 'Claims 2026') => ({
  spreadsheet_id,
  sheet_name,
  key_column: 'A',
  columns: { status: 'C' },
});
/** Runs every pending job and batch, then every due write-back. */
async function drain() {
  while (await srv.ctx.queue.tick());
  while (await srv.ctx.sheets!.writebacks.tick());
}
function expectNotBound(r: { status: number; body: { error: string; message: string } }, spreadsheetId: string) {
  expect(r.status).toBe(403);
  expect(r.body.error).toBe('sheet_not_bound');
  expect(r.body.message).toContain(`Spreadsheet ${spreadsheetId} is not connected to this API key`);
  expect(r.body.message).toContain('Extensions > Covercheck > Connect this spreadsheet');
}
async function extractWithTarget(key: string, sheetTarget: object) {
  const form = new FormData();
  form.append('file', new Blob([Buffer.from('%PDF-1.4\n% not read at submission\n')], { type: 'application/pdf' }), 'policy.pdf');
  form.append('sheet_target', JSON.stringify(sheetTarget));
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as { error: string; message: string } };
}

describe("writing into another tenant's spreadsheet fails", () => {
  it("a key with datasets scope cannot schedule into another tenant's spreadsheet: 403 at once, no API call, nothing cleared", async () => {
    const before = snapshot(VICTIM);
    const calls = callsOn(VICTIM);
    const r = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key: mallory,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: VICTIM, sheet_name: 'Claims 2026', cadence: 'hourly' },
    });
    expectNotBound(r, VICTIM);
    expect(callsOn(VICTIM)).toBe(calls);
    expect((await call(srv.url, 'GET', '/api/v1/sheets/schedules', { key: mallory })).body).toEqual({ schedules: [] });

    // Asking for a binding of it changes nothing: only an editor can put mallory's token into it.
    const issued = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: mallory, body: { spreadsheet_id: VICTIM } });
    expect(issued.status).toBe(201);
    expectNotBound(await call(srv.url, 'POST', `/api/v1/sheets/bindings/${issued.body.binding_id}/verify`, { key: mallory }), VICTIM);
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
        key: mallory,
        body: { dataset: 'uk-gdp-abmi', spreadsheet_id: VICTIM, sheet_name: 'Claims 2026', cadence: 'hourly' },
      }),
      VICTIM,
    );
    while (await srv.ctx.sheets!.schedules.tick());
    expect(snapshot(VICTIM)).toBe(before);
    // The two checks were metadata searches; nothing else touched the spreadsheet.
    expect(google.calls.filter((c) => c.spreadsheetId === VICTIM && c.kind !== 'developerMetadata.search')).toHaveLength(0);
    await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${issued.body.binding_id}`, { key: mallory });
  });

  it("a failed run's message names none of the spreadsheet's sheets", async () => {
    // A schedule as it could exist from before bindings: mallory's, into alice's spreadsheet.
    const at = now().toISOString();
    await srv.store.schedules.create({
      id: 'sch_legacy_attack',
      key_id: malloryId,
      dataset: 'uk-gdp-abmi',
      spreadsheet_id: VICTIM,
      sheet_name: 'No such sheet',
      cadence: 'hourly',
      point_limit: 10,
      output_mode: 'overwrite',
      next_run_at: at,
      created_at: at,
    });
    const before = snapshot(VICTIM);
    expect(await srv.ctx.sheets!.schedules.tick()).toBe(true);
    const [run] = await srv.store.schedules.runs('sch_legacy_attack', 1);
    expect(run).toMatchObject({ status: 'failed', error: NO_LONGER_BOUND });
    const seen = JSON.stringify((await call(srv.url, 'GET', '/api/v1/sheets/schedules/sch_legacy_attack', { key: mallory })).body);
    for (const name of ['Claims 2026', 'Payroll', 'Jane Doe']) expect(seen).not.toContain(name);
    expect(snapshot(VICTIM)).toBe(before);
    await srv.store.schedules.delete('sch_legacy_attack', malloryId);
  });

  it("sheet_target can't probe another tenant's key column: async, batch and extract refused before anything is stored or read", async () => {
    const calls = callsOn(VICTIM);
    const probe = target(VICTIM);
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/async', { key: mallory, body: { ...policy('UKM-1000-0001'), sheet_target: probe } }),
      VICTIM,
    );
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/batch', {
        key: mallory,
        body: { policies: [policy('UKM-1000-0001'), policy('UKM-1000-0404')], sheet_target: probe },
      }),
      VICTIM,
    );
    expectNotBound(await extractWithTarget(mallory, { ...probe, columns: { policy_number: 'A' } }), VICTIM);
    expect(callsOn(VICTIM)).toBe(calls);
    // Nothing was queued for mallory: no job, batch or write-back to carry a `missing` list.
    expect(await srv.ctx.queue.tick()).toBe(false);
    expect(await srv.ctx.sheets!.writebacks.tick()).toBe(false);
  });

  it('a token bound to one key does not authorise another, even one who has read it', async () => {
    // DOCUMENT-visible metadata can be read by anyone with access; the token is no secret, so reading it gives nothing.
    const alicesToken = google.developerMetadata(VICTIM).find((m) => m.metadataKey === 'covercheck.binding')!.metadataValue!;
    expect(alicesToken).toMatch(/^cvb_/);
    const theirs = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: mallory, body: { spreadsheet_id: VICTIM } });
    expectNotBound(await call(srv.url, 'POST', `/api/v1/sheets/bindings/${theirs.body.binding_id}/verify`, { key: mallory }), VICTIM);
    expect((await call(srv.url, 'GET', `/api/v1/sheets/bindings/${theirs.body.binding_id}`, { key: mallory })).body).toMatchObject({
      status: 'pending',
      verified_at: null,
    });
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/async', {
        key: mallory,
        body: { ...policy('UKM-1000-0001'), sheet_target: target(VICTIM) },
      }),
      VICTIM,
    );
    // Nor can mallory act on alice's binding: its id is unknown to mallory's key.
    const alices = (await call(srv.url, 'GET', '/api/v1/sheets/bindings', { key: alice })).body.bindings[0];
    for (const [method, path] of [
      ['GET', ''],
      ['POST', '/verify'],
      ['DELETE', ''],
    ] as const) {
      expect(
        (await call(srv.url, method, `/api/v1/sheets/bindings/${alices.binding_id}${path}`, { key: mallory })).status,
        `${method} ${path}`,
      ).toBe(404);
    }
    expect((await call(srv.url, 'GET', `/api/v1/sheets/bindings/${alices.binding_id}`, { key: alice })).body.status).toBe('active');
    await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${theirs.body.binding_id}`, { key: mallory });
  });

  it('a token for one spreadsheet copied into another does not bind the other', async () => {
    const COPY = 'copy-of-victim-000001';
    // "Make a copy": the grids and the developer metadata, alice's token included.
    for (const [title, grid] of google.spreadsheets.get(VICTIM)!) google.sheet(COPY, title, structuredClone(grid));
    for (const m of google.developerMetadata(VICTIM))
      google.addDeveloperMetadata(COPY, { key: m.metadataKey, value: m.metadataValue!, visibility: m.visibility });
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/async', { key: alice, body: { ...policy('UKM-1000-0001'), sheet_target: target(COPY) } }),
      COPY,
    );
    const issued = await call(srv.url, 'POST', '/api/v1/sheets/bindings', { key: alice, body: { spreadsheet_id: COPY } });
    expectNotBound(await call(srv.url, 'POST', `/api/v1/sheets/bindings/${issued.body.binding_id}/verify`, { key: alice }), COPY);
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/async', { key: alice, body: { ...policy('UKM-1000-0001'), sheet_target: target(COPY) } }),
      COPY,
    );
  });
});

describe('bound spreadsheets', () => {
  it('bind -> verify -> a batch writes its results; a schedule writes its dataset', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: alice,
      body: { policies: [policy('UKM-1000-0001'), policy('UKM-1000-0004')], sheet_target: target(VICTIM) },
    });
    expect(r.status).toBe(202);
    await drain();
    const batch = await call(srv.url, 'GET', `/api/v1/batches/${r.body.batch_id}`, { key: alice });
    expect(batch.body.sheet_writeback).toMatchObject({ status: 'written', written: 2, missing: [] });
    expect(google.grid(VICTIM, 'Claims 2026').map((row) => row[2])).toEqual(['Status', 'verified', 'verified']);

    google.sheet(VICTIM, 'GDP', []);
    const s = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key: alice,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: VICTIM, sheet_name: 'GDP', cadence: 'daily', limit: 3 },
    });
    expect(s.status).toBe(201);
    expect(await srv.ctx.sheets!.schedules.tick()).toBe(true);
    expect((await srv.store.schedules.runs(s.body.schedule_id, 1))[0]).toMatchObject({ status: 'ok', rows: 3 });
    expect(google.grid(VICTIM, 'GDP')).toHaveLength(4);
    await call(srv.url, 'DELETE', `/api/v1/sheets/schedules/${s.body.schedule_id}`, { key: alice });
  });

  it('removing the token from the spreadsheet stops writes once the recheck interval has passed (the clock moved)', async () => {
    const SHEET = 'recheck-spreadsheet-01';
    google.sheet(SHEET, 'Claims 2026', victimGrid());
    google.sheet(SHEET, 'Rates', []);
    const { binding, metadataId } = await bindOverHttp(srv.url, alice, google, SHEET);
    const s = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key: alice,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SHEET, sheet_name: 'Rates', cadence: 'hourly', limit: 2 },
    });
    expect(await srv.ctx.sheets!.schedules.tick()).toBe(true);
    google.grid(SHEET, 'Rates')[1]![0] = 'owner edit after the first run';

    // An editor disconnects the spreadsheet: the token is gone from its metadata.
    expect(google.removeDeveloperMetadata(SHEET, metadataId)).toBe(true);
    // Within the interval the binding is trusted without asking: still accepted, and written.
    const searches = google.count('developerMetadata.search', SHEET);
    const first = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: alice,
      body: { ...policy('UKM-1000-0001'), sheet_target: target(SHEET) },
    });
    expect(first.status).toBe(202);
    await drain();
    expect(google.grid(SHEET, 'Claims 2026')[1]![2]).toBe('verified');
    // A second job is accepted too, and finished, but its write-back waits...
    const second = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: alice,
      body: { ...policy('UKM-1000-0004'), sheet_target: target(SHEET) },
    });
    expect(second.status).toBe(202);
    while (await srv.ctx.queue.tick());
    expect(google.count('developerMetadata.search', SHEET)).toBe(searches);

    // ...until after the interval: the writer checks again and writes nothing.
    offset += RECHECK_MS + 60_000;
    while (await srv.ctx.sheets!.writebacks.tick());
    const job = await call(srv.url, 'GET', `/api/v1/jobs/${second.body.job_id}`, { key: alice });
    expect(job.body.sheet_writeback).toMatchObject({ status: 'failed', written: 0, missing: [], error: NO_LONGER_BOUND });
    expect(google.grid(SHEET, 'Claims 2026')[2]![2]).toBe('');
    // A submission checks again too, and is refused; so is the next schedule run.
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/async', {
        key: alice,
        body: { ...policy('UKM-1000-0004'), sheet_target: target(SHEET) },
      }),
      SHEET,
    );
    offset += 3600_000;
    expect(await srv.ctx.sheets!.schedules.tick()).toBe(true);
    expect((await srv.store.schedules.runs(s.body.schedule_id, 1))[0]).toMatchObject({ status: 'failed', error: NO_LONGER_BOUND });
    expect(google.grid(SHEET, 'Rates')[1]![0]).toBe('owner edit after the first run');
    expect((await call(srv.url, 'GET', `/api/v1/sheets/bindings/${binding.binding_id}`, { key: alice })).body).toMatchObject({
      status: 'pending',
      verified_at: binding.verified_at,
    });

    // Connected again from the spreadsheet (a new token, written and verified): writes resume.
    await bindOverHttp(srv.url, alice, google, SHEET);
    const again = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: alice,
      body: { ...policy('UKM-1000-0004'), sheet_target: target(SHEET) },
    });
    expect(again.status).toBe(202);
    await drain();
    expect(google.grid(SHEET, 'Claims 2026')[2]![2]).toBe('verified');
    await call(srv.url, 'DELETE', `/api/v1/sheets/schedules/${s.body.schedule_id}`, { key: alice });
  });

  it('DELETE of the binding stops writes at once: queued write-backs fail, submissions and schedules are refused, without asking Google', async () => {
    const SHEET = 'delete-spreadsheet-001';
    google.sheet(SHEET, 'Claims 2026', victimGrid());
    const { binding } = await bindOverHttp(srv.url, alice, google, SHEET);
    const queued = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: alice,
      body: { policies: [policy('UKM-1000-0001')], sheet_target: target(SHEET) },
    });
    expect(queued.status).toBe(202);
    while (await srv.ctx.queue.tick());

    expect((await call(srv.url, 'DELETE', `/api/v1/sheets/bindings/${binding.binding_id}`, { key: alice })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/api/v1/sheets/bindings/${binding.binding_id}`, { key: alice })).status).toBe(404);
    const calls = callsOn(SHEET);
    while (await srv.ctx.sheets!.writebacks.tick());
    const batch = await call(srv.url, 'GET', `/api/v1/batches/${queued.body.batch_id}`, { key: alice });
    expect(batch.body.sheet_writeback).toMatchObject({ status: 'failed', written: 0, missing: [], error: NO_LONGER_BOUND });
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/verify/batch', {
        key: alice,
        body: { policies: [policy('UKM-1000-0001')], sheet_target: target(SHEET) },
      }),
      SHEET,
    );
    expectNotBound(
      await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
        key: alice,
        body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SHEET, sheet_name: 'Claims 2026', cadence: 'daily' },
      }),
      SHEET,
    );
    expect(callsOn(SHEET)).toBe(calls);
    expect(google.grid(SHEET, 'Claims 2026')).toEqual(victimGrid());
  });
});
