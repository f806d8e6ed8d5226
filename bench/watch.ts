/**
 * bench/watch: one run of a 10,000-policy watch on the production build (`npm start`'s
 * dist/connector/main.js, SQLite), against the same 10,000 policies sent through POST /verify/batch,
 * 100 per batch, all submitted at once (the per-key limits raised, as every bench does), in the same
 * run: the wall time of each as a client sees it (the request that starts it to the answer that shows
 * it done, polled every 20 ms), the credits charged, and the ratio watch / batch (target: ≤ 1).
 *
 * The policies are the demo registry's, imported as an operator's real extract (`registry:import`
 * without --demo) so that a live key, which is charged, sees them: verified, unverified and (FR health,
 * no registry coverage) inconclusive results in one run. Credits are checked exact against the spec
 * (1 for verified or unverified, 0 for inconclusive or an error): the key's balance, the run's count and
 * the results (the batches' items; the watch's result history) must agree, and both sides must give the
 * same results. Rounds alternate batch and watch, each on keys of its own; the median round is reported.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../connector/src/auth/create-key.js';
import { openStore } from '../connector/src/store/index.js';
import { parseRegistryCsv } from '../connector/src/verify/registry/import.js';
import { buildConnector, fmt, median, startConnectorBuild } from './lib.js';

const POLICIES = Number(process.env.BENCH_WATCH_POLICIES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_WATCH_ROUNDS ?? 3);
const BATCH = 100;
const POLL_MS = 20;
const CREDITS = 10_000_000;

type Policy = { policy_number: string; country: string; insurance_type: string };
type Status = 'verified' | 'unverified' | 'inconclusive' | 'error';
type Tally = Record<Status, number>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const tally = (): Tally => ({ verified: 0, unverified: 0, inconclusive: 0, error: 0 });
/** What the spec charges for a tally: 1 per verified or unverified result, 0 for inconclusive and errors. */
const specCredits = (t: Tally) => t.verified + t.unverified;
const show = (t: Tally) => `${t.verified} verified, ${t.unverified} unverified, ${t.inconclusive} inconclusive, ${t.error} errors`;

/** The demo registry file's policies, one not on it (unverified) and FR health (inconclusive), repeated to `n`. */
function policies(n: number, csv: string): Policy[] {
  const rows = csv
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(','))
    .map(([policy_number, country, insurance_type]) => ({
      policy_number: policy_number!,
      country: country!,
      insurance_type: insurance_type!,
    }));
  const all = [
    ...rows,
    { policy_number: 'UKM-9999-9999', country: 'UK', insurance_type: 'motor' },
    { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' },
  ];
  return Array.from({ length: n }, (_, i) => all[i % all.length]!);
}

async function api<T>(base: string, key: string, method: string, p: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}${p}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
}

const balance = async (base: string, key: string) =>
  (await api<{ credits: { balance: number } }>(base, key, 'GET', '/api/v1/account')).body.credits.balance;

interface Side {
  ms: number;
  credits: number;
  tally: Tally;
}

/** The policies as batches of 100, all submitted at once; done when the client has seen every batch complete. */
async function viaBatches(base: string, key: string, list: Policy[]): Promise<Side> {
  const before = await balance(base, key);
  const started = performance.now();
  const chunks = Array.from({ length: Math.ceil(list.length / BATCH) }, (_, i) => list.slice(i * BATCH, (i + 1) * BATCH));
  const ids = await Promise.all(
    chunks.map(async (policies) => {
      const r = await api<{ batch_id: string }>(base, key, 'POST', '/api/v1/verify/batch', { policies });
      if (r.status !== 202) throw new Error(`batch refused: ${r.status} ${JSON.stringify(r.body)}`);
      return r.body.batch_id;
    }),
  );
  type Item = { result?: { status: Status; credits_charged: number }; error?: unknown };
  const done: Item[][] = [];
  // Oldest first, one request at a time: the client's polling takes as little from the connector as the watch's does.
  for (const id of ids) {
    for (;;) {
      const b = await api<{ status: string; results: Item[] }>(base, key, 'GET', `/api/v1/batches/${id}`);
      if (b.body.status === 'complete') {
        done.push(b.body.results);
        break;
      }
      await sleep(POLL_MS);
    }
  }
  const ms = performance.now() - started;
  const t = tally();
  let charged = 0;
  for (const item of done.flat()) {
    t[item.result ? item.result.status : 'error']++;
    charged += item.result?.credits_charged ?? 0;
  }
  const credits = before - (await balance(base, key));
  if (credits !== charged || credits !== specCredits(t))
    throw new Error(`batches: balance moved by ${credits}, results say ${charged}, the spec ${specCredits(t)} (${show(t)})`);
  return { ms, credits, tally: t };
}

interface WatchView {
  watch_id: string;
  last_run: { status: string; started_at: string; finished_at: string | null; checked: number; credits_charged: number } | null;
}

/** The policies as one watch: created, its first run due at once; done when the client sees the run complete. */
async function viaWatch(base: string, key: string, list: Policy[]): Promise<Side & { runMs: number }> {
  const before = await balance(base, key);
  const started = performance.now();
  const created = await api<WatchView>(base, key, 'POST', '/api/v1/watches', { policies: list, cadence: 'weekly' });
  if (created.status !== 201) throw new Error(`watch refused: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.watch_id;
  let run: NonNullable<WatchView['last_run']>;
  for (;;) {
    const w = await api<WatchView>(base, key, 'GET', `/api/v1/watches/${id}`);
    if (w.body.last_run && w.body.last_run.status !== 'running') {
      run = w.body.last_run;
      break;
    }
    await sleep(POLL_MS);
  }
  const ms = performance.now() - started;
  if (run.status !== 'complete' || run.checked !== list.length) throw new Error(`watch run ended ${run.status}, ${run.checked} checked`);
  // The run's results as its key's history has them, page by page.
  const t = tally();
  let cursor: string | null = null;
  do {
    const q: string = `/api/v1/verifications?watch_id=${id}&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await api<{ verifications: { status: Status }[]; next_cursor: string | null }>(base, key, 'GET', q);
    for (const v of page.body.verifications) t[v.status]++;
    cursor = page.body.next_cursor;
  } while (cursor);
  // A policy the engine refuses has no history entry: the rest of the run's policies.
  t.error = list.length - (t.verified + t.unverified + t.inconclusive);
  const credits = before - (await balance(base, key));
  if (credits !== run.credits_charged || credits !== specCredits(t))
    throw new Error(`watch: balance moved by ${credits}, the run says ${run.credits_charged}, the spec ${specCredits(t)} (${show(t)})`);
  const runMs = Date.parse(run.finished_at!) - Date.parse(run.started_at);
  await api(base, key, 'DELETE', `/api/v1/watches/${id}`);
  return { ms, runMs, credits, tally: t };
}

export async function benchWatch(): Promise<Record<string, number>> {
  await buildConnector();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-watch-'));
  const db = path.join(dir, 'watch.db');
  const csv = fs.readFileSync('connector/data/registry/demo_policies.csv', 'utf8');
  // An operator's import of the demo rows as real ones (as `npm run registry:import` does), and live keys, before the start.
  const store = await openStore({ databasePath: db });
  const imported = parseRegistryCsv(csv, { source: 'bench-registry', demo: false, now: new Date().toISOString() });
  await store.registry.upsertMany(imported.rows);
  await store.registry.setCoverage(imported.coverage);
  const newKey = async (name: string) => (await createApiKey(store, { mode: 'live', name, scopes: ['verify'], credits: CREDITS })).key;
  const warm = await newKey('bench watch warm-up');
  const keys = [];
  for (let r = 0; r < ROUNDS; r++) keys.push({ batch: await newKey(`bench batch ${r}`), watch: await newKey(`bench watch ${r}`) });
  await store.close();

  const conn = await startConnectorBuild({ COVERCHECK_DB: db, COVERCHECK_EXTRACT_THREADS: '0' });
  try {
    const list = policies(POLICIES, csv);
    // Both paths once on a tenth of the policies, so neither round 1 pays for the other's first compile.
    await viaBatches(conn.url, warm, list.slice(0, POLICIES / 10));
    await viaWatch(conn.url, warm, list.slice(0, POLICIES / 10));
    const rounds: { batch: Side; watch: Side & { runMs: number } }[] = [];
    for (const k of keys) {
      const batch = await viaBatches(conn.url, k.batch, list);
      const watch = await viaWatch(conn.url, k.watch, list);
      if (JSON.stringify(batch.tally) !== JSON.stringify(watch.tally))
        throw new Error(`the same policies, other results: batches ${show(batch.tally)}; watch ${show(watch.tally)}`);
      rounds.push({ batch, watch });
    }
    const ratios = rounds.map((r) => r.watch.ms / r.batch.ms);
    const mid = rounds[ratios.indexOf(median(ratios))]!;
    console.log(
      `bench/watch (production build, SQLite, ${POLICIES} policies, live keys, ${os.availableParallelism()} cores shared by everything)`,
    );
    for (const [i, r] of rounds.entries())
      console.log(
        `  round ${i + 1}: batches ${fmt(r.batch.ms, 0)} ms (${fmt((POLICIES / r.batch.ms) * 1000, 0)} policies/s)   watch ${fmt(r.watch.ms, 0)} ms (run ${fmt(r.watch.runMs, 0)} ms, ${fmt((POLICIES / r.watch.ms) * 1000, 0)} policies/s)   watch / batch ${fmt(ratios[i]!, 2)}`,
      );
    console.log(`  results, each side: ${show(mid.watch.tally)}`);
    console.log(
      `  credits charged: batches ${mid.batch.credits}, watch ${mid.watch.credits} (the spec: ${specCredits(mid.watch.tally)}; balance, run and results agree)`,
    );
    console.log(`  watch / batch, median of ${ROUNDS} rounds: ${fmt(median(ratios), 2)} (target ≤ 1)`);
    return {
      batch_ms: mid.batch.ms,
      watch_ms: mid.watch.ms,
      watch_run_ms: mid.watch.runMs,
      watch_over_batch: median(ratios),
      credits: mid.watch.credits,
    };
  } finally {
    await conn.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
