/**
 * What the queue gauges and the write-back lag read at a scrape, on both backends: JobStore.depth and
 * BatchStore.depth split pending work into queued (no live lease: waiting, or waiting for its retry)
 * and running (a live lease), with the oldest queued one; storeReaders turns them, and the first due
 * write-back, into the gauges' values.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { storeReaders } from '../../connector/src/metrics/queue-depth.js';
import type { NewBatch, Store } from '../../connector/src/store/types.js';
import { at, finishOf, newJob, writebackRow } from '../store/contract/fixtures.js';
import { storeContract } from '../store/contract/harness.js';

const idle = { queued: 0, running: 0, oldest_queued: null };

storeContract((t) => {
  let store: Store;
  beforeEach(async () => {
    store = t.store;
    await t.key('k1', { allowance: 10 });
  });

  describe('JobStore.depth', () => {
    it('is empty with no pending job', async () => {
      expect(await store.jobs.depth(at(10))).toEqual({ verification: idle, extraction: idle });
    });

    it('counts a leased job as running until its lease runs out, a released one as queued while it waits for its retry', async () => {
      await store.jobs.create(newJob('j1', { created_at: at(1) }), null);
      await store.jobs.create(newJob('j2', { kind: 'extraction', created_at: at(2) }), null);
      await store.jobs.create(newJob('j3', { created_at: at(3) }), null);
      expect((await store.jobs.lease('w1', at(10), at(100), { documents: false }))?.id).toBe('j1');

      expect(await store.jobs.depth(at(10))).toEqual({
        verification: { queued: 1, running: 1, oldest_queued: at(3) },
        extraction: { queued: 1, running: 0, oldest_queued: at(2) },
      });
      // Past the lease: nobody holds j1 any more.
      expect((await store.jobs.depth(at(200))).verification).toEqual({ queued: 2, running: 0, oldest_queued: at(1) });

      await store.jobs.release('j1', 'w1', at(300));
      expect((await store.jobs.depth(at(20))).verification).toEqual({ queued: 2, running: 0, oldest_queued: at(1) });
    });

    it('counts no finished job', async () => {
      await store.jobs.create(newJob('j1', { created_at: at(1) }), null);
      await store.jobs.lease('w1', at(10), at(100));
      expect(await store.jobs.finish(finishOf('j1', 'w1'))).toBe(true);
      expect(await store.jobs.depth(at(10))).toEqual({ verification: idle, extraction: idle });
    });
  });

  describe('BatchStore.depth', () => {
    /** b1's one item is done already, so that it can be completed without finishing items. */
    const batch = (id: string, sec: number, state: 'pending' | 'done'): NewBatch => ({
      id,
      key_id: 'k1',
      webhook_url: null,
      created_at: at(sec),
      items: [
        {
          idx: 0,
          policy_number: 'P1',
          input: '{}',
          state,
          result: null,
          error: state === 'done' ? '{"code":"invalid"}' : null,
          reserved: 0,
        },
      ],
    });

    it('counts batches not complete, queued or running, and none once complete', async () => {
      expect(await store.batches.depth(at(10))).toEqual(idle);
      await store.batches.create(batch('b1', 1, 'done'), null);
      await store.batches.create(batch('b2', 2, 'pending'), null);
      expect(await store.batches.depth(at(10))).toEqual({ queued: 2, running: 0, oldest_queued: at(1) });
      expect((await store.batches.lease('w1', at(10), at(100)))?.id).toBe('b1');
      expect(await store.batches.depth(at(10))).toEqual({ queued: 1, running: 1, oldest_queued: at(2) });
      expect(await store.batches.complete('b1', 'w1', null, at(11))).toBe(true);
      expect(await store.batches.depth(at(12))).toEqual({ queued: 1, running: 0, oldest_queued: at(2) });
    });
  });

  describe('storeReaders (what a scrape reads)', () => {
    const logger = createLogger('silent');

    it('gives each kind its queued, running and oldest age in seconds, batches as a kind of their own', async () => {
      await store.jobs.create(newJob('j1', { created_at: at(1) }), null);
      await store.batches.create(
        {
          id: 'b1',
          key_id: 'k1',
          webhook_url: null,
          created_at: at(4),
          items: [{ idx: 0, policy_number: 'P1', input: '{}', state: 'pending', result: null, error: null, reserved: 0 }],
        },
        null,
      );
      const read = storeReaders(store, () => new Date(at(11)), logger);
      expect(await read.depth()).toEqual({
        verification: { queued: 1, running: 0, oldestAgeS: 10 },
        extraction: { queued: 0, running: 0, oldestAgeS: 0 },
        batch: { queued: 1, running: 0, oldestAgeS: 7 },
      });
    });

    it('gives the write-back lag from the first due write-back, 0 when none is due', async () => {
      const read = (sec: number) => storeReaders(store, () => new Date(at(sec)), logger).writebackLagS();
      expect(await read(50)).toBe(0);
      await t.finishedJob('j1', { writeback: writebackRow('w1', { created_at: at(5) }) });
      await t.finishedJob('j2', { writeback: writebackRow('w2', { created_at: at(8), key_id: 'k1', spreadsheet_id: 'sheet-2' }) });
      expect(await read(50)).toBe(45);
    });

    it('reads nothing (null, no stale figure) when the store does not answer', async () => {
      const read = storeReaders(store, () => new Date(at(11)), logger);
      await t.closeStore(store);
      expect(await read.depth()).toBeNull();
      expect(await read.writebackLagS()).toBeNull();
    });
  });
});
