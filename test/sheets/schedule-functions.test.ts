/** Schedule create/list/get/delete as plain functions (sheets/schedules.ts), without HTTP or Google. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { seedReferenceData } from '../../connector/src/demo/seed.js';
import { AppError } from '../../connector/src/errors.js';
import { shippedDataDir } from '../../connector/src/paths.js';
import {
  createSchedule,
  deleteSchedule,
  getSchedule,
  listSchedules,
  resumeSchedule,
  type ScheduleDeps,
} from '../../connector/src/sheets/schedules.js';
import type { Store } from '../../connector/src/store/types.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

const SID = '1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd';
const at = new Date('2026-11-22T10:00:00Z');
const request = {
  dataset: 'uk-gdp-abmi',
  spreadsheet_id: SID,
  sheet_name: 'GDP',
  cadence: 'daily' as const,
  limit: 3,
  mode: 'overwrite' as const,
};
let store: Store;
let woken: number;
let bound: boolean;
let A: string;
let B: string;

const deps = (): ScheduleDeps => ({
  store,
  bindings: {
    require: async () => {
      if (!bound) throw new AppError('sheet_not_bound', 'not bound');
    },
  },
  notify: () => void woken++,
  now: () => at,
});

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

beforeEach(async () => {
  store = openTempStore('schedules').store;
  await seedReferenceData(store, shippedDataDir(), new Date());
  woken = 0;
  bound = true;
  A = (await createApiKey(store, { mode: 'test', name: 'a', scopes: ['datasets'] })).record.id;
  B = (await createApiKey(store, { mode: 'test', name: 'b', scopes: ['datasets'] })).record.id;
});
afterEach(closeTempStores);

describe('createSchedule', () => {
  it('stores a schedule due now, wakes the runner and returns its view', async () => {
    const s = await createSchedule(A, request, deps());
    expect(s).toEqual({
      schedule_id: expect.stringMatching(/^sch_[0-9a-f]{20}$/),
      dataset: 'uk-gdp-abmi',
      spreadsheet_id: SID,
      sheet_name: 'GDP',
      cadence: 'daily',
      limit: 3,
      mode: 'overwrite',
      next_run_at: at.toISOString(),
      created_at: at.toISOString(),
      paused: false,
      paused_reason: null,
      failures_in_row: 0,
      runs: [],
    });
    expect(woken).toBe(1);
    expect((await store.schedules.get(s.schedule_id))?.key_id).toBe(A);
  });

  it('an unknown dataset is not_found; a spreadsheet not bound to the key keeps the binding refusal; nothing is stored', async () => {
    const missing = await refusal(createSchedule(A, { ...request, dataset: 'nope' }, deps()));
    expect([missing.code, missing.publicMessage]).toEqual(['not_found', 'No dataset "nope".']);
    bound = false;
    expect((await refusal(createSchedule(A, request, deps()))).code).toBe('sheet_not_bound');
    expect(await store.schedules.list(A)).toEqual([]);
    expect(woken).toBe(0);
  });
});

describe('list, get, delete', () => {
  it('are per key: another key sees none, and gets the same not_found as for an unknown id', async () => {
    const s = await createSchedule(A, request, deps());
    expect((await listSchedules(A, store)).map((x) => x.schedule_id)).toEqual([s.schedule_id]);
    expect(await listSchedules(B, store)).toEqual([]);
    expect(await getSchedule(A, s.schedule_id, store)).toEqual(s);
    expect((await refusal(getSchedule(B, s.schedule_id, store))).publicMessage).toBe(`No schedule ${s.schedule_id} for this API key.`);
    expect((await refusal(deleteSchedule(B, s.schedule_id, store))).code).toBe('not_found');
    await deleteSchedule(A, s.schedule_id, store);
    expect((await refusal(getSchedule(A, s.schedule_id, store))).code).toBe('not_found');
  });

  it("a schedule's view lists its latest runs", async () => {
    const s = await createSchedule(A, request, deps());
    const leased = await store.schedules.leaseDue(at.toISOString(), new Date(at.getTime() + 60_000).toISOString());
    expect(leased?.id).toBe(s.schedule_id);
    await store.schedules.finishRun(
      s.schedule_id,
      at.toISOString(),
      { finished_at: at.toISOString(), status: 'ok', rows: 3, error: null },
      new Date(at.getTime() + 86_400_000).toISOString(),
    );
    expect((await getSchedule(A, s.schedule_id, store)).runs).toEqual([
      { started_at: at.toISOString(), finished_at: at.toISOString(), status: 'ok', rows: 3, error: null },
    ]);
  });

  it("a schedule's view shows its last 30 runs, newest first", async () => {
    const s = await createSchedule(A, request, deps());
    for (let i = 0; i < 35; i++) {
      const t = new Date(at.getTime() + i * 60_000).toISOString();
      expect((await store.schedules.leaseDue(t, new Date(at.getTime() + i * 60_000 + 30_000).toISOString()))?.id).toBe(s.schedule_id);
      await store.schedules.finishRun(s.schedule_id, t, { finished_at: t, status: 'ok', rows: i, error: null }, t);
    }
    const runs = (await getSchedule(A, s.schedule_id, store)).runs;
    expect(runs).toHaveLength(30);
    expect(runs.map((r) => r.rows)).toEqual(Array.from({ length: 30 }, (_, i) => 34 - i));
  });

  it("resumeSchedule un-pauses the key's schedule, resets its count, runs it now and wakes the runner; another key gets not_found", async () => {
    const s = await createSchedule(A, request, deps());
    await store.schedules.pause(s.schedule_id, 'Paused after 3 failed runs in a row. The last: x', at.toISOString());
    expect(await getSchedule(A, s.schedule_id, store)).toMatchObject({
      paused: true,
      paused_reason: 'Paused after 3 failed runs in a row. The last: x',
    });
    expect((await refusal(resumeSchedule(B, s.schedule_id, deps()))).code).toBe('not_found');
    expect((await getSchedule(A, s.schedule_id, store)).paused).toBe(true);
    woken = 0;
    expect(await resumeSchedule(A, s.schedule_id, deps())).toMatchObject({
      paused: false,
      paused_reason: null,
      failures_in_row: 0,
      next_run_at: at.toISOString(),
    });
    expect(woken).toBe(1);
  });
});
