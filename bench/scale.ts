/**
 * bench/scale: sync verify throughput of the production build (`npm start`'s
 * dist/connector/main.js) on one and on two instances sharing one PostgreSQL (and one Redis, as
 * deployed), beside one instance on its embedded SQLite file, in one run.
 *
 * Every instance gets its own live key and its own autocannon stream (10 connections); the rates
 * of simultaneous streams are summed. PostgreSQL runs with its durable defaults (fsync on), as a
 * deployment would. On this 2-core machine the load generator, PostgreSQL, Redis and the
 * instances share the cores, so the two-instance row shows what the database and Redis add,
 * not what a second machine would; the CPU-busy column (whole machine, /proc/stat) shows when the
 * cores, not the database, set the figure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../connector/src/auth/create-key.js';
import { openStore, type StoreOptions } from '../connector/src/store/index.js';
import { createDatabase, startPostgres, startRedis } from '../test/helpers/services.js';
import { buildConnector, drive, fmt, startConnectorBuild, type BuiltConnector, type Measured } from './lib.js';

/** One instance of the production build on the given store (no sandbox key: keys are made per scenario). */
function startInstance(env: Record<string, string>): Promise<BuiltConnector> {
  return startConnectorBuild({ COVERCHECK_DEMO: 'false', COVERCHECK_EXTRACT_THREADS: '0', ...env });
}

/** Whole-machine CPU counters (/proc/stat): whether a run was bound by the cores rather than by waiting. */
function cpuTimes(): { idle: number; total: number } {
  const fields = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { idle: fields[3]! + (fields[4] ?? 0), total: fields.reduce((a, b) => a + b, 0) };
}

const BODY = JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' });

async function scenario(label: string, storeOpts: StoreOptions, instances: number, env: Record<string, string>, durationS: number) {
  // The first instance migrates and seeds; the others start after it, as a rolling deploy would.
  const started: BuiltConnector[] = [await startInstance(env)];
  try {
    for (let i = 1; i < instances; i++) started.push(await startInstance(env));
    const store = await openStore(storeOpts);
    const keys = await Promise.all(
      started.map((_, i) => createApiKey(store, { mode: 'live', name: `bench ${label} ${i}`, scopes: ['verify'], credits: 10_000_000 })),
    );
    await store.close();
    const load = (i: number, d: number) => ({
      url: `${started[i]!.url}/api/v1/verify`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${keys[i]!.key}`, 'content-type': 'application/json' },
      body: BODY,
      durationS: d,
    });
    await Promise.all(started.map((_, i) => drive(load(i, 2))));
    const before = cpuTimes();
    const runs: Measured[] = await Promise.all(started.map((_, i) => drive(load(i, durationS))));
    const after = cpuTimes();
    return {
      cpuBusy: 1 - (after.idle - before.idle) / (after.total - before.total),
      label,
      rps: runs.reduce((s, r) => s + r.rps, 0),
      p50: Math.max(...runs.map((r) => r.p50)),
      p99: Math.max(...runs.map((r) => r.p99)),
      non2xx: runs.reduce((s, r) => s + r.non2xx + r.errors, 0),
    };
  } finally {
    await Promise.all(started.map((s) => s.stop()));
  }
}

export async function benchScale(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const durationS = opts.durationS ?? 8;
  await buildConnector();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-scale-'));
  const [pg, redis] = await Promise.all([startPostgres({ durable: true }), startRedis()]);
  try {
    const sqlitePath = path.join(dir, 'scale.db');
    const rows = [];
    rows.push(await scenario('SQLite, 1 instance', { databasePath: sqlitePath }, 1, { COVERCHECK_DB: sqlitePath }, durationS));
    const pg1 = await createDatabase(pg.url, 'scale1');
    rows.push(
      await scenario('PostgreSQL, 1 instance', { databasePath: '', databaseUrl: pg1 }, 1, { COVERCHECK_DATABASE_URL: pg1 }, durationS),
    );
    const pg1r = await createDatabase(pg.url, 'scale1r');
    const redisEnv = { COVERCHECK_REDIS_URL: redis.url, COVERCHECK_REDIS_PREFIX: 'bench1' };
    rows.push(
      await scenario(
        'PostgreSQL + Redis, 1 instance',
        { databasePath: '', databaseUrl: pg1r },
        1,
        { COVERCHECK_DATABASE_URL: pg1r, ...redisEnv },
        durationS,
      ),
    );
    const pg2 = await createDatabase(pg.url, 'scale2');
    rows.push(
      await scenario(
        'PostgreSQL + Redis, 2 instances',
        { databasePath: '', databaseUrl: pg2 },
        2,
        { COVERCHECK_DATABASE_URL: pg2, ...redisEnv, COVERCHECK_REDIS_PREFIX: 'bench2' },
        durationS,
      ),
    );
    const base = rows[0]!.rps;
    console.log(
      `bench/scale (production build, POST /api/v1/verify with a live key charged each call, 10 connections per instance, ${os.availableParallelism()} cores shared by everything)`,
    );
    for (const r of rows) {
      console.log(
        `  ${r.label.padEnd(34)} ${fmt(r.rps, 0).padStart(7)} req/s   x${fmt(r.rps / base, 2)} of SQLite   p50 ${r.p50} ms   p99 ${r.p99} ms   CPU busy ${fmt(r.cpuBusy * 100, 0)}%${r.non2xx ? `   NON-2XX ${r.non2xx}: figures invalid` : ''}`,
      );
    }
    return Object.fromEntries(rows.map((r) => [r.label, r.rps]));
  } finally {
    await Promise.all([pg.stop(), redis.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
