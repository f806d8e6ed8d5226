/** Reading jobs and batches without HTTP: per-key visibility, the ?wait hold, the write-back state. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { seedReferenceData } from '../../connector/src/demo/seed.js';
import { AppError } from '../../connector/src/errors.js';
import { Completions } from '../../connector/src/jobs/completions.js';
import { WorkQueue } from '../../connector/src/jobs/queue.js';
import { readBatch, readJob, type ReadDeps } from '../../connector/src/jobs/read.js';
import { submitAsyncVerification, submitBatch } from '../../connector/src/jobs/submit.js';
import { createLogger } from '../../connector/src/logger.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import type { ApiKeyRecord, Store } from '../../connector/src/store/types.js';
import { ReferenceDataCache } from '../../connector/src/verify/reference-data.js';
import { buildRegistryChain } from '../../connector/src/verify/registry/index.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

let store: Store;
let key: ApiKeyRecord;
let reads: ReadDeps;
const now = () => new Date();
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
const submitDeps = () => ({
  store,
  allowPrivateWebhooks: true,
  lookup: async () => [{ address: '203.0.113.10', family: 4 }],
  now,
  notify: () => {},
});

function queue() {
  const engine = {
    reference: new ReferenceDataCache(store),
    registry: buildRegistryChain(store.registry, {}, { maxConcurrent: 1, minTimeMs: 0, timeoutMs: 1000 }),
    now,
  };
  return new WorkQueue(
    { store, engine, logger: createLogger('silent'), now, completions: reads.completions },
    { workers: 1, batchConcurrency: 4, leaseMs: 10_000, pollMs: 10 },
  );
}

beforeEach(async () => {
  store = openTempStore('read').store;
  await seedReferenceData(store, shippedDataDir(), new Date());
  key = (await createApiKey(store, { mode: 'test', name: 'r', scopes: ['verify'] })).record;
  reads = { store, completions: new Completions() };
});
afterEach(closeTempStores);

async function notFound(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe('not_found');
  return (err as AppError).publicMessage;
}

describe('readJob', () => {
  it('another key, or an unknown id, gets the same not_found', async () => {
    const { job_id } = await submitAsyncVerification(policy, key, submitDeps());
    expect(await notFound(readJob('key_other', job_id, 0, reads))).toBe(`No job ${job_id} for this API key.`);
    expect(await notFound(readJob(key.id, 'no-such-id', 0, reads))).toBe('No job no-such-id for this API key.');
  });

  it('without wait answers at once with the pending job; with wait, as soon as the job completes', async () => {
    const { job_id } = await submitAsyncVerification({ ...policy, webhook_url: 'https://hooks.example.test/x' }, key, submitDeps());
    expect(await readJob(key.id, job_id, 0, reads)).toMatchObject({
      job_id,
      status: 'pending',
      poll_url: `/api/v1/jobs/${job_id}`,
      webhook: { url: 'https://hooks.example.test/x', status: null, attempts: 0 },
    });
    const started = Date.now();
    const held = readJob(key.id, job_id, 20, reads);
    await new Promise((r) => setTimeout(r, 50));
    expect(await queue().tick()).toBe(true);
    const job = await held;
    expect(job).toMatchObject({ status: 'complete', result: { policy_number: 'UKM10000001' } });
    expect(job.webhook).toMatchObject({ status: 'pending' });
    // Woken by the completion, not by the 20 s deadline.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect('sheet_writeback' in job).toBe(false);
  });

  it('a job with a sheet target shows sheet_writeback, null before a write-back exists', async () => {
    const { job_id } = await submitAsyncVerification(policy, key, submitDeps());
    const job = (await store.jobs.get(job_id))!;
    // The route needs Sheets configured to accept a target; the view only reads what is stored.
    const withTarget = { ...job, sheet_target: '{}' };
    const view = await readJob(key.id, job_id, 0, { ...reads, store: { ...store, jobs: { ...store.jobs, get: async () => withTarget } } });
    expect(view.sheet_writeback).toBeNull();
  });
});

describe('readBatch', () => {
  it('holds an unfinished batch until it completes and lists its results in order', async () => {
    const { batch_id } = await submitBatch({ policies: [policy, { country: 'UK' }] }, key, submitDeps());
    expect(await notFound(readBatch('key_other', batch_id, 0, reads))).toBe(`No batch ${batch_id} for this API key.`);
    const first = await readBatch(key.id, batch_id, 0, reads);
    expect(first).toMatchObject({ status: 'pending', total_count: 2 });
    expect(first.results.map((r) => r.index)).toEqual([1]);
    const held = readBatch(key.id, batch_id, 20, reads);
    const q = queue();
    while (await q.tick()) {
      /* until the batch is done */
    }
    const done = await held;
    expect(done.status).toBe('complete');
    expect(done.results.map((r) => r.index)).toEqual([0, 1]);
    expect(done.results[1]!.error).toMatchObject({ error: 'missing_required_field', code: 400 });
  });
});
