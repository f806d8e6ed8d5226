/** Scheduled dataset refreshes into sheets, and sheet targets end to end through the connector, into bound spreadsheets. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { createMailer } from '../../connector/src/mailer.js';
import { createLogger } from '../../connector/src/logger.js';
import { SheetsApi } from '../../connector/src/sheets/api.js';
import { readServiceAccount, serviceAccountAuth } from '../../connector/src/sheets/auth.js';
import { SheetsLimiter } from '../../connector/src/sheets/limiter.js';
import { ScheduleRunner } from '../../connector/src/sheets/scheduler.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';

const google = new FakeGoogle();
let srv: TestServer;
/** Same store and Sheets setup but no background workers: the runner tests drive the runners themselves. */
let quiet: TestServer;
let key: string;
let quietKeyId: string;
let quietKeyText: string;
const SID = 'schedule-sheet-000000001';

beforeAll(async () => {
  await google.start();
  srv = await startTestServer({
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_SHEETS_PER_MIN: '6000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
    },
  });
  ({ key } = await srv.key({ mode: 'test' }));
  quiet = await startTestServer({
    workers: false,
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_SHEETS_PER_MIN: '6000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
    },
  });
  const quietKey = await quiet.key({ mode: 'test' });
  quietKeyId = quietKey.id;
  quietKeyText = quietKey.key;
  // Every spreadsheet these tests write into is bound to the key that writes, as an editor would bind it.
  google.sheet(SID, 'Notes', [['kept by the owner']]);
  for (const id of ['batch-target-sheet-01', 'job-target-sheet-0001']) google.sheet(id, 'Notes', []);
  for (const id of [SID, 'batch-target-sheet-01', 'job-target-sheet-0001']) await bindOverHttp(srv.url, key, google, id);
  await bindOverHttp(quiet.url, quietKey.key, google, SID);
});
afterAll(async () => {
  await quiet.close();
  await srv.close();
  await google.stop();
});

function runner() {
  const { api, bindings } = quiet.ctx.sheets!;
  return new ScheduleRunner(
    { store: quiet.store, api, bindings, logger: createLogger('silent'), now: () => new Date() },
    { pollMs: 10, leaseMs: 300, concurrency: 2, pauseAfter: 3 },
  );
}

async function makeSchedule(id: string, sheet: string, nextRunAt: string, cadence: 'hourly' | 'daily' | 'weekly' = 'daily') {
  await quiet.store.schedules.create({
    id,
    key_id: quietKeyId,
    dataset: 'uk-gdp-abmi',
    spreadsheet_id: SID,
    sheet_name: sheet,
    cadence,
    point_limit: 10,
    output_mode: 'overwrite',
    next_run_at: nextRunAt,
    created_at: nextRunAt,
  });
}

describe('GET /api/v1/sheets/service-account', () => {
  it('names the address to share sheets with', async () => {
    const r = await call(srv.url, 'GET', '/api/v1/sheets/service-account', { key });
    expect(r.body).toEqual({ email: google.serviceEmail, note: expect.stringContaining(google.serviceEmail) });
  });
});

describe('schedules API', () => {
  it('POST runs at once and writes header + latest points; GET shows the run; DELETE removes it', async () => {
    google.sheet(SID, 'GDP', [
      ['old', 'data'],
      ['x', 'y'],
    ]);
    const r = await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
      key,
      body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SID, sheet_name: 'GDP', cadence: 'daily', limit: 3 },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ schedule_id: expect.stringMatching(/^sch_/), dataset: 'uk-gdp-abmi', cadence: 'daily', limit: 3 });
    const s = await pollUntil(
      srv.url,
      `/api/v1/sheets/schedules/${r.body.schedule_id}`,
      key,
      (b: any) => b.runs.length > 0 && b.runs[0].status !== 'running',
    );
    expect(s.runs[0]).toMatchObject({ status: 'ok', rows: 3, error: null });
    expect(Date.parse(s.next_run_at) - Date.now()).toBeGreaterThan(23 * 3600_000);
    const grid = google.grid(SID, 'GDP');
    expect(grid[0]).toEqual(['date', expect.stringContaining('UK GDP')]);
    expect(grid.slice(1, 4).map((row) => row[0])).toEqual(['2024-01-01', '2024-04-01', '2024-07-01']);
    expect(grid.slice(4).every((row) => row.every((c) => c === ''))).toBe(true);
    expect((await call(srv.url, 'GET', '/api/v1/sheets/schedules', { key })).body.schedules.map((x: any) => x.schedule_id)).toContain(
      r.body.schedule_id,
    );
    expect((await call(srv.url, 'DELETE', `/api/v1/sheets/schedules/${r.body.schedule_id}`, { key })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/api/v1/sheets/schedules/${r.body.schedule_id}`, { key })).status).toBe(404);
  });
  it('refuses bad bodies and unknown datasets; schedules are per key', async () => {
    expect(
      (
        await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
          key,
          body: { dataset: 'uk-gdp-abmi', spreadsheet_id: SID, sheet_name: 'GDP', cadence: 'monthly' },
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
          key,
          body: { dataset: 'nope', spreadsheet_id: SID, sheet_name: 'GDP', cadence: 'daily' },
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(srv.url, 'POST', '/api/v1/sheets/schedules', {
          key,
          body: { dataset: 'uk-gdp-abmi', spreadsheet_id: 'x', sheet_name: 'GDP', cadence: 'daily' },
        })
      ).status,
    ).toBe(400);
    const other = await srv.key({ mode: 'test' });
    expect((await call(srv.url, 'GET', '/api/v1/sheets/schedules', { key: other.key })).body).toEqual({ schedules: [] });
  });
});

describe('schedule runner', () => {
  it('a schedule missed for ten days runs once on start, not once per missed period', async () => {
    google.sheet(SID, 'Missed', []);
    await makeSchedule('sch_missed', 'Missed', new Date(Date.now() - 10 * 86_400_000).toISOString());
    const r = runner();
    let ran = 0;
    while (await r.tick()) ran++;
    expect(ran).toBe(1);
    expect(await quiet.store.schedules.runs('sch_missed', 20)).toHaveLength(1);
    expect(Date.parse((await quiet.store.schedules.get('sch_missed'))!.next_run_at)).toBeGreaterThan(Date.now() + 23 * 3600_000);
  });

  it('restart mid-run: the schedule waits for the dead run lease, then runs once; the cut-off run is marked interrupted', async () => {
    google.sheet(SID, 'Restart', []);
    await makeSchedule('sch_restart', 'Restart', new Date(Date.now() - 1000).toISOString());
    // A process leases it and dies before finishing.
    expect(await quiet.store.schedules.leaseDue(new Date().toISOString(), new Date(Date.now() + 300).toISOString())).toMatchObject({
      id: 'sch_restart',
    });
    const r = runner();
    expect(await r.tick()).toBe(false);
    await new Promise((res) => setTimeout(res, 350));
    expect(await r.tick()).toBe(true);
    const runs = await quiet.store.schedules.runs('sch_restart', 20);
    expect(runs.map((x) => x.status)).toEqual(['ok', 'failed']);
    expect(runs[1]!.error).toContain('interrupted');
    expect(google.grid(SID, 'Restart')).toHaveLength(11);
  });

  it('a run that outlasts its lease keeps it: a second runner takes nothing meanwhile, and the run is recorded once', async () => {
    const sid = 'schedule-slow-sheet-01';
    google.sheet(sid, 'Slow', []);
    await bindOverHttp(quiet.url, quietKeyText, google, sid);
    await quiet.store.schedules.create({
      id: 'sch_slow',
      key_id: quietKeyId,
      dataset: 'uk-gdp-abmi',
      spreadsheet_id: sid,
      sheet_name: 'Slow',
      cadence: 'daily',
      point_limit: 10,
      output_mode: 'overwrite',
      next_run_at: new Date(Date.now() - 1000).toISOString(),
      created_at: new Date().toISOString(),
    });
    // The run's clear is never answered the first time: it waits out a 3 s deadline, then is sent again.
    google.unanswered.push({ kind: 'values.clear', spreadsheetId: sid });
    const limiter = new SheetsLimiter({ perProject: 6000, perSpreadsheet: 6000, windowMs: 60_000 });
    const api = new SheetsApi(
      { auth: serviceAccountAuth(readServiceAccount(google.keyFile)), rootUrl: `${google.url}/`, limiter, timeoutMs: 3000, backoffMs: 10 },
      google.serviceEmail,
    );
    // Leases of 1 s, renewed every 333 ms.
    const slow = new ScheduleRunner(
      { store: quiet.store, api, bindings: quiet.ctx.sheets!.bindings, logger: createLogger('silent'), now: () => new Date() },
      { pollMs: 10, leaseMs: 1000, concurrency: 1, pauseAfter: 3 },
    );
    const running = slow.tick();
    await new Promise((res) => setTimeout(res, 2000));
    expect(await runner().tick()).toBe(false);
    expect(await running).toBe(true);
    await limiter.stop();
    expect((await quiet.store.schedules.runs('sch_slow', 10)).map((x) => [x.status, x.rows])).toEqual([['ok', 10]]);
    expect(google.count('values.clear', sid)).toBe(2);
    expect(google.grid(sid, 'Slow')).toHaveLength(11);
  });

  it('pauses itself after 3 failed runs in a row, says why, stops running; resume (only by its key) un-pauses and runs it', async () => {
    await makeSchedule('sch_pause', 'Later', new Date(Date.now() - 1000).toISOString(), 'hourly');
    let clock = Date.now();
    const { api, bindings } = quiet.ctx.sheets!;
    const r = new ScheduleRunner(
      { store: quiet.store, api, bindings, logger: createLogger('silent'), now: () => new Date(clock) },
      { pollMs: 10, leaseMs: 300, concurrency: 1, pauseAfter: 3 },
    );
    const view = async (k = quietKeyText) => call(quiet.url, 'GET', '/api/v1/sheets/schedules/sch_pause', { key: k });
    for (let i = 1; i <= 3; i++) {
      expect((await view()).body).toMatchObject({ paused: false, paused_reason: null, failures_in_row: i - 1 });
      expect(await r.tick()).toBe(true);
      clock += 16 * 60_000; // past the 15-minute retry
    }
    const paused = (await view()).body;
    expect(paused).toMatchObject({ paused: true, failures_in_row: 3 });
    expect(paused.paused_reason).toMatch(/^Paused after 3 failed runs in a row\. The last: .*no sheet named "Later"/);
    expect(paused.runs.map((x: any) => x.status)).toEqual(['failed', 'failed', 'failed']);
    clock += 7 * 86_400_000;
    // A week on, the runner runs whatever else is due, but not the paused schedule.
    while (await r.tick());
    expect((await view()).body).toMatchObject({
      paused: true,
      failures_in_row: 3,
      runs: [{ status: 'failed' }, { status: 'failed' }, { status: 'failed' }],
    });

    const other = await quiet.key({ mode: 'test' });
    const foreign = await call(quiet.url, 'POST', '/api/v1/sheets/schedules/sch_pause/resume', { key: other.key, body: {} });
    expect(foreign.status).toBe(404);
    expect(
      (await call(quiet.url, 'POST', '/api/v1/sheets/schedules/sch_pause/resume', { key: quietKeyText, body: { now: true } })).status,
    ).toBe(400);
    expect((await view()).body.paused).toBe(true);

    google.sheet(SID, 'Later', []);
    const resumed = await call(quiet.url, 'POST', '/api/v1/sheets/schedules/sch_pause/resume', { key: quietKeyText, body: {} });
    expect(resumed.status).toBe(200);
    expect(resumed.body).toMatchObject({ schedule_id: 'sch_pause', paused: false, paused_reason: null, failures_in_row: 0 });
    expect(await r.tick()).toBe(true);
    expect((await view()).body.runs[0]).toMatchObject({ status: 'ok', rows: 10 });
    expect(google.grid(SID, 'Later')[0]![0]).toBe('date');
  });

  it("mails the key's owner when a failure streak starts and on pause, not for every failed run; keys without an address get none", async () => {
    const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-alerts-'));
    try {
      const logger = createLogger('silent');
      const mailer = createMailer({ smtpUrl: undefined, from: 'Covercheck <no-reply@covercheck.invalid>', outbox, logger });
      const owner = (await createApiKey(quiet.store, { mode: 'test', name: 'owner', scopes: ['datasets'], email: 'owner@example.com' }))
        .record.id;
      const t0 = new Date(Date.now() - 1000).toISOString();
      // Not bound to this key: every run fails with NO_LONGER_BOUND.
      await quiet.store.schedules.create({
        id: 'sch_alert',
        key_id: owner,
        dataset: 'uk-gdp-abmi',
        spreadsheet_id: SID,
        sheet_name: 'Alerts',
        cadence: 'hourly',
        point_limit: 10,
        output_mode: 'overwrite',
        next_run_at: t0,
        created_at: t0,
      });
      await makeSchedule('sch_silent', 'Nowhere', t0, 'hourly');
      let clock = Date.now();
      const { api, bindings } = quiet.ctx.sheets!;
      const r = new ScheduleRunner(
        { store: quiet.store, api, bindings, logger, now: () => new Date(clock), mailer },
        { pollMs: 10, leaseMs: 300, concurrency: 1, pauseAfter: 3 },
      );
      const mails = () =>
        fs
          .readdirSync(outbox)
          .sort()
          .map((f) => fs.readFileSync(path.join(outbox, f), 'utf8'));
      const runAll = async () => {
        while (await r.tick());
        clock += 16 * 60_000;
      };
      await runAll();
      expect(mails()).toHaveLength(1);
      expect(mails()[0]).toMatch(/^To: owner@example\.com$/m);
      expect(mails()[0]).toMatch(/^Subject: Covercheck: a scheduled refresh failed$/m);
      expect(mails()[0]).toContain('sch_alert');
      await runAll();
      expect(mails()).toHaveLength(1);
      await runAll();
      expect(mails()).toHaveLength(2);
      const pausedMail = mails().filter((m) => /^Subject: Covercheck: scheduled refresh paused after 3 failures$/m.test(m));
      expect(pausedMail).toHaveLength(1);
      expect(pausedMail[0]).toContain('/api/v1/sheets/schedules/sch_alert/resume');
      expect(await quiet.store.schedules.get('sch_alert')).toMatchObject({
        failures_in_row: 3,
        paused_reason: expect.stringContaining('Paused after 3'),
      });
      await runAll();
      expect(mails()).toHaveLength(2);
      // The outbox's file names sort by time only to the millisecond; the rest are found by subject.
      // sch_silent failed as often (and paused) but its key has no address.
      expect(await quiet.store.schedules.get('sch_silent')).toMatchObject({ failures_in_row: 3 });
      expect(mails().every((m) => /^To: owner@example\.com$/m.test(m))).toBe(true);

      // After resume a new streak starts: one more mail on its first failure.
      expect(await quiet.store.schedules.resume('sch_alert', owner, new Date(clock).toISOString())).toBe(true);
      await runAll();
      expect(mails()).toHaveLength(3);
      expect(mails().filter((m) => /^Subject: Covercheck: a scheduled refresh failed$/m.test(m))).toHaveLength(2);
      await quiet.store.schedules.delete('sch_alert', owner);
      await quiet.store.schedules.delete('sch_silent', quietKeyId);
    } finally {
      fs.rmSync(outbox, { recursive: true, force: true });
    }
  });

  it('two due schedules, two runners racing (two processes): each schedule runs exactly once', async () => {
    google.sheet(SID, 'One', []);
    google.sheet(SID, 'Two', []);
    await makeSchedule('sch_one', 'One', new Date(Date.now() - 1000).toISOString(), 'hourly');
    await makeSchedule('sch_two', 'Two', new Date(Date.now() - 1000).toISOString(), 'hourly');
    const a = runner();
    const b = runner();
    await Promise.all([a.tick(), b.tick(), a.tick(), b.tick()]);
    while ((await a.tick()) || (await b.tick()));
    expect(await quiet.store.schedules.runs('sch_one', 20)).toHaveLength(1);
    expect(await quiet.store.schedules.runs('sch_two', 20)).toHaveLength(1);
    expect(google.grid(SID, 'One')[0]![0]).toBe('date');
    expect(google.grid(SID, 'Two')[0]![0]).toBe('date');
  });

  it('a sheet that does not exist fails the run naming only the sheet asked for, and retries within 15 minutes', async () => {
    await makeSchedule('sch_missing_sheet', 'Nope', new Date(Date.now() - 1000).toISOString(), 'weekly');
    await runner().tick();
    const runs = await quiet.store.schedules.runs('sch_missing_sheet', 20);
    expect(runs[0]).toMatchObject({ status: 'failed', error: 'the spreadsheet has no sheet named "Nope"' });
    expect(Date.parse((await quiet.store.schedules.get('sch_missing_sheet'))!.next_run_at)).toBeLessThanOrEqual(Date.now() + 15 * 60_000);
  });
});

describe('sheet_target end to end', () => {
  it('a batch with a sheet_target writes each result into the row of its policy number', async () => {
    const SHEET = 'batch-target-sheet-01';
    google.sheet(SHEET, 'Book', [
      ['Policy', 'Country', 'Status', 'Confidence'],
      ['UKM-9999-9999', 'UK'],
      ['UKM-1000-0001', 'UK'],
      ['UKM-1000-0002', 'UK'],
    ]);
    const policies = ['UKM-1000-0001', 'UKM-1000-0002', 'UKM-9999-9999', 'UKM-1234-5678'].map((p) => ({
      policy_number: p,
      country: 'UK',
      insurance_type: 'motor',
    }));
    const r = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key,
      body: {
        policies,
        sheet_target: { spreadsheet_id: SHEET, sheet_name: 'Book', key_column: 'A', columns: { status: 'C', confidence_score: 'D' } },
      },
    });
    expect(r.status).toBe(202);
    const batch = await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, key, (b: any) => b.sheet_writeback?.status === 'written');
    expect(batch.sheet_writeback).toMatchObject({
      status: 'written',
      written: 3,
      missing: ['UKM-1234-5678'],
      spreadsheet_id: SHEET,
      sheet_name: 'Book',
    });
    const grid = google.grid(SHEET, 'Book');
    expect(grid.slice(1).map((row) => [row[0], row[2]])).toEqual([
      ['UKM-9999-9999', 'unverified'],
      ['UKM-1000-0001', 'verified'],
      ['UKM-1000-0002', 'unverified'],
    ]);
  });
  it('an async job with a sheet_target shows its write-back state', async () => {
    const SHEET = 'job-target-sheet-0001';
    google.sheet(SHEET, 'Jobs', [['Policy', 'Status'], ['KFZ-5096-000001']]);
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: {
        policy_number: 'KFZ-5096-000001',
        country: 'DE',
        insurance_type: 'motor',
        sheet_target: {
          spreadsheet_id: SHEET,
          sheet_name: 'Jobs',
          key_column: 'A',
          columns: { status: 'B', insurer: 'C', checked_at: 'D' },
        },
      },
    });
    const job = await pollUntil(srv.url, r.body.poll_url, key, (b: any) => b.sheet_writeback?.status === 'written');
    expect(job.sheet_writeback).toMatchObject({ written: 1, missing: [] });
    expect(google.grid(SHEET, 'Jobs')[1]!.slice(1, 3)).toEqual(['verified', 'HDI Global SE']);
    expect(google.grid(SHEET, 'Jobs')[1]![3]).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });
  it('bad sheet targets are refused at submission', async () => {
    const bad = [
      [{ spreadsheet_id: SID, sheet_name: 'S', key_column: 'a1', columns: { status: 'B' } }, 'key_column'],
      [{ spreadsheet_id: SID, sheet_name: 'S', key_column: 'A', columns: {} }, 'columns'],
      [{ spreadsheet_id: SID, sheet_name: 'S', key_column: 'A', columns: { colour: 'B' } }, 'unknown field colour'],
      [{ spreadsheet_id: SID, sheet_name: 'S', key_column: 'A', columns: { status: 'B' }, extra: 1 }, 'sheet_target'],
    ] as const;
    for (const [target, mention] of bad) {
      const res = await call(srv.url, 'POST', '/api/v1/verify/batch', {
        key,
        body: { policies: [{ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }], sheet_target: target },
      });
      expect(res.status, mention).toBe(400);
      expect(res.body.message, mention).toContain(mention);
    }
  });
});

describe('without a service account', () => {
  it('sheet targets and schedules are refused with a clear message', async () => {
    const plain = await startTestServer({ workers: false });
    try {
      const { key: k } = await plain.key({ mode: 'test' });
      const r = await call(plain.url, 'POST', '/api/v1/verify/async', {
        key: k,
        body: {
          policy_number: 'UKM-1000-0001',
          country: 'UK',
          insurance_type: 'motor',
          sheet_target: { spreadsheet_id: SID, sheet_name: 'S', key_column: 'A', columns: { status: 'B' } },
        },
      });
      expect(r.body).toMatchObject({ error: 'invalid_request', message: expect.stringContaining('no Google service account') });
      expect((await call(plain.url, 'GET', '/api/v1/sheets/service-account', { key: k })).status).toBe(503);
    } finally {
      await plain.close();
    }
  });
});
