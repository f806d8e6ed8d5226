/** runSyncVerification without HTTP: the result, or the refusal as an AppError (balance on insufficient_credits). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { seedReferenceData } from '../../connector/src/demo/seed.js';
import { AppError } from '../../connector/src/errors.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import type { Store } from '../../connector/src/store/types.js';
import { ReferenceDataCache } from '../../connector/src/verify/reference-data.js';
import { buildRegistryChain } from '../../connector/src/verify/registry/index.js';
import { runSyncVerification, type SyncDeps } from '../../connector/src/verify/run-sync.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

let store: Store;
let deps: SyncDeps;
const at = new Date('2026-11-22T10:00:00Z');
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

beforeEach(async () => {
  store = openTempStore('run-sync').store;
  await seedReferenceData(store, shippedDataDir(), new Date());
  deps = {
    credits: store.credits,
    history: store.history,
    reference: new ReferenceDataCache(store),
    registry: buildRegistryChain(store.registry, {}, { maxConcurrent: 1, minTimeMs: 0, timeoutMs: 1000 }),
    now: () => at,
  };
});
afterEach(closeTempStores);

describe('runSyncVerification', () => {
  it('returns the result with what it cost, charging a live key', async () => {
    const { record } = await createApiKey(store, { mode: 'live', name: 'l', scopes: ['verify'], credits: 3, now: at });
    const result = await runSyncVerification(policy, record, deps);
    expect(result).toMatchObject({
      policy_number: 'UKM10000001',
      country: 'UK',
      insurance_type: 'motor',
      credits_charged: result.status === 'inconclusive' ? 0 : 1,
    });
    expect((await store.keys.get(record.id))!.balance).toBe(3 - result.credits_charged);
  });

  it('refuses async-only fields, missing fields (plural code) and a bad format, charging nothing', async () => {
    const { record } = await createApiKey(store, { mode: 'live', name: 'l', scopes: ['verify'], credits: 3, now: at });
    const asyncOnly = await refusal(runSyncVerification({ ...policy, document: 'x', webhook_url: 'y' }, record, deps));
    expect([asyncOnly.code, asyncOnly.publicMessage]).toEqual([
      'invalid_request',
      'document and webhook_url are accepted only by POST /api/v1/verify/async.',
    ]);
    const missing = await refusal(runSyncVerification({ country: 'UK' }, record, deps));
    expect([missing.code, missing.publicMessage]).toEqual([
      'missing_required_fields',
      'Missing required fields: policy_number, insurance_type',
    ]);
    const format = await refusal(runSyncVerification({ ...policy, policy_number: 'X!' }, record, deps));
    expect(format.code).toBe('invalid_policy_number');
    expect(format.publicMessage).toMatch(/^Policy number "X!" is not a recognised UK motor format: /);
    expect((await store.keys.get(record.id))!.balance).toBe(3);
  });

  it('a live key with no credits left: insufficient_credits carrying the balance, before the engine runs', async () => {
    const { record } = await createApiKey(store, { mode: 'live', name: 'l', scopes: ['verify'], credits: 0, now: at });
    const err = await refusal(runSyncVerification({ ...policy, policy_number: 'X!' }, record, deps));
    expect([err.code, err.balance, err.publicMessage]).toEqual([
      'insufficient_credits',
      0,
      'Credits exhausted for billing period 2026-11: balance 0.',
    ]);
  });
});
