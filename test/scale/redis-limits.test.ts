/**
 * Limits shared through Redis, with the pieces two instances would each build on their own: every
 * "instance" here has its own ioredis connection (connectRedis), and the two meet only in Redis.
 * Each shared assertion is one a per-process limiter would fail (twice the concurrency, no spacing
 * between instances, twice the reservoir, twice the budget, a form accepted twice).
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type Bottleneck from 'bottleneck';
import { createLogger } from '../../connector/src/logger.js';
import { connectRedis, createBudget, createLimiters, createSingleUse, type RedisHandle } from '../../connector/src/redis/index.js';
import { limitedRegistry, type RegistryAdapter } from '../../connector/src/verify/registry/index.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { createDatabase, freePort, startRedis } from '../helpers/services.js';
import { FormClient, shownKey } from '../portal/harness.js';

const redisUrl = inject('redisUrl');
const pgAdminUrl = inject('postgresUrl');
const logger = createLogger('silent');
/** A fresh key namespace per test: files and tests never see each other's limiter state. */
const freshPrefix = () => `t_${crypto.randomBytes(6).toString('hex')}`;

const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const o of opened.reverse()) await o.close();
});

async function instance(prefix: string, url = redisUrl): Promise<RedisHandle> {
  const h = await connectRedis({ url, prefix }, logger);
  if (!h) throw new Error('no handle');
  opened.push(h);
  return h;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `n` jobs on `limiter`, recording start times and the peak of jobs running at once in `probe`. */
function runJobs(
  limiter: Bottleneck,
  n: number,
  probe: { running: number; peak: number; starts: number[] },
  durationMs: number,
): Promise<unknown[]> {
  return Promise.all(
    Array.from({ length: n }, () =>
      limiter.schedule(async () => {
        probe.starts.push(Date.now());
        probe.running++;
        probe.peak = Math.max(probe.peak, probe.running);
        await sleep(durationMs);
        probe.running--;
      }),
    ),
  );
}

describe('clustered bottleneck limiters (two instances, one Redis)', () => {
  it('share maxConcurrent: 2 at once across both, not 2 each', async () => {
    const prefix = freshPrefix();
    const [a, b] = [createLimiters(await instance(prefix)), createLimiters(await instance(prefix))];
    expect(a.shared && b.shared).toBe(true);
    const la = a.limiter('conc', { maxConcurrent: 2 });
    const lb = b.limiter('conc', { maxConcurrent: 2 });
    const probe = { running: 0, peak: 0, starts: [] as number[] };
    await Promise.all([runJobs(la, 6, probe, 60), runJobs(lb, 6, probe, 60)]);
    expect(probe.starts).toHaveLength(12);
    expect(probe.peak).toBe(2);
  });

  it('share minTime: starts are spaced across both instances', async () => {
    const prefix = freshPrefix();
    const [a, b] = [createLimiters(await instance(prefix)), createLimiters(await instance(prefix))];
    const la = a.limiter('spacing', { minTime: 100 });
    const lb = b.limiter('spacing', { minTime: 100 });
    const probe = { running: 0, peak: 0, starts: [] as number[] };
    await Promise.all([runJobs(la, 3, probe, 1), runJobs(lb, 3, probe, 1)]);
    const starts = probe.starts.sort((x, y) => x - y);
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    // Redis hands out start times 100 ms apart; each instance's timer then fires late by a few ms, by
    // tens on a loaded machine (72 ms seen with the whole suite running). Limiters local to each
    // instance would start the two instances' jobs together, with gaps near 0.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(50);
  });

  it('share a reservoir: 5 starts per second between them, not 5 each', async () => {
    const prefix = freshPrefix();
    const [a, b] = [createLimiters(await instance(prefix)), createLimiters(await instance(prefix))];
    const quota = { amount: 5, intervalMs: 1000 };
    const la = a.limiter('quota', { quota });
    const lb = b.limiter('quota', { quota });
    await Promise.all([la.ready(), lb.ready()]);
    const t0 = Date.now();
    const probe = { running: 0, peak: 0, starts: [] as number[] };
    const all = Promise.all([runJobs(la, 8, probe, 1), runJobs(lb, 8, probe, 1)]);
    await sleep(600);
    // Refreshes are at least 1000 ms apart, so the first 600 ms hold one reservoir's worth at most.
    expect(probe.starts.length).toBe(5);
    await all;
    const starts = probe.starts.sort((x, y) => x - y);
    // 16 jobs at 5 a second take three refills after the first five. A refill starts the waiting jobs
    // at once, and refills are at least 1000 ms apart, so the first starts of consecutive refills are
    // too (less the few ms from a refill in Redis to the job's start in its instance).
    expect(starts[5]! - t0).toBeGreaterThanOrEqual(600);
    expect(starts[10]! - starts[5]!).toBeGreaterThanOrEqual(1000 - 30);
    expect(starts[15]! - starts[10]!).toBeGreaterThanOrEqual(1000 - 30);
  });

  it('the settings of the instance started last apply to all (updateSettings), without refilling the reservoir', async () => {
    const prefix = freshPrefix();
    const a = createLimiters(await instance(prefix)).limiter('settings', { maxConcurrent: 1, quota: { amount: 3, intervalMs: 60_000 } });
    await a.ready();
    await a.schedule(async () => undefined);
    expect(await a.currentReservoir()).toBe(2);
    const b = createLimiters(await instance(prefix)).limiter('settings', { maxConcurrent: 3, quota: { amount: 3, intervalMs: 60_000 } });
    await b.ready();
    await sleep(100); // updateSettings is one round trip after ready
    expect(await a.currentReservoir()).toBe(2);
    const probe = { running: 0, peak: 0, starts: [] as number[] };
    await runJobs(a, 2, probe, 60);
    expect(probe.peak).toBe(2);
  });

  it('groups: one limiter per key, shared per key across instances', async () => {
    const prefix = freshPrefix();
    const ga = createLimiters(await instance(prefix)).group('hosts', { maxConcurrent: 1 });
    const gb = createLimiters(await instance(prefix)).group('hosts', { maxConcurrent: 1 });
    const x = { running: 0, peak: 0, starts: [] as number[] };
    const y = { running: 0, peak: 0, starts: [] as number[] };
    await Promise.all([
      runJobs(ga.key('x.example'), 3, x, 40),
      runJobs(gb.key('x.example'), 3, x, 40),
      runJobs(gb.key('y.example'), 3, y, 40),
    ]);
    expect(x.peak).toBe(1);
    expect(y.peak).toBe(1);
    // Keys differ: y ran beside x, so y's first start came before x's last.
    expect(Math.min(...y.starts)).toBeLessThan(Math.max(...x.starts));
  });

  it('without Redis the factory makes plain local limiters', async () => {
    const local = createLimiters(null);
    expect(local.shared).toBe(false);
    expect(local.job(1000)).toEqual({});
    const probe = { running: 0, peak: 0, starts: [] as number[] };
    await Promise.all([
      runJobs(local.limiter('conc', { maxConcurrent: 2 }), 4, probe, 30),
      runJobs(createLimiters(null).limiter('conc', { maxConcurrent: 2 }), 4, probe, 30),
    ]);
    // Two processes' local limiters don't know each other: 2 + 2.
    expect(probe.peak).toBe(4);
  });
});

describe('Redis unavailable', () => {
  it('at start: a readable error naming the cause, instead of silently per-process limits', async () => {
    const port = await freePort();
    await expect(
      connectRedis({ url: `redis://127.0.0.1:${port}`, prefix: freshPrefix() }, logger, { connectTimeoutMs: 500 }),
    ).rejects.toThrow(new RegExp(`Redis at redis://127.0.0.1:${port} did not answer within 500 ms \\(.*ECONNREFUSED`));
  });

  it('later: an upstream lookup behind a shared limit is answered unavailable, and the upstream is not called', async () => {
    const own = await startRedis();
    let stopped = false;
    try {
      let calls = 0;
      const upstream: RegistryAdapter = {
        name: 'upstream-test',
        async lookup() {
          calls++;
          return { kind: 'not_found', source: 'upstream-test', demo: false };
        },
      };
      const limited = limitedRegistry(
        upstream,
        { maxConcurrent: 2, minTimeMs: 0, timeoutMs: 3_000, perSecond: 5 },
        createLimiters(await instance(freshPrefix(), own.url)),
      );
      const query = { policy_number: 'UKM10000001', country: 'UK', insurance_type: 'motor' } as const;
      expect(await limited.lookup(query, new AbortController().signal)).toMatchObject({ kind: 'not_found' });
      expect(calls).toBe(1);
      await own.stop();
      stopped = true;
      const started = Date.now();
      // Refused after the client's two reconnect attempts, well before the 3 s deadline.
      expect(await limited.lookup(query, new AbortController().signal)).toMatchObject({
        kind: 'unavailable',
        reason: expect.stringContaining('rate limiter unavailable'),
      });
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(calls).toBe(1);
    } finally {
      if (!stopped) await own.stop();
    }
  });
});

describe('inbound budgets and single-use ids through Redis', () => {
  it('a budget falls back to per-instance memory when Redis goes away, and never fails a request', async () => {
    const own = await startRedis();
    let stopped = false;
    try {
      const h = await instance(freshPrefix(), own.url);
      const budget = createBudget(h, { keyPrefix: 'k', points: 2, duration: 60 });
      await budget.consume('a');
      await own.stop();
      stopped = true;
      await sleep(100);
      expect(h.client.status).not.toBe('ready');
      // The in-memory insurance starts from zero: two more, then refused (a RateLimiterRes, not an Error).
      await budget.consume('a');
      await budget.consume('a');
      const refused = await budget.consume('a').then(
        () => null,
        (r: unknown) => r,
      );
      expect(refused).not.toBeInstanceOf(Error);
      expect(refused).toMatchObject({ remainingPoints: 0 });
    } finally {
      if (!stopped) await own.stop();
    }
  });

  it('single-use ids: the first claim wins across instances; a Redis failure falls back to this instance', async () => {
    const prefix = freshPrefix();
    const a = createSingleUse(await instance(prefix), 'forms');
    const b = createSingleUse(await instance(prefix), 'forms');
    const now = Date.now();
    expect(await a.claim('f1', now + 60_000, now)).toBe(true);
    expect(await b.claim('f1', now + 60_000, now)).toBe(false);
    expect(await a.claim('f1', now + 60_000, now)).toBe(false);
    expect(await b.claim('f2', now + 60_000, now)).toBe(true);

    const own = await startRedis();
    const c = createSingleUse(await instance(freshPrefix(), own.url), 'forms');
    expect(await c.claim('g1', now + 60_000, now)).toBe(true);
    await own.stop();
    // Redis gone: a new id is still accepted once, and refused after, by this instance's own record.
    expect(await c.claim('g2', now + 60_000, now)).toBe(true);
    expect(await c.claim('g2', now + 60_000, now)).toBe(false);
    expect(await c.claim('g1', now + 60_000, now)).toBe(false);
  });
});

describe('two app instances on one PostgreSQL database and one Redis', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  async function pair(env: Record<string, string>): Promise<[TestServer, TestServer]> {
    const databaseUrl = await createDatabase(pgAdminUrl, 'scale_rl');
    const shared = { COVERCHECK_REDIS_URL: redisUrl, COVERCHECK_REDIS_PREFIX: freshPrefix(), ...env };
    const a = await startTestServer({ databaseUrl, env: shared, workers: false });
    servers.push(a);
    const b = await startTestServer({ databaseUrl, env: shared, workers: false });
    servers.push(b);
    expect(a.ctx.limiters.shared && b.ctx.limiters.shared).toBe(true);
    return [a, b];
  }

  it('per key: the budget is counted once for both, so the 6th call of 5/min gets 429 with Retry-After', async () => {
    const [a, b] = await pair({ COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '5' });
    const { key } = await a.key({ mode: 'test' });
    const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await call(i % 2 ? b.url : a.url, 'POST', '/api/v1/verify', { key, body: policy }));
    // Each instance saw 3 calls: alone, neither would refuse any.
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
    const last = results[5]!;
    const retryAfter = Number(last.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: retryAfter });
    // The refusal holds on the other instance too.
    expect((await call(a.url, 'POST', '/api/v1/verify', { key, body: policy })).status).toBe(429);
  });

  it('per IP on unauthenticated routes: one budget for both', async () => {
    const [a, b] = await pair({ COVERCHECK_RATE_LIMIT_IP_PER_MIN: '3' });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(i % 2 ? b.url : a.url, 'GET', '/api/v1/openapi.json')).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });

  it('a portal form is used once across instances (a re-post to the other instance shows no key)', async () => {
    const [a, b] = await pair({ COVERCHECK_PORTAL_SECRET: 'p'.repeat(40) });
    const browser = new FormClient(a.url);
    await browser.get('/portal');
    const form = { csrf: browser.csrf, cookie: browser.cookie };
    const first = await browser.post('/portal/keys', { who: 'Ada', mode: 'test' }, form);
    expect(first.status).toBe(201);
    expect(shownKey(first.html)).not.toBeNull();
    const again = await new FormClient(b.url).post('/portal/keys', { who: 'Ada', mode: 'test' }, form);
    expect(again.status).toBe(403);
    expect(again.html).toContain('Already sent');
    expect(shownKey(again.html)).toBeNull();
  });

  it('control: without Redis the same re-post to the other instance is accepted (what the shared ids prevent)', async () => {
    const databaseUrl = await createDatabase(pgAdminUrl, 'scale_csrf');
    const env = { COVERCHECK_PORTAL_SECRET: 'p'.repeat(40) };
    const a = await startTestServer({ databaseUrl, env, workers: false });
    servers.push(a);
    const b = await startTestServer({ databaseUrl, env, workers: false });
    servers.push(b);
    const browser = new FormClient(a.url);
    await browser.get('/portal');
    const form = { csrf: browser.csrf, cookie: browser.cookie };
    expect((await browser.post('/portal/keys', { who: 'Ada', mode: 'test' }, form)).status).toBe(201);
    expect((await new FormClient(b.url).post('/portal/keys', { who: 'Ada', mode: 'test' }, form)).status).toBe(201);
  });
});

describe('an embedded deployment', () => {
  it('never loads ioredis without COVERCHECK_REDIS_URL (and does with it)', () => {
    // A fresh process builds the whole app; the CommonJS cache then shows which packages were loaded.
    const script = `
      import { createRequire } from 'node:module';
      import { loadConfig } from './connector/src/config.js';
      import { createLogger } from './connector/src/logger.js';
      import { startConnector } from './connector/src/start.js';
      const config = loadConfig({ COVERCHECK_DB: ':memory:', COVERCHECK_LOG_LEVEL: 'silent', ...JSON.parse(process.argv[1]) });
      const connector = await startConnector({ config, logger: createLogger('silent'), seed: false, extractionThreads: 0 });
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes('/node_modules/ioredis/'));
      await connector.stop();
      process.stdout.write(JSON.stringify({ loaded, shared: connector.ctx.limiters.shared }));
    `;
    const run = (env: Record<string, string>) =>
      JSON.parse(
        execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, JSON.stringify(env)], {
          encoding: 'utf8',
          timeout: 30_000,
        }),
      ) as { loaded: boolean; shared: boolean };
    expect(run({})).toEqual({ loaded: false, shared: false });
    expect(run({ COVERCHECK_REDIS_URL: redisUrl, COVERCHECK_REDIS_PREFIX: freshPrefix() })).toEqual({ loaded: true, shared: true });
  });
});
