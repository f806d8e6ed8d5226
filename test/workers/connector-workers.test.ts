/**
 * The connector's background workers (start.ts) as one list: started in order, stopped in reverse,
 * each stop finished before the next, so the job queue stops first and the workers its last units
 * feed (webhook outbox, Sheets write-backs) still run meanwhile. The write-back lease is configuration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGoogle } from '../helpers/fake-google.js';
import { call, startTestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';

const google = new FakeGoogle();
beforeAll(async () => google.start());
afterAll(async () => google.stop());

const sheetsEnv = () => ({
  GOOGLE_APPLICATION_CREDENTIALS: google.keyFile,
  COVERCHECK_SHEETS_ROOT_URL: `${google.url}/`,
  COVERCHECK_SHEETS_PER_MIN: '6000',
  COVERCHECK_SHEETS_PER_SPREADSHEET_PER_MIN: '6000',
});

describe("the connector's workers", () => {
  it('are one list, started in order and stopped in reverse, each stop awaited before the next', async () => {
    const srv = await startTestServer({ workers: false, seed: false, env: { ...sheetsEnv(), COVERCHECK_DATASET_REFRESH: 'true' } });
    const { workers } = srv.connector;
    expect(workers.map((w) => w.name)).toEqual([
      'key sweep',
      'retention',
      'sheet schedules',
      'sheet write-back',
      'dataset refresh',
      'webhook outbox',
      'watch mail',
      'watch re-checks',
      'watches',
      'work queue',
    ]);
    const events: string[] = [];
    for (const w of workers) {
      const [start, stop] = [w.start.bind(w), w.stop.bind(w)];
      Object.assign(w, {
        start: () => {
          events.push(`start ${w.name}`);
          start();
        },
        stop: async () => {
          events.push(`stopping ${w.name}`);
          await stop();
          events.push(`stopped ${w.name}`);
        },
      });
    }
    srv.connector.startWorkers();
    expect(events).toEqual(workers.map((w) => `start ${w.name}`));
    events.length = 0;
    await srv.close();
    expect(events).toEqual([...workers].reverse().flatMap((w) => [`stopping ${w.name}`, `stopped ${w.name}`]));
  });

  it('without Sheets or dataset refresh, those workers are not in the list', async () => {
    const srv = await startTestServer({ workers: false, seed: false });
    try {
      expect(srv.connector.workers.map((w) => w.name)).toEqual([
        'key sweep',
        'retention',
        'webhook outbox',
        'watch mail',
        'watch re-checks',
        'watches',
        'work queue',
      ]);
    } finally {
      await srv.close();
    }
  });

  it('a write-back holds its spreadsheet for COVERCHECK_SHEETS_WRITEBACK_LEASE_MS', async () => {
    const LEASE_MS = 45_000;
    const srv = await startTestServer({
      workers: false,
      env: {
        ...sheetsEnv(),
        COVERCHECK_SHEETS_WRITEBACK_LEASE_MS: String(LEASE_MS),
        COVERCHECK_SHEETS_TIMEOUT_MS: '500',
        COVERCHECK_SHEETS_RETRY_MS: '10',
      },
    });
    try {
      const SHEET = 'writeback-lease-sheet-01';
      google.sheet(SHEET, 'Claims', [
        ['Policy', 'Holder', 'Status'],
        ['UKM-1000-0001', 'Jane Doe', ''],
      ]);
      const { key } = await srv.key({ mode: 'test' });
      await bindOverHttp(srv.url, key, google, SHEET);
      const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
      const job = await call(srv.url, 'POST', '/api/v1/verify/async', {
        key,
        body: { ...policy, sheet_target: { spreadsheet_id: SHEET, sheet_name: 'Claims', key_column: 'A', columns: { status: 'C' } } },
      });
      expect(job.status).toBe(202);
      while (await srv.ctx.queue.tick());
      // The key-column read goes unanswered: the write-back is held, under its lease, until the call's deadline.
      google.unanswered.push({ kind: 'values.get', spreadsheetId: SHEET });
      const reads = google.count('values.get', SHEET);
      const before = Date.now();
      const writing = srv.ctx.sheets!.writebacks.tick();
      while (google.count('values.get', SHEET) === reads) await new Promise((r) => setTimeout(r, 2));
      // Another instance can take it only once the lease has run out.
      const at = (ms: number) => new Date(ms).toISOString();
      expect(
        await srv.store.writebacks.leaseSpreadsheet('other-instance', at(before + LEASE_MS - 1_000), at(before + LEASE_MS + 60_000)),
      ).toEqual([]);
      expect(
        await srv.store.writebacks.leaseSpreadsheet(
          'other-instance',
          at(Date.now() + LEASE_MS + 1_000),
          at(Date.now() + LEASE_MS + 60_000),
        ),
      ).toHaveLength(1);
      await writing;
    } finally {
      await srv.close();
    }
  });
});
