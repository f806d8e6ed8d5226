/**
 * The connector under fuzz, in its own process so that its event loop is measured alone (the test
 * process is busy building requests) and so that a crash ends this process, not the test.
 *
 * Starts the Sheets API stand-in and the real connector (SQLite, workers on, webhook SSRF guard on
 * with a table-driven DNS), makes keys and a few resources to aim at, and watches its own event
 * loop (stall-monitor.ts). Talks to the test over IPC:
 *   -> {type: 'ready', url, pid, keys, ids, routes}   once listening
 *   -> {type: 'stall', stall}                          whenever the loop was blocked
 *   <- {type: 'report'}  -> {type: 'report', report}
 *   <- {type: 'books', since}  -> {type: 'books', books}   the watches and the ledger rows after `since` (books.ts)
 * Exits on SIGTERM or when the IPC channel closes. argv[2]: JSON ChildSpec (harness.ts): extraction and
 * its host, a PostgreSQL database instead of SQLite, more environment (Redis, limits).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Express } from 'express';
import pg from 'pg';
import { createApp } from '../../connector/src/app.js';
import { createPortal } from '../../connector/src/portal/app.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { startTestServer } from '../helpers/server.js';
import type { Books, KeyIds, LedgerRow, WatchRow } from './books.js';
import type { ChildSpec } from './harness.js';
import { startStallMonitor } from './stall-monitor.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as ChildSpec;
const send = (msg: unknown) => process.send!(msg);

// Started first, so that the server's own start-up (loading reference data, OCR models) is not
// mistaken for a stall under fuzz: the monitor's findings are only read while requests run.
const google = new FakeGoogle();
await google.start();
google.sheet('fuzz-sheet', 'Results');
const outbox = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-fuzz-mail-'));

/** Webhook hosts the fuzz may name: one public, one resolving to a private address; the rest do not resolve. */
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'internal.example.com': ['10.0.0.7'],
  'mapped.example.com': ['::ffff:7f00:1'],
};
const lookup = async (host: string) => {
  const addresses = DNS[host];
  if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const srv = await startTestServer({
  extraction: !!spec.extraction,
  ...(spec.extractionHost ? { extractionHost: spec.extractionHost } : {}),
  ...(spec.databaseUrl ? { databaseUrl: spec.databaseUrl } : {}),
  lookup,
  env: {
    GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
    COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
    COVERCHECK_SHEETS_PER_MIN: '60000',
    COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '60000',
    COVERCHECK_MAIL_OUTBOX: outbox,
    COVERCHECK_PORTAL_PER_IP_PER_HOUR: '100000',
    COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY: '100000',
    // Webhooks to the one public test address go nowhere here: fail fast, retry slowly.
    COVERCHECK_WEBHOOK_TIMEOUT_MS: '300',
    ...spec.env,
  },
});

const made = {
  live: await srv.key({ mode: 'live', credits: 1_000_000, name: 'fuzz live' }),
  test: await srv.key({ mode: 'test', name: 'fuzz test' }),
  verifyOnly: await srv.key({ mode: 'test', scopes: ['verify'], name: 'fuzz verify-only' }),
  other: await srv.key({ mode: 'test', name: 'fuzz other tenant' }),
};
const keys = { live: made.live.key, test: made.test.key, verifyOnly: made.verifyOnly.key, other: made.other.key, revoked: '' };
const keyIds: KeyIds = { live: made.live.id, test: made.test.id, verifyOnly: made.verifyOnly.id, other: made.other.id };
/** Live keys of their own for a run that submits many documents at once, each key under its bound of documents waiting. */
const spare = await Promise.all(
  Array.from(
    { length: spec.spareKeys ?? 0 },
    async (_, i) => (await srv.key({ mode: 'live', credits: 100_000, name: `fuzz spare ${i}` })).key,
  ),
);
const revoked = await srv.key({ mode: 'test', name: 'fuzz revoked' });
await srv.store.keys.revoke(revoked.id, new Date().toISOString());
keys.revoked = revoked.key;

/** Resources to aim the GET and DELETE routes at: the test key's own, and another tenant's. */
async function post(pathname: string, key: string, body: unknown): Promise<Record<string, string>> {
  const res = await fetch(`${srv.url}${pathname}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status >= 300) throw new Error(`seeding ${pathname}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, string>;
}
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
const datasets = (await (await fetch(`${srv.url}/api/v1/datasets?limit=1`)).json()) as { datasets: { slug: string }[] };
const dataset = datasets.datasets[0]?.slug ?? 'none';
// A key writes into a spreadsheet only once an editor bound it (docs/sheets-binding.md): bind
// fuzz-sheet to the test key as the add-on would, so the schedule routes are reachable.
const binding = await post('/api/v1/sheets/bindings', keys.test, { spreadsheet_id: 'fuzz-sheet' });
google.addDeveloperMetadata('fuzz-sheet', { key: binding.metadata_key!, value: binding.metadata_value!, visibility: 'DOCUMENT' });
await post(`/api/v1/sheets/bindings/${binding.binding_id}/verify`, keys.test, {});
const ids = {
  binding: binding.binding_id!,
  job: (await post('/api/v1/verify/async', keys.test, policy)).job_id!,
  otherJob: (await post('/api/v1/verify/async', keys.other, policy)).job_id!,
  batch: (await post('/api/v1/verify/batch', keys.test, { policies: [policy, { ...policy, policy_number: 'X' }] })).batch_id!,
  schedule: (
    await post('/api/v1/sheets/schedules', keys.test, { dataset, spreadsheet_id: 'fuzz-sheet', sheet_name: 'Results', cadence: 'daily' })
  ).schedule_id!,
  dataset,
  // The test key's watches (one its pause and resume aim at, one its DELETE does) and another tenant's.
  watch: (await post('/api/v1/watches', keys.test, { policies: [policy], cadence: 'daily' })).watch_id!,
  watchToDelete: (await post('/api/v1/watches', keys.test, { policies: [policy], cadence: 'weekly' })).watch_id!,
  otherWatch: (await post('/api/v1/watches', keys.other, { policies: [policy], cadence: 'daily' })).watch_id!,
};

/**
 * The books (books.ts) read from the database on a connection of their own, as an operator's query
 * would: what the store committed, whatever the connector's caches say.
 */
const booksDb = spec.databaseUrl ? new pg.Client({ connectionString: spec.databaseUrl }) : new Database(srv.dbPath, { readonly: true });
if (booksDb instanceof pg.Client) await booksDb.connect();
const WATCH_COLUMNS =
  'id, key_id, paused_at, cadence, expiry_window_days, webhook_url, email_to, sheet_target, notify_unchanged, policy_count, created_at';
/** Rows as plain values alike on both backends: times as ISO strings, booleans and bigints as numbers. */
const plain = (row: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      v instanceof Date
        ? v.toISOString()
        : typeof v === 'boolean'
          ? Number(v)
          : k === 'id' && typeof v === 'string' && /^\d+$/.test(v)
            ? Number(v)
            : v,
    ]),
  );
async function rows(sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  let n = 0;
  if (booksDb instanceof pg.Client)
    return (
      await booksDb.query(
        sql.replace(/\?/g, () => `$${++n}`),
        params,
      )
    ).rows.map(plain);
  return (booksDb.prepare(sql).all(...params) as Record<string, unknown>[]).map(plain);
}
async function books(since: number | null): Promise<Books> {
  const last = Number((await rows('SELECT coalesce(max(id), 0) AS n FROM credit_ledger'))[0]!.n);
  return {
    watches: (await rows(`SELECT ${WATCH_COLUMNS} FROM watches ORDER BY id`)) as unknown as WatchRow[],
    ledger:
      since === null
        ? []
        : ((await rows('SELECT id, key_id, delta, reason, ref FROM credit_ledger WHERE id > ? ORDER BY id', [
            since,
          ])) as unknown as LedgerRow[]),
    lastLedgerId: last,
  };
}

/** Every route the app serves, as "METHOD /path", read from the routers rather than listed by hand. */
function routesOf(app: Express, prefix = ''): string[] {
  const out: string[] = [];
  for (const layer of (
    app as unknown as {
      router: { stack: { route?: { path: string; methods: Record<string, boolean> }; name: string; rawPath?: string }[] };
    }
  ).router.stack) {
    if (layer.route) for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${prefix}${layer.route.path}`);
    else if (layer.name === 'mounted_app') {
      // The one sub-app is the portal (app.ts); a second one would show up here unnamed.
      out.push(
        ...(layer.rawPath === '/portal'
          ? routesOf(createPortal({ ...srv.ctx, config: srv.ctx.config.portal }), '/portal')
          : [`MOUNT ${layer.rawPath}`]),
      );
    }
  }
  return out;
}

const monitor = startStallMonitor({ onStall: (stall) => send({ type: 'stall', stall }) });
send({ type: 'ready', url: srv.url, pid: process.pid, keys, keyIds, spare, ids, routes: routesOf(createApp(srv.ctx)) });

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  monitor.stop();
  if (booksDb instanceof pg.Client) await booksDb.end();
  else booksDb.close();
  await srv.close();
  await google.stop();
  fs.rmSync(outbox, { recursive: true, force: true });
  process.exit(0);
};
process.on('message', (msg: { type?: string; since?: number | null }) => {
  if (msg?.type === 'report') send({ type: 'report', report: monitor.report() });
  if (msg?.type === 'books')
    books(msg.since ?? null).then(
      (b) => send({ type: 'books', books: b }),
      (err: Error) => send({ type: 'books', error: err.message }),
    );
});
process.on('SIGTERM', () => void stop());
process.on('disconnect', () => void stop());
