/**
 * Two connector processes on one database and one Redis; a quota of N calls per second to
 * an upstream registry holds for the pair, not for each process.
 *
 * A fake upstream registry on loopback answers every lookup 404 (unverified) and records when each
 * call arrived. Both instances run with COVERCHECK_REGISTRY_PER_SEC=N and the same Redis prefix,
 * and clients hammer both with a fixed number of unknown UK policy numbers (each one goes to the
 * upstream), far more than N per second: however slow the machine, the load is that many requests.
 *
 * The bound, from bottleneck's reservoir in clustered mode (process_tick.lua, register.lua): the
 * reservoir holds at most N; a limiter script refills it to N when it runs with
 * `now >= lastRefresh + 1000` and sets lastRefresh = now, `now` being the calling instance's clock
 * when it sent the script. Refills therefore carry clock readings at least 1000 ms apart, and every
 * start is a grant out of the reservoir. All starts fall inside the load, [first request sent, last
 * answer received] of length L (a slot only calls the upstream for a lookup still waiting), so they
 * number at most N (the reservoir at the start) plus N per refill run in that time. A refill run in
 * it carries a reading in [start - h, end], h being how stale a reading is when Redis runs the
 * script (loopback: milliseconds; any h under a second gives the same count), so at most
 * ceil(L / 1000) + 1 of them: N * (ceil(L / 1000) + 2) starts in all. Two processes each with its own
 * reservoir would start about twice that (each N at the start and N per second), which the bound
 * refuses since the load asks for far more.
 *
 * The bound counts what the limiter grants, over an interval the clients measure, so it holds
 * however late calls reach the upstream. An earlier form bounded arrivals at the upstream in sliding
 * windows (2N per second); on a loaded CI machine one call of 23 reached the upstream after its
 * request's deadline had passed and a sliding second held 11 arrivals against N = 5. How late a
 * call arrives belongs to the network, not to the quota; the sliding counts are printed with any
 * failure.
 *
 * Backend: PostgreSQL (a fresh database); COVERCHECK_SCALE_BACKEND=sqlite runs the same on one
 * shared SQLite file.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';
import { sqliteBackend, startCluster, type Backend, type Cluster } from './cluster.js';

const N = 5;
/** Closed-loop clients per instance: each sends its next verification as soon as one is answered. */
const CLIENTS_PER_INSTANCE = 12;
/**
 * Verifications each client sends. Most wait out their one-second deadline in the limiter's queue, so
 * 24 clients ask about 24 a second and the 120 take about five seconds; the load still asks for more
 * than twice the bound (below) while a request takes under 1.8 s on average.
 */
const REQUESTS_PER_CLIENT = 5;

const arrivals: number[] = [];
const upstream = http.createServer((req, res) => {
  arrivals.push(Date.now());
  // Lookups are GET {base}/policies/{country}/{type}/{number} (verify/registry/http.ts).
  const ok = req.method === 'GET' && /^\/policies\/UK\/motor\/[^/]+$/.test(req.url ?? '');
  res.writeHead(ok ? 404 : 400, { 'content-type': 'application/json' }).end(ok ? '{"found":false}' : '{}');
});

let backend: Backend & { remove?: () => void };
let cluster: Cluster | undefined;

beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  backend =
    process.env.COVERCHECK_SCALE_BACKEND === 'sqlite'
      ? sqliteBackend()
      : { kind: 'postgres', databaseUrl: await createDatabase(inject('postgresUrl'), 'scale_quota') };
  cluster = await startCluster({
    instances: 2,
    backend,
    env: {
      COVERCHECK_REDIS_URL: inject('redisUrl'),
      COVERCHECK_REDIS_PREFIX: `quota_${crypto.randomBytes(6).toString('hex')}`,
      COVERCHECK_REGISTRY_UPSTREAMS: `UK=http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      COVERCHECK_REGISTRY_PER_SEC: String(N),
      COVERCHECK_REGISTRY_TIMEOUT_MS: '1000',
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '1000000',
    },
  });
}, 120_000);

afterAll(async () => {
  await cluster?.stop(2_000);
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  backend?.remove?.();
});

/** The most arrivals in any window [t, t + ms), t at an arrival (the maximum is always reached at one); printed, not bounded. */
function maxInWindow(times: number[], ms: number): number {
  let best = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (j < times.length && times[j]! < times[i]! + ms) j++;
    best = Math.max(best, j - i);
  }
  return best;
}

describe(`two instances, one Redis: COVERCHECK_REGISTRY_PER_SEC=${N}`, () => {
  it('the upstream sees at most the quota across both instances, and the quota is used', async () => {
    const c = cluster!;
    // A live key: a sandbox key never reaches an upstream (test/verify/sandbox.test.ts).
    const { key } = await c.createKey({ mode: 'live', credits: 1_000_000 });
    let seq = 0;
    const statuses = new Map<string, number>();
    const byInstance = [0, 0];
    const started = Date.now();
    const client = async (instance: number) => {
      for (let sent = 0; sent < REQUESTS_PER_CLIENT; sent++) {
        const n = seq++;
        const policy_number = `UKM-${String(5000 + Math.floor(n / 10_000)).padStart(4, '0')}-${String(n % 10_000).padStart(4, '0')}`;
        const r = await call(c.urls[instance]!, 'POST', '/api/v1/verify', {
          key,
          body: { policy_number, country: 'UK', insurance_type: 'motor' },
        });
        const outcome = r.status === 200 ? r.body.status : `http_${r.status}`;
        statuses.set(outcome, (statuses.get(outcome) ?? 0) + 1);
        if (r.status !== 200) throw new Error(`instance ${instance} answered ${r.status}: ${JSON.stringify(r.body)}`);
        if (r.body.status === 'unverified') byInstance[instance]!++;
      }
    };
    await Promise.all([0, 1].flatMap((i) => Array.from({ length: CLIENTS_PER_INSTANCE }, () => client(i))));
    // Every lookup has been answered: no start happens after this.
    const load = Date.now() - started;
    // Calls started before then have reached the upstream by now.
    await new Promise((r) => setTimeout(r, 500));

    const times = [...arrivals].sort((a, b) => a - b);
    const bound = N * (Math.ceil(load / 1000) + 2);
    const report = {
      n: times.length,
      load,
      bound,
      asked: seq,
      per1s: maxInWindow(times, 1000),
      per2s: maxInWindow(times, 2000),
      statuses: Object.fromEntries(statuses),
      byInstance,
    };
    const why = JSON.stringify(report);

    // The bound derived above.
    expect(times.length, why).toBeLessThanOrEqual(bound);
    // And the quota is used, not starved: of the 120 requests at most the bound are answered at once
    // and the others wait out their one-second deadline, which keeps 24 clients busy for over three
    // and a half seconds, so at least three refills were spent.
    expect(times.length, why).toBeGreaterThanOrEqual(3 * N);

    // The load could tell the difference: clients asked for more than twice what the quota allows
    // (enough to saturate a per-process limiter in each instance); the rest waited out its
    // deadline and was answered inconclusive, never an error.
    expect(seq, why).toBeGreaterThan(2 * bound);
    expect(statuses.get('inconclusive') ?? 0, why).toBeGreaterThan(0);
    // Upstream calls became results on both instances (a call answered just as its request's
    // deadline passed is reported inconclusive instead, hence the range: 3 of 25 on a loaded machine).
    expect(byInstance[0]! + byInstance[1]!, why).toBeLessThanOrEqual(times.length);
    expect(byInstance[0]! + byInstance[1]!, why).toBeGreaterThanOrEqual(Math.ceil(times.length * 0.8));
    expect(Math.min(...byInstance), why).toBeGreaterThan(0);
  });

  it('both instances stop cleanly on SIGTERM: no Redis or database client keeps them alive', async () => {
    const exits = await cluster!.stop(8_000);
    cluster = undefined;
    expect(exits).toEqual([
      { code: 0, signal: null, killed: false },
      { code: 0, signal: null, killed: false },
    ]);
  });
});
