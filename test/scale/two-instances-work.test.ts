/**
 * Two connector processes on one PostgreSQL database and one Redis.
 *
 * - 1,000 async jobs, submitted half to each instance, are each processed exactly once: every job
 *   completes after one lease, both instances' workers take a share, each job's credit is reserved
 *   once and settled once, and a webhook receiver (real HTTPS on loopback) gets exactly one signed
 *   delivery per job, whichever instance's outbox sent it.
 * - 200 concurrent sync verifications spread over both instances on a key with 50 credits charge
 *   exactly 50 and answer 402 to the other 150.
 *
 * COVERCHECK_SCALE_BACKEND=sqlite runs the same against one shared SQLite file.
 */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../connector/src/store/index.js';
import type { JobRecord, Store } from '../../connector/src/store/types.js';
import { call } from '../helpers/server.js';
import { createDatabase } from '../helpers/services.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { sqliteBackend, startCluster, type Backend, type Cluster } from './cluster.js';
import { importOperatorRegistry, OPERATOR_DE_MOTOR, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';

const JOBS = 1000;

let backend: Backend & { remove?: () => void };
let cluster: Cluster;
let store: Store;
let hooks: WebhookReceiver;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  backend =
    process.env.COVERCHECK_SCALE_BACKEND === 'sqlite'
      ? sqliteBackend()
      : { kind: 'postgres', databaseUrl: await createDatabase(inject('postgresUrl'), 'scale_work') };
  cluster = await startCluster({
    instances: 2,
    backend,
    env: {
      COVERCHECK_REDIS_URL: inject('redisUrl'),
      COVERCHECK_REDIS_PREFIX: `work_${crypto.randomBytes(6).toString('hex')}`,
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '1000000',
      COVERCHECK_RATE_LIMIT_IP_PER_MIN: '1000000',
      COVERCHECK_QUEUE_POLL_MS: '50',
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
      COVERCHECK_WEBHOOK_HOST_CONCURRENCY: '8',
    },
  });
  store = await openStore(
    backend.kind === 'postgres' ? { databasePath: '', databaseUrl: backend.databaseUrl, poolSize: 4 } : { databasePath: backend.path },
  );
  expect(store.kind).toBe(backend.kind);
  // Live keys are answered from real sources only: an operator's registry extract, shared by both instances.
  await importOperatorRegistry(store);
}, 120_000);

afterAll(async () => {
  await store?.close();
  const exits = await cluster?.stop();
  await hooks?.close();
  backend?.remove?.();
  // Both instances stopped by themselves on SIGTERM: no database or Redis client held them open.
  for (const e of exits ?? []) expect(e).toMatchObject({ code: 0, killed: false });
});

/** Runs `fn` over `items` with at most `limit` in flight. */
async function pool<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!, i);
      }
    }),
  );
  return out;
}

// Policies the operator's extract holds (verified, charged) and unknown numbers with its coverage (unverified,
// charged) and without it (inconclusive, refunded), so settlements differ per job.
const POLICIES = [
  OPERATOR_UK_MOTOR,
  OPERATOR_DE_MOTOR,
  { policy_number: 'UKO-1000-9999', country: 'UK', insurance_type: 'motor' },
  { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' },
];

describe('two instances on one database and one Redis', () => {
  it(`processes ${JOBS} async jobs exactly once, shared between both instances, one webhook each`, async () => {
    const { key, id: keyId } = await cluster.createKey({ mode: 'live', credits: 5000, scopes: ['verify'] });
    hooks.secret = (await store.keys.get(keyId))!.webhook_secret!;
    expect(hooks.secret).toMatch(/^whsec_/);

    const submitted = await pool(
      Array.from({ length: JOBS }, (_, i) => i),
      16,
      async (i) => {
        const r = await call(cluster.urls[i % 2]!, 'POST', '/api/v1/verify/async', {
          key,
          body: { ...POLICIES[i % POLICIES.length], webhook_url: hooks.url },
        });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        return r.body.job_id as string;
      },
    );
    expect(new Set(submitted).size).toBe(JOBS);

    // Wait for every job and every delivery.
    const deadline = Date.now() + 90_000;
    let jobs: JobRecord[] = [];
    for (;;) {
      jobs = (await pool(submitted, 8, (id) => store.jobs.get(id))) as JobRecord[];
      const done = jobs.filter((j) => j.status !== 'pending').length;
      if (done === JOBS && hooks.received.length >= JOBS) break;
      if (Date.now() > deadline) throw new Error(`after 90 s: ${done}/${JOBS} jobs finished, ${hooks.received.length} deliveries`);
      await new Promise((r) => setTimeout(r, 250));
    }
    // Anything sent twice would arrive within the delivery timeout; give it a moment.
    await new Promise((r) => setTimeout(r, 500));

    // Each job: complete, leased once, finished by one worker.
    expect(jobs.every((j) => j.status === 'complete')).toBe(true);
    expect(jobs.filter((j) => j.attempts !== 1).map((j) => [j.id, j.attempts])).toEqual([]);
    const byWorker = new Map<string, number>();
    for (const j of jobs) byWorker.set(j.finished_by!, (byWorker.get(j.finished_by!) ?? 0) + 1);
    // One WorkQueue per instance, so two distinct finishers, each with a real share of the work.
    expect(byWorker.size).toBe(2);
    for (const n of byWorker.values()) expect(n).toBeGreaterThan(JOBS / 10);

    // Credits: one reservation per job, at most one refund per job, and the balance adds up.
    const ledger = await store.credits.ledger(keyId);
    const reserves = ledger.filter((e) => e.reason === 'reserve');
    const refunds = ledger.filter((e) => e.reason === 'refund');
    expect(reserves).toHaveLength(JOBS);
    expect(new Set(reserves.map((e) => e.ref)).size).toBe(JOBS);
    expect(new Set(refunds.map((e) => e.ref)).size).toBe(refunds.length);
    const charged = jobs.reduce((s, j) => s + j.charged, 0);
    const statuses = jobs.map((j) => (JSON.parse(j.result!) as { status: string }).status);
    expect(charged).toBe(statuses.filter((s) => s === 'verified' || s === 'unverified').length);
    expect(refunds).toHaveLength(statuses.filter((s) => s === 'inconclusive').length);
    expect(refunds.length).toBeGreaterThan(0);
    expect((await store.keys.get(keyId))!.balance).toBe(5000 - charged);

    // Webhooks: exactly one signed delivery per job, one webhook-id each.
    const deliveries = hooks.received;
    expect(deliveries.every((d) => d.verified && d.status === 204 && d.event.type === 'job.completed')).toBe(true);
    expect(deliveries).toHaveLength(JOBS);
    expect(new Set(deliveries.map((d) => d.event.data.job_id))).toEqual(new Set(submitted));
    expect(new Set(deliveries.map((d) => d.id)).size).toBe(JOBS);
  }, 150_000);

  it('200 concurrent verifications over both instances on 50 credits charge exactly 50', async () => {
    const { key, id: keyId } = await cluster.createKey({ mode: 'live', credits: 50, scopes: ['verify'] });
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) => call(cluster.urls[i % 2]!, 'POST', '/api/v1/verify', { key, body: POLICIES[0] })),
    );
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    expect(ok).toHaveLength(50);
    expect(refused).toHaveLength(150);
    expect(ok.every((r) => r.body.status === 'verified' && r.body.credits_charged === 1)).toBe(true);
    expect(refused.every((r) => r.body.error === 'insufficient_credits')).toBe(true);
    // Both instances answered some of the 50: the charges really raced across processes.
    const okPerInstance = [0, 1].map((n) => results.filter((r, i) => i % 2 === n && r.status === 200).length);
    expect(okPerInstance.every((n) => n > 0)).toBe(true);
    expect((await store.keys.get(keyId))!.balance).toBe(0);
    const charges = (await store.credits.ledger(keyId)).filter((e) => e.reason === 'charge');
    expect(charges).toHaveLength(50);
    expect(charges.map((e) => e.balance_after).sort((a, b) => b - a)).toEqual(Array.from({ length: 50 }, (_, i) => 49 - i));
  }, 60_000);
});
