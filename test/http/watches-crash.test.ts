/**
 * A watch run killed with SIGKILL halfway (the built connector in a child process, on SQLite and, in the
 * `postgres` project, on PostgreSQL): a live key watches 3,000 policies of one insurer, an insurer register
 * import (the CLI) de-authorises it, the re-check run is killed once some of its chunks are committed, and
 * a new process carries the run on. Every policy's change is reported exactly once, in one webhook event
 * (signed), one e-mail digest and the sheet (status cells and one Changes line each), and the credits are
 * exact: one per result, the killed chunk's reservation used once, the balance what the runs say.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { parseRegisterFile } from '../../connector/src/insurers/index.js';
import { openStore } from '../../connector/src/store/index.js';
import { ZWatchRunEventSchema, ZWatchSchema, type TWatch } from '../../shared/watches.js';
import { startBuiltConnector, stopBuiltConnector, type BuiltConnector } from '../helpers/built-connector.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const run = promisify(execFile);
const N = 3_000;
const CREDITS = 10 * N;
const FRN = '9999991';
const SHEET = 'watch-crash-sheet-0001';
const numberOf = (i: number) => `UKC-2${String(Math.floor(i / 10_000)).padStart(3, '0')}-${String(i % 10_000).padStart(4, '0')}`;
const register = (status: string) =>
  `frn,name,trading_names,kind,lines,status,source_ref,notes\n${FRN},Crashtest Mutual Insurance Limited,,insurer,,${status},FCAAPI,test firm\n`;

let dir: string;
let databaseUrl: string | undefined;
let child: BuiltConnector | null = null;
let google: FakeGoogle;
let hooks: WebhookReceiver;
let smtp: SmtpInbox;
let env: Record<string, string>;
let key: { key: string; id: string; secret: string };

/** Reads the store as an operator would, beside the running process. */
async function query<T>(sql: string): Promise<T[]> {
  if (!databaseUrl) {
    const db = new Database(path.join(dir, 'covercheck.db'), { readonly: true });
    try {
      return db.prepare(sql).all() as T[];
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    return (await c.query(sql)).rows as T[];
  } finally {
    await c.end();
  }
}

async function waitFor(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000, everyMs = 50): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

async function watchOf(id: string): Promise<TWatch> {
  const r = await call<TWatch>(child!.url, 'GET', `/api/v1/watches/${id}`, { key: key.key });
  expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
  return ZWatchSchema.parse(r.body);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'covercheck-watch-crash-'));
  databaseUrl =
    process.env.COVERCHECK_TEST_BACKEND === 'postgres'
      ? await createDatabase(inject('postgresUrl'), 'watchcrash', inject('postgresMigrated'))
      : undefined;
  // The store as an operator leaves it before the start: the insurer, an extract of its policies, a live key.
  const store = await openStore({ databasePath: path.join(dir, 'covercheck.db'), databaseUrl, poolSize: 2 });
  const at = new Date().toISOString();
  await store.insurers.upsertMany(parseRegisterFile('uk-frn', register('Authorised'), at));
  await store.registry.upsertMany(
    Array.from({ length: N }, (_, i) => ({
      policy_number: numberOf(i).replace(/-/g, ''),
      country: 'UK' as const,
      insurance_type: 'motor' as const,
      insurer_reference: FRN,
      start_date: '2026-01-01',
      end_date: '2031-12-31',
      status: 'active' as const,
      vehicle_registration: null,
      source: 'operator-extract',
      demo: false,
    })),
  );
  await store.registry.setCoverage([{ country: 'UK', insurance_type: 'motor', source: 'operator-extract', demo: false, updated_at: at }]);
  const made = await createApiKey(store, { mode: 'live', name: 'crash', scopes: ['verify'], email: 'crash@example.com', credits: CREDITS });
  key = { key: made.key, id: made.record.id, secret: made.record.webhook_secret! };
  await store.close();

  google = new FakeGoogle();
  await google.start();
  google.sheet(SHEET, 'Policies', [['Policy', 'Status'], ...Array.from({ length: N }, (_, i) => [numberOf(i), ''])]);
  hooks = await startWebhookReceiver();
  hooks.secret = key.secret;
  smtp = await startSmtpInbox();
  env = {
    ...(databaseUrl ? { COVERCHECK_DATABASE_URL: databaseUrl } : {}),
    COVERCHECK_EXTRACT_THREADS: '0',
    COVERCHECK_QUEUE_POLL_MS: '50',
    GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
    COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
    COVERCHECK_SHEETS_PER_MIN: '60000',
    COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '60000',
    COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
    COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
    COVERCHECK_SMTP_URL: smtp.url,
    // A short lease, so the new process takes the dead one's run soon; small chunks, so the kill lands between commits.
    COVERCHECK_WATCH_LEASE_MS: '2000',
    COVERCHECK_WATCH_CHUNK: '50',
    COVERCHECK_WATCH_RECHECK_INTERVAL_MS: '200',
  };
  child = await startBuiltConnector({ dir, env });
}, 120_000);

afterAll(async () => {
  if (child) await stopBuiltConnector(child);
  await hooks?.close();
  await google?.stop();
  await smtp?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('a watch run killed with SIGKILL halfway', () => {
  it('is carried on by the next process: no change lost, none reported twice, credits exact', async () => {
    await bindOverHttp(child!.url, key.key, google, SHEET);
    const created = await call(child!.url, 'POST', '/api/v1/watches', {
      key: key.key,
      body: {
        policies: Array.from({ length: N }, (_, i) => ({ policy_number: numberOf(i), country: 'UK', insurance_type: 'motor' })),
        cadence: 'daily',
        report: {
          webhook_url: hooks.url,
          email: true,
          sheet_target: { spreadsheet_id: SHEET, sheet_name: 'Policies', key_column: 'A', columns: { status: 'B' } },
        },
      },
    });
    expect(created.status, JSON.stringify(created.body).slice(0, 300)).toBe(201);
    const id = created.body.watch_id as string;
    let baseline: TWatch | null = null;
    await waitFor('the baseline run', async () => (baseline = await watchOf(id)).last_run?.status === 'complete');
    expect(baseline!.last_run).toMatchObject({ checked: N, changed: 0, credits_charged: N });

    // The insurer loses its authorisation, imported by the CLI in a process of its own.
    const file = path.join(dir, 'deauthorised.csv');
    fs.writeFileSync(file, register('No longer authorised'));
    const cli = path.join(inject('connectorBuild'), 'cli', 'register-import.js');
    await run(process.execPath, [cli, '--format', 'uk-frn', file, ...(databaseUrl ? [] : ['--db', path.join(dir, 'covercheck.db')])], {
      env: { ...process.env, ...(databaseUrl ? { COVERCHECK_DATABASE_URL: databaseUrl } : {}) },
    });

    // Killed once some chunks of the re-check are committed and the next one's credits are reserved, its policies in
    // hand. The process is stopped (SIGSTOP) to read the store as it will be left: a chunk that committed meanwhile
    // lets it go on, to be caught at the next one.
    const state = async () =>
      (
        await query<{ checked: number; status: string; reserved: number }>(
          "SELECT checked, status, (SELECT count(*) FROM watch_items WHERE reserved > 0) AS reserved FROM watch_runs WHERE trigger_kind = 'register_change'",
        )
      ).map((r) => ({ checked: Number(r.checked), status: r.status, reserved: Number(r.reserved) }))[0];
    const caught = (s: Awaited<ReturnType<typeof state>>) => !!s && s.checked > 0 && s.checked < N && s.reserved > 0;
    for (;;) {
      await waitFor('the re-check under way', async () => caught(await state()), 60_000, 2);
      child!.proc.kill('SIGSTOP');
      if (caught(await state())) break;
      child!.proc.kill('SIGCONT');
    }
    child!.proc.kill('SIGKILL');
    await new Promise((r) => child!.proc.once('exit', r));
    expect(await state()).toMatchObject({ status: 'running' });

    child = await startBuiltConnector({ dir, env });
    let after: TWatch | null = null;
    await waitFor('the re-check carried on to its end', async () => {
      after = await watchOf(id);
      return after.last_run?.trigger === 'register_change' && after.last_run.status === 'complete';
    });
    const recheck = after!.last_run!;
    expect(recheck).toMatchObject({ policies: N, checked: N, changed: N, credits_charged: N });

    // One webhook event, signed, with every policy once; one digest; one Changes line per policy, status cells written.
    await waitFor('the webhook event', () => hooks.received.length >= 1);
    await waitFor('the digest', () => smtp.mails.length >= 1);
    await waitFor('every Changes line', () => (google.spreadsheets.get(SHEET)?.get('Changes')?.length ?? 0) >= N + 1);
    await new Promise((r) => setTimeout(r, 1_000)); // anything sent twice would have arrived by now
    expect(hooks.received).toHaveLength(1);
    expect(hooks.received[0]).toMatchObject({ verified: true, event: { type: 'watch.run.changed' } });
    const event = ZWatchRunEventSchema.parse(hooks.received[0]!.event.data);
    expect(event.run.run_id).toBe(recheck.run_id);
    expect(event.changes.map((c) => c.index)).toEqual(Array.from({ length: N }, (_, i) => i));
    expect(new Set(event.changes.flatMap((c) => c.reasons))).toContain('insurer_not_authorised');
    expect(smtp.mails).toHaveLength(1);
    expect(smtp.mails[0]!.raw).toMatch(new RegExp(`Subject: Covercheck: ${N.toLocaleString('en').replace(',', ',?')} changes`));
    const log = google.grid(SHEET, 'Changes').slice(1);
    expect(log).toHaveLength(N);
    expect(new Set(log.map((l) => l[5])).size).toBe(N);
    expect(new Set(log.map((l) => l[2])).size).toBe(N);
    const statuses = new Set(
      google
        .grid(SHEET, 'Policies')
        .slice(1)
        .map((r) => r[1]),
    );
    expect([...statuses]).toEqual([event.changes[0]!.after.status]);

    // Credits: one per result of each run, the killed chunk's reservation used once, nothing left reserved.
    const [balance] = await query<{ balance: number }>(`SELECT balance FROM api_keys WHERE id = '${key.id}'`);
    expect(Number(balance!.balance)).toBe(CREDITS - baseline!.last_run!.credits_charged - recheck.credits_charged);
    const [held] = await query<{ n: number }>(
      `SELECT count(*) AS n FROM watch_items WHERE watch_id = '${id}' AND (reserved > 0 OR run_id IS NOT NULL)`,
    );
    expect(Number(held!.n)).toBe(0);
  }, 180_000);
});
