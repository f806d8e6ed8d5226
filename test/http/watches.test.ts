/**
 * Watches through the real connector (docs/monitoring.md), on SQLite and, in the `postgres` project, on
 * PostgreSQL, with the clock moved rather than waited for: a watch over demo policies whose end dates
 * cross the expiry window reports exactly the policies that changed, run by run, once each to a webhook
 * receiver, an SMTP server and a Sheets stand-in; an insurer register import (the CLI, in a process of
 * its own) that de-authorises an insurer makes its watched policies due at once, and only those are
 * re-checked; a balance that runs out stops a run without going negative; another key can neither see
 * nor touch a watch; a watch of 10,000 policies fits the route's body bounds.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { ZWatchListSchema, ZWatchRunEventSchema, ZWatchSchema, type TWatch } from '../../shared/watches.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { importDemoNumbersAsReal } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const run = promisify(execFile);

/** The app's clock: the real time moved by `offset`. */
let offset = 0;
const now = () => new Date(Date.now() + offset);
const setClock = (iso: string) => (offset = Date.parse(iso) - Date.now());

let srv: TestServer;
let google: FakeGoogle;
let hooks: WebhookReceiver;
let smtp: SmtpInbox;

beforeAll(async () => {
  google = new FakeGoogle();
  await google.start();
  hooks = await startWebhookReceiver();
  smtp = await startSmtpInbox();
  srv = await startTestServer({
    now,
    env: {
      GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
      COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
      COVERCHECK_SMTP_URL: smtp.url,
      COVERCHECK_WATCH_RECHECK_INTERVAL_MS: '100',
      // The Sheets quotas spaced for a test, not for Google's 60 calls a minute.
      COVERCHECK_SHEETS_PER_MIN: '60000',
      COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '60000',
    },
  });
  // Live keys see real rows only: the demo numbers as an operator's extract, for the credit test.
  await importDemoNumbersAsReal(srv.store);
}, 60_000);

afterAll(async () => {
  await srv?.close();
  await hooks?.close();
  await google?.stop();
  await smtp?.close();
});

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until the watch's latest run is closed and is not `previous`; wakes the runner (the clock was moved, no poll is due). */
async function nextRun(key: string, id: string, previous: string | null): Promise<TWatch> {
  let w: TWatch | null = null;
  await waitFor(`a new run of ${id}`, async () => {
    srv.ctx.watches.notify();
    const r = await call<TWatch>(srv.url, 'GET', `/api/v1/watches/${id}`, { key });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    w = r.body;
    return !!w.last_run && w.last_run.run_id !== previous && w.last_run.status !== 'running';
  });
  return ZWatchSchema.parse(w);
}

async function emailKey(mode: 'live' | 'test', email: string, credits?: number) {
  const { key, record } = await createApiKey(srv.store, {
    mode,
    name: email,
    scopes: ['verify'],
    email,
    ...(credits !== undefined ? { credits } : {}),
  });
  return { key, id: record.id, secret: record.webhook_secret! };
}

const policy = (policy_number: string, country = 'UK', insurance_type = 'motor') => ({ policy_number, country, insurance_type });
const changed = (w: TWatch) =>
  w.last_run!.changes.map((c) => [c.policy_number, c.reasons]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

describe('a watch over demo policies whose end dates cross the window', () => {
  it('reports exactly the changed policies, run by run, once to the webhook, the e-mail and the sheet', async () => {
    setClock('2030-11-15T09:00:00Z');
    const k = await emailKey('test', 'ops@example.com');
    hooks.secret = k.secret;
    const SHEET = 'watch-sheet-000000001';
    const rows = ['UKM-1000-0001', 'UKM-1000-0004', 'UKT-2000-0001', 'KFZ-5441-000004', 'UKM-1000-0002'];
    google.sheet(SHEET, 'Policies', [['Policy', 'Status'], ...rows.map((r) => [r, ''])]);
    await bindOverHttp(srv.url, k.key, google, SHEET);

    const created = await call(srv.url, 'POST', '/api/v1/watches', {
      key: k.key,
      body: {
        policies: [
          policy('UKM-1000-0001'), // ends 2030-12-31
          policy('UKM-1000-0004'), // ends 2031-02-28
          policy('UKT-2000-0001', 'UK', 'travel'), // ends 2030-12-31
          policy('KFZ-5441-000004', 'DE'), // ends 2031-01-31
          policy('UKM-1000-0002'), // ended 2025-01-01: expired throughout
        ],
        cadence: 'daily',
        expiry_window_days: 30,
        report: {
          webhook_url: hooks.url,
          email: true,
          sheet_target: { spreadsheet_id: SHEET, sheet_name: 'Policies', key_column: 'A', columns: { status: 'B' } },
        },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const watch = ZWatchSchema.parse(created.body);
    expect(watch).toMatchObject({ status: 'active', policy_count: 5, projected_monthly_credits: 0, last_run: null });

    // The first run is the baseline: where each policy stands, nothing reported.
    const first = await nextRun(k.key, watch.watch_id, null);
    expect(first.last_run).toMatchObject({ trigger: 'schedule', status: 'complete', policies: 5, checked: 5, changed: 0, changes: [] });
    // A day after the run started (the test's clock runs on from the moment it was set).
    expect(Date.parse(first.next_run_at!) - Date.parse('2030-11-16T09:00:00Z')).toBeGreaterThanOrEqual(0);
    expect(Date.parse(first.next_run_at!) - Date.parse('2030-11-16T09:00:00Z')).toBeLessThan(60_000);

    // 25 days on: two policies' cover ends within 30 days.
    setClock('2030-12-10T09:00:00Z');
    const second = await nextRun(k.key, watch.watch_id, first.last_run!.run_id);
    expect(second.last_run).toMatchObject({ status: 'complete', checked: 5, changed: 2 });
    expect(changed(second)).toEqual([
      ['UKM-1000-0001', ['entering_expiry_window']],
      ['UKT-2000-0001', ['entering_expiry_window']],
    ]);

    // Its deliveries are out before the clock moves on (a delivery in flight across a jump of weeks would
    // see its lease run out and go again, as after a crash: at least once, the same webhook-id).
    await waitFor('the first webhook event', () => hooks.received.length >= 1);
    await waitFor('the first digest', () => smtp.mails.length >= 1);
    await waitFor('two lines in the Changes sheet', () => (google.spreadsheets.get(SHEET)?.get('Changes')?.length ?? 0) >= 3);

    // Past the end: those two expired (and their status changed with it); a third comes within the window.
    setClock('2031-01-05T09:00:00Z');
    const third = await nextRun(k.key, watch.watch_id, second.last_run!.run_id);
    expect(changed(third).map(([n, reasons]) => [n, (reasons as string[]).includes('newly_expired') || reasons])).toEqual([
      ['KFZ-5441-000004', ['entering_expiry_window']],
      ['UKM-1000-0001', true],
      ['UKT-2000-0001', true],
    ]);

    // Each run with changes went out once: a webhook event, a digest, the sheet; the baseline sent nothing.
    await waitFor('two webhook events', () => hooks.received.length >= 2);
    await waitFor('two digests', () => smtp.mails.length >= 2);
    await waitFor('five lines in the Changes sheet', () => (google.spreadsheets.get(SHEET)?.get('Changes')?.length ?? 0) >= 6);
    await new Promise((r) => setTimeout(r, 500)); // anything sent twice would have arrived by now
    srv.ctx.watches.notify();
    expect(hooks.received.map((h) => h.event.type)).toEqual(['watch.run.changed', 'watch.run.changed']);
    const events = hooks.received.map((h) => ZWatchRunEventSchema.parse(h.event.data));
    expect(events.map((e) => e.run.run_id)).toEqual([second.last_run!.run_id, third.last_run!.run_id]);
    expect(events.map((e) => e.changes.map((c) => c.policy_number).sort())).toEqual([
      ['UKM-1000-0001', 'UKT-2000-0001'],
      ['KFZ-5441-000004', 'UKM-1000-0001', 'UKT-2000-0001'],
    ]);
    expect(new Set(hooks.received.map((h) => h.id)).size).toBe(2);
    expect(smtp.mails.map((m) => m.to)).toEqual(['ops@example.com', 'ops@example.com']);
    expect(smtp.mails[0]!.raw).toMatch(/Subject: Covercheck: 2 changes among your 5 watched policies/);
    expect(smtp.mails[1]!.raw).toMatch(/KFZ-5441-000004/);
    const log = google.grid(SHEET, 'Changes');
    expect(log[0]).toEqual(['time', 'row', 'policy', 'before -> after', 'why', 'change id']);
    expect(log.slice(1).map((l) => [l[1], l[2]])).toEqual([
      ['2', 'UKM-1000-0001'],
      ['4', 'UKT-2000-0001'],
      ['2', 'UKM-1000-0001'],
      ['4', 'UKT-2000-0001'],
      ['5', 'KFZ-5441-000004'],
    ]);
    expect(new Set(log.slice(1).map((l) => l[5])).size).toBe(5);
    // Status cells updated in place, only on the rows that changed: the others were never written.
    const grid = google.grid(SHEET, 'Policies');
    expect(grid[1]![1]).toBe(third.last_run!.changes.find((c) => c.policy_number === 'UKM-1000-0001')!.after.status);
    expect(grid[2]![1]).toBe('');
    expect(grid[5]![1]).toBe('');

    expect((await call(srv.url, 'DELETE', `/api/v1/watches/${watch.watch_id}`, { key: k.key })).status).toBe(204);
    expect((await call(srv.url, 'GET', `/api/v1/watches/${watch.watch_id}`, { key: k.key })).status).toBe(404);
  });
});

describe('an insurer register import', () => {
  it("that de-authorises an insurer re-checks that insurer's watched policies at once, and only those", async () => {
    setClock('2030-11-15T09:00:00Z');
    const k = await emailKey('test', 'register@example.com');
    hooks.secret = k.secret;
    hooks.received.length = 0;
    const created = await call(srv.url, 'POST', '/api/v1/watches', {
      key: k.key,
      body: {
        policies: [policy('UKM-1000-0001'), policy('UKM-1000-0004'), policy('UKT-2000-0001', 'UK', 'travel')],
        cadence: 'weekly',
        report: { webhook_url: hooks.url },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.watch_id as string;
    const first = await nextRun(k.key, id, null);
    expect(first.last_run).toMatchObject({ status: 'complete', checked: 3, changed: 0 });

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-register-'));
    const importRegister = async (authorised: boolean) => {
      const file = path.join(dir, `demo-${authorised}.csv`);
      fs.writeFileSync(
        file,
        `reference,name,authorised,aliases\nDEMO-UK-0001,Albion Demo Motor Insurance Limited,${authorised},Albion Demo Motor\n`,
      );
      const cli = path.join(inject('connectorBuild'), 'cli', 'register-import.js');
      const where = srv.connector.config.databaseUrl ? [] : ['--db', srv.dbPath];
      const env = {
        ...process.env,
        ...(srv.connector.config.databaseUrl ? { COVERCHECK_DATABASE_URL: srv.connector.config.databaseUrl } : {}),
      };
      await run(process.execPath, [cli, '--format', 'demo', file, ...where], { env });
    };
    try {
      // In a process of its own, as an operator runs it: the connector learns of it from the store's version counter.
      await importRegister(false);
      const second = await nextRun(k.key, id, first.last_run!.run_id);
      expect(second.last_run).toMatchObject({ trigger: 'register_change', status: 'complete', policies: 1, checked: 1, changed: 1 });
      expect(second.last_run!.changes[0]).toMatchObject({
        policy_number: 'UKM-1000-0001',
        reasons: expect.arrayContaining(['insurer_not_authorised']),
      });
      // The cadence is untouched: the weekly run is still due a week after the first.
      expect(second.next_run_at).toBe(first.next_run_at);
      await waitFor('the re-check event', () => hooks.received.length >= 1);
      await new Promise((r) => setTimeout(r, 300));
      const events = hooks.received.map((h) => ZWatchRunEventSchema.parse(h.event.data)).filter((e) => e.watch_id === id);
      expect(events.map((e) => e.changes.map((c) => c.policy_number))).toEqual([['UKM-1000-0001']]);
    } finally {
      await call(srv.url, 'DELETE', `/api/v1/watches/${id}`, { key: k.key });
      await importRegister(true);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('credits', () => {
  it('a live key is charged like a batch, and a balance that runs out stops the run there, never below zero', async () => {
    setClock('2030-11-15T09:00:00Z');
    const k = await emailKey('live', 'credits@example.com', 2);
    const created = await call(srv.url, 'POST', '/api/v1/watches', {
      key: k.key,
      body: {
        policies: ['UKM-1000-0001', 'UKM-1000-0004', 'UKM-1000-0007', 'UKM-1000-0003', 'UKM-1000-0005'].map((n) => policy(n)),
        cadence: 'daily',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.projected_monthly_credits).toBe(5 * 31);
    const w = await nextRun(k.key, created.body.watch_id, null);
    expect(w.last_run).toMatchObject({ status: 'stopped', policies: 5, checked: 2, credits_charged: 2 });
    expect(w.last_run!.stop_reason).toMatch(/credits exhausted/);
    const key = (await srv.store.keys.get(k.id))!;
    expect(key.balance).toBe(0);
    const ledger = await srv.store.credits.ledger(k.id);
    expect(ledger.filter((e) => e.reason === 'reserve' || e.reason === 'refund').reduce((s, e) => s + e.delta, 0)).toBe(-2);
    await call(srv.url, 'DELETE', `/api/v1/watches/${created.body.watch_id}`, { key: k.key });
  });
});

describe('another key', () => {
  it('can neither see nor touch a watch: 404 as for an unknown id, and the watch stays as it was', async () => {
    setClock('2030-11-15T09:00:00Z');
    const owner = await emailKey('test', 'owner@example.com');
    const other = await emailKey('test', 'other@example.com');
    const created = await call(srv.url, 'POST', '/api/v1/watches', {
      key: owner.key,
      body: { policies: [policy('UKM-1000-0001')], cadence: 'weekly' },
    });
    const id = created.body.watch_id as string;
    for (const [method, p] of [
      ['GET', `/api/v1/watches/${id}`],
      ['POST', `/api/v1/watches/${id}/pause`],
      ['POST', `/api/v1/watches/${id}/resume`],
      ['DELETE', `/api/v1/watches/${id}`],
    ] as const) {
      const r = await call(srv.url, method, p, { key: other.key });
      expect(r.status, `${method} ${p}`).toBe(404);
      expect(ZErrorBodySchema.parse(r.body)).toMatchObject({ error: 'not_found' });
    }
    expect(ZWatchListSchema.parse((await call(srv.url, 'GET', '/api/v1/watches', { key: other.key })).body).watches).toEqual([]);
    const mine = await call(srv.url, 'GET', '/api/v1/watches', { key: owner.key });
    expect(mine.body.watches.map((w: TWatch) => [w.watch_id, w.status])).toEqual([[id, 'active']]);

    const paused = await call(srv.url, 'POST', `/api/v1/watches/${id}/pause`, { key: owner.key });
    expect(paused.body).toMatchObject({ status: 'paused', next_run_at: null });
    const resumed = await call(srv.url, 'POST', `/api/v1/watches/${id}/resume`, { key: owner.key });
    expect(resumed.body).toMatchObject({ status: 'active' });
    expect((await call(srv.url, 'DELETE', `/api/v1/watches/${id}`, { key: owner.key })).status).toBe(204);
  });
});

describe('POST /api/v1/watches', () => {
  it('with an Idempotency-Key, a repeat answers the same watch and makes no second one; another body is refused', async () => {
    const k = await emailKey('test', 'idem@example.com');
    const body = { policies: [policy('UKM-1000-0001')], cadence: 'weekly' };
    const headers = { 'idempotency-key': 'fleet-1' };
    const first = await call(srv.url, 'POST', '/api/v1/watches', { key: k.key, body, headers });
    const again = await call(srv.url, 'POST', '/api/v1/watches', { key: k.key, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.watch_id).toBe(first.body.watch_id);
    const other = await call(srv.url, 'POST', '/api/v1/watches', { key: k.key, body: { ...body, cadence: 'daily' }, headers });
    expect(other.status).toBe(422);
    expect((await call(srv.url, 'GET', '/api/v1/watches', { key: k.key })).body.watches).toHaveLength(1);
    await call(srv.url, 'DELETE', `/api/v1/watches/${first.body.watch_id}`, { key: k.key });
  });

  it('takes 10,000 policies in one body; refuses 10,001, a bad policy by its index, and e-mail without an address', async () => {
    const k = await emailKey('test', 'bulk@example.com');
    const { key: noEmail } = await srv.key({ mode: 'test' });
    const many = Array.from({ length: 10_000 }, (_, i) => ({
      policy_number: `UKM-9${String(i).padStart(3, '0')}-${String(i).padStart(4, '0')}`,
      country: 'United Kingdom',
      insurance_type: 'motor',
      provider: 'Albion Demo Motor Insurance Limited',
      end_date: '2031-01-31',
    }));
    const big = await call(srv.url, 'POST', '/api/v1/watches', { key: k.key, body: { policies: many, cadence: 'weekly' } });
    expect(big.status, JSON.stringify(big.body).slice(0, 300)).toBe(201);
    expect(big.body).toMatchObject({ policy_count: 10_000 });
    expect((await call(srv.url, 'DELETE', `/api/v1/watches/${big.body.watch_id}`, { key: k.key })).status).toBe(204);

    const tooMany = await call(srv.url, 'POST', '/api/v1/watches', {
      key: k.key,
      body: { policies: [...many, many[0]], cadence: 'weekly' },
    });
    expect(tooMany.status).toBe(400);
    const bad = await call(srv.url, 'POST', '/api/v1/watches', {
      key: k.key,
      body: { policies: [policy('UKM-1000-0001'), { ...policy('UKM-1000-0001'), country: 'ES' }], cadence: 'daily' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ error: 'unsupported_country', message: expect.stringMatching(/^policies\[1\]: /) });
    const mail = await call(srv.url, 'POST', '/api/v1/watches', {
      key: noEmail,
      body: { policies: [policy('UKM-1000-0001')], cadence: 'daily', report: { email: true } },
    });
    expect(mail.status).toBe(400);
    expect(mail.body.message).toMatch(/e-mail address/);
  });
});
