import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { MAX_JOB_ATTEMPTS, WorkQueue } from '../../connector/src/jobs/queue.js';
import { submitAsyncVerification, submitBatch } from '../../connector/src/jobs/submit.js';
import { createLogger } from '../../connector/src/logger.js';
import { seedReferenceData } from '../../connector/src/demo/seed.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import type { ApiKeyRecord, Store } from '../../connector/src/store/types.js';
import { ReferenceDataCache } from '../../connector/src/verify/reference-data.js';
import type { RegistryChain } from '../../connector/src/verify/registry/index.js';
import { buildRegistryChain } from '../../connector/src/verify/registry/index.js';
import { importOperatorRegistry, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

let store: Store;
let clock: number;
let key: ApiKeyRecord;
const now = () => new Date(clock);
// A live key's job: verified from an operator's registry extract (live keys never see demo rows).
const policy = { ...OPERATOR_UK_MOTOR };

function queue(registry?: Pick<RegistryChain, 'lookup'>) {
  const engine = {
    reference: new ReferenceDataCache(store),
    registry: registry ?? buildRegistryChain(store.registry, {}, { maxConcurrent: 1, minTimeMs: 0, timeoutMs: 1000 }),
    now,
  };
  return new WorkQueue(
    { store, engine, logger: createLogger('silent'), now },
    { workers: 1, batchConcurrency: 4, leaseMs: 10_000, pollMs: 10 },
  );
}

const deps = () => ({
  store,
  allowPrivateWebhooks: true,
  lookup: async () => [{ address: '203.0.113.10', family: 4 }],
  now,
  notify: () => {},
});

beforeEach(async () => {
  store = openTempStore('queue').store;
  await seedReferenceData(store, shippedDataDir(), new Date());
  await importOperatorRegistry(store);
  clock = Date.parse('2026-11-22T10:00:00Z');
  key = (await createApiKey(store, { mode: 'live', name: 'q', scopes: ['verify'], credits: 10, now: now() })).record;
});
afterEach(closeTempStores);

describe('WorkQueue', () => {
  it('takes over a job whose lease expired; the first holder can no longer finish it', async () => {
    const sub = await submitAsyncVerification(policy, key, deps());
    const jobId = sub.job_id;
    const stale = await store.jobs.lease('dead-worker', now().toISOString(), new Date(clock + 1000).toISOString());
    expect(stale?.id).toBe(jobId);
    const q = queue();
    expect(await q.tick()).toBe(false); // still leased
    clock += 1500;
    expect(await q.tick()).toBe(true);
    const job = (await store.jobs.get(jobId))!;
    expect(job.status).toBe('complete');
    expect(job.attempts).toBe(2);
    const late = await store.jobs.finish({
      id: jobId,
      owner: 'dead-worker',
      status: 'complete',
      result: '{}',
      error: null,
      settlement: { charge: 0, refund: 1, ref: 'late' },
      outbox: null,
      at: now().toISOString(),
    });
    expect(late).toBe(false);
    expect((await store.credits.ledger(key.id)).filter((e) => e.reason === 'refund')).toHaveLength(0);
  });

  it('complete is final: a second finish by the same owner changes nothing', async () => {
    const sub = await submitAsyncVerification(policy, key, deps());
    const jobId = sub.job_id;
    await queue().tick();
    const again = await store.jobs.finish({
      id: jobId,
      owner: 'anyone',
      status: 'failed',
      result: null,
      error: '{}',
      settlement: { charge: 0, refund: 1, ref: 'x' },
      outbox: null,
      at: now().toISOString(),
    });
    expect(again).toBe(false);
    expect((await store.jobs.get(jobId))!.status).toBe('complete');
  });

  it('retries a job whose processing throws, then fails it with internal_error, refunds once and queues job.failed', async () => {
    const sub = await submitAsyncVerification({ ...policy, webhook_url: 'https://hooks.example.test/x' }, key, deps());
    const jobId = sub.job_id;
    const broken = { lookup: async () => Promise.reject(new Error('registry client bug')) };
    const q = queue(broken);
    for (let i = 0; i < MAX_JOB_ATTEMPTS; i++) {
      expect(await q.tick()).toBe(true);
      expect((await store.jobs.get(jobId))!.status).toBe('pending');
      clock += 120_000;
    }
    expect(await q.tick()).toBe(true);
    const job = (await store.jobs.get(jobId))!;
    expect(job.status).toBe('failed');
    expect(JSON.parse(job.error!)).toMatchObject({ error: 'internal_error', code: 500 });
    const ledger = await store.credits.ledger(key.id);
    expect(ledger.map((e) => [e.delta, e.reason])).toEqual([
      [-1, 'reserve'],
      [1, 'refund'],
    ]);
    const outbox = await store.outbox.forSubject(jobId);
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0]!.body)).toMatchObject({
      type: 'job.failed',
      data: { job_id: jobId, status: 'failed', error: { error: 'internal_error' } },
    });
  });

  it('a batch moves pending -> processing -> complete and its webhook row is written with the completion', async () => {
    const sub = await submitBatch(
      { policies: [policy, policy, { country: 'UK' }], webhook_url: 'https://hooks.example.test/b' },
      key,
      deps(),
    );
    const batchId = sub.batch_id;
    expect((await store.batches.get(batchId))!).toMatchObject({ status: 'pending', completed_count: 1, total_count: 3 });
    // A worker that dies after one item: the batch is processing, the rest waits for the lease to expire.
    const leased = (await store.batches.lease('dying', now().toISOString(), new Date(clock + 1000).toISOString()))!;
    const items = await store.batches.items(batchId);
    await store.batches.finishItem({
      batch_id: batchId,
      idx: 0,
      owner: 'dying',
      result: '{"status":"verified"}',
      error: null,
      settlement: { charge: 1, refund: 0, ref: 'r' },
      at: now().toISOString(),
    });
    expect(leased.id).toBe(batchId);
    expect(items.filter((i) => i.state === 'pending')).toHaveLength(2);
    expect((await store.batches.get(batchId))!.status).toBe('processing');
    expect(await store.outbox.forSubject(batchId)).toHaveLength(0);
    clock += 2000;
    await queue().tick();
    const done = (await store.batches.get(batchId))!;
    expect(done).toMatchObject({ status: 'complete', completed_count: 3 });
    const outbox = await store.outbox.forSubject(batchId);
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0]!.body).data.results).toHaveLength(3);
    // Item 0 was settled by the dying worker and not again.
    expect((await store.batches.items(batchId)).map((i) => i.charged)).toEqual([1, 1, 0]);
  });
});
