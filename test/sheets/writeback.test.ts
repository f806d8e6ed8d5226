/** Write-back through the real googleapis client against the local Sheets stand-in, into spreadsheets bound to the key. */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { SheetsApi } from '../../connector/src/sheets/api.js';
import { readServiceAccount, serviceAccountAuth } from '../../connector/src/sheets/auth.js';
import { NO_LONGER_BOUND, SheetBindings } from '../../connector/src/sheets/bindings.js';
import { SheetsLimiter, type SheetsCall } from '../../connector/src/sheets/limiter.js';
import { WritebackProcessor } from '../../connector/src/sheets/processor.js';
import { jobWriteback, newWriteback } from '../../connector/src/sheets/writeback.js';
import type { JobRecord, Store } from '../../connector/src/store/types.js';
import type { TExtractedFields } from '../../shared/job.js';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import { FakeGoogle } from '../helpers/fake-google.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';
import { bindDirect } from '../helpers/sheets-binding.js';

const google = new FakeGoogle();
let store: Store;
let db: string;
let keyId: string;
const SID = 'sheet-writeback-test-0001';
const target: TSheetTarget = {
  spreadsheet_id: SID,
  sheet_name: 'Policies 2026',
  key_column: 'A',
  header_rows: 1,
  columns: { status: 'C', confidence_score: 'D', flags: 'F' },
};

beforeAll(async () => {
  await google.start();
});
afterAll(async () => google.stop());
beforeEach(async () => {
  ({ store, file: db } = openTempStore('sheets'));
  keyId = (await createApiKey(store, { mode: 'test', name: 'k', scopes: ['verify'] })).record.id;
  google.calls.length = 0;
  google.failures.length = 0;
  google.unanswered.length = 0;
});
afterEach(closeTempStores);

function processor(limits = { perProject: 1000, perSpreadsheet: 1000, windowMs: 1000 }, o: { leaseMs?: number; timeoutMs?: number } = {}) {
  const limiter = new SheetsLimiter(limits);
  const api = new SheetsApi(
    {
      auth: serviceAccountAuth(readServiceAccount(google.keyFile)),
      rootUrl: `${google.url}/`,
      limiter,
      backoffMs: 20,
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
    },
    google.serviceEmail,
  );
  const now = () => new Date();
  const bindings = new SheetBindings({ store, api, now }, { recheckMs: 600_000 });
  return {
    limiter,
    api,
    bindings,
    proc: new WritebackProcessor(
      { store, api, bindings, logger: createLogger('silent'), now },
      { pollMs: 10, retryBaseMs: 10, leaseMs: o.leaseMs ?? 60_000 },
    ),
  };
}

const number = (i: number) => `UKM-7777-${String(i).padStart(4, '0')}`;

async function queueBatches(batches: number, perBatch: number, t: TSheetTarget = target) {
  for (let b = 0; b < batches; b++) {
    const rows = Array.from({ length: perBatch }, (_, i) => ({
      policy_number: number(b * perBatch + i),
      cells: { C: 'verified', D: 0.85, F: `batch ${b}` },
      append_if_missing: false,
    }));
    const wb = newWriteback('verification', { type: 'batch', id: `batch-${b}`, key_id: keyId }, t, rows, new Date().toISOString());
    // Written as the queue does: in the transaction that completes the batch (here, straight into the store).
    await insert(wb);
  }
}

async function insert(wb: ReturnType<typeof newWriteback>) {
  const Database = (await import('better-sqlite3')).default;
  const raw = new Database(db);
  raw
    .prepare(
      `INSERT INTO sheet_writebacks (id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, next_attempt_at, created_at, updated_at)
    VALUES (@id, @key_id, @subject_type, @subject_id, @kind, @spreadsheet_id, @target, @rows, @created_at, @created_at, @created_at)`,
    )
    .run(wb);
  raw.close();
}

describe('sheet write-back', () => {
  it('1,000 results of 10 batches: one key-column read and one batchUpdate, every row right', async () => {
    google.sheet(SID, 'Policies 2026', [
      ['Policy', 'Holder', 'Status'],
      ...Array.from({ length: 1000 }, (_, i) => [number(i), `Holder ${i}`]),
    ]);
    await queueBatches(10, 100);
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, SID);
    expect(await proc.tick()).toBe(true);
    await limiter.stop();
    expect(google.count('values.get', SID)).toBe(1);
    expect(google.count('values.batchUpdate', SID)).toBe(1);
    // One metadata search, when binding; a freshly verified binding costs the write-back no call.
    expect(google.count('developerMetadata.search', SID)).toBe(1);
    expect(google.count('token')).toBe(1);
    const grid = google.grid(SID, 'Policies 2026');
    for (let i = 0; i < 1000; i++) {
      expect(grid[i + 1]![0]).toBe(number(i));
      expect(grid[i + 1]!.slice(2, 6)).toEqual(['verified', '0.85', '', `batch ${Math.floor(i / 100)}`]);
    }
    expect(grid[0]).toEqual(['Policy', 'Holder', 'Status']);
    for (let b = 0; b < 10; b++)
      expect(await store.writebacks.forSubject(`batch-${b}`)).toMatchObject({ status: 'written', written: 100, missing: [] });
  });

  it('a sheet sorted and edited meanwhile still gets every result in the right row; vanished rows are reported', async () => {
    const rows = Array.from({ length: 50 }, (_, i) => [number(i), `Holder ${i}`]);
    google.sheet(SID, 'Policies 2026', [['Policy', 'Holder'], ...rows]);
    await queueBatches(1, 50);
    // After the batch completed, someone sorts the sheet descending and deletes two rows.
    const grid = google.grid(SID, 'Policies 2026');
    const body = grid
      .splice(1)
      .sort((a, b) => (a[0]! < b[0]! ? 1 : -1))
      .filter((r) => r[0] !== number(7) && r[0] !== number(31));
    grid.push(...body);
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, SID);
    await proc.tick();
    await limiter.stop();
    for (const row of grid.slice(1)) expect(row[2], row[0]).toBe('verified');
    expect(grid.slice(1).map((r) => r[1])).toEqual(body.map((r) => r[1]));
    expect(await store.writebacks.forSubject('batch-0')).toMatchObject({
      status: 'written',
      written: 48,
      missing: [number(7), number(31)],
    });
  });

  it('extraction: fields and coverage details into their mapped columns, only those read; low-confidence values named in needs_review', async () => {
    google.sheet(SID, 'Policies 2026', [
      ['Policy', 'Insurer', 'Cover level', 'Trip', 'Plan', 'Check'],
      ['UKM-1000-0001', 'old insurer', 'third_party', 'keep me', '', 'Insurer'],
    ]);
    const t: TSheetTarget = {
      spreadsheet_id: SID,
      sheet_name: 'Policies 2026',
      key_column: 'A',
      header_rows: 1,
      columns: { insurer: 'B', motor_cover: 'C', trip_type: 'D', health_plan: 'E', needs_review: 'F' },
    };
    const job = (id: string) => ({ id, key_id: keyId, kind: 'extraction', sheet_target: JSON.stringify(t) }) as JobRecord;
    const motor: TExtractedFields = {
      policy_number: 'UKM-1000-0001',
      insurer: 'Aviva Insurance Limited',
      confidence: { policy_number: 0.98, insurer: 0.95 },
      coverage: { motor_cover: { value: 'comprehensive', printed: 'Comprehensive', confidence: 0.95 } },
    };
    const health: TExtractedFields = {
      policy_number: 'BUPA-555',
      insurer: 'Bupa Insurance Limited',
      confidence: { policy_number: 0.97, insurer: 0.82 },
      coverage: { health_plan: { value: 'Bupa By You — Comprehensive', confidence: 0.75 } },
    };
    const at = new Date().toISOString();
    for (const [id, fields] of [
      ['job-motor', motor],
      ['job-health', health],
    ] as const)
      await insert(jobWriteback(job(id), { result: fields }, at)!);
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, SID);
    await proc.tick();
    await limiter.stop();
    const grid = google.grid(SID, 'Policies 2026');
    // The row that held the number: its trip cell is left alone (no trip read), the old "check" mark cleared.
    expect(grid[1]).toEqual(['UKM-1000-0001', 'Aviva Insurance Limited', 'comprehensive', 'keep me', '', '']);
    // A number not in the sheet appends a row; the plan as printed, and both values below 0.9 named for a person.
    expect(grid[2]).toEqual(['BUPA-555', 'Bupa Insurance Limited', '', '', 'Bupa By You — Comprehensive', 'Insurer, Plan']);
    expect(await store.writebacks.forSubject('job-health')).toMatchObject({ status: 'written', written: 1, missing: [] });
  });

  it('429 with Retry-After, then success: retried after the wait, written once', async () => {
    google.sheet(SID, 'Policies 2026', [['Policy'], [number(0)], [number(1)]]);
    await queueBatches(1, 2);
    google.failures.push({ kind: 'values.batchUpdate', status: 429, retryAfter: 1 });
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, SID);
    const started = Date.now();
    await proc.tick();
    await limiter.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(google.count('values.batchUpdate', SID)).toBe(2);
    expect(google.grid(SID, 'Policies 2026')[1]![2]).toBe('verified');
    expect(await store.writebacks.forSubject('batch-0')).toMatchObject({ status: 'written' });
  });

  it('a write that outlasts its lease keeps it: a second instance takes nothing meanwhile, and the row is appended once', async () => {
    google.sheet(SID, 'Policies 2026', [['Policy'], [number(0)]]);
    await insert(
      newWriteback(
        'verification',
        { type: 'job', id: 'job-slow', key_id: keyId },
        target,
        [{ policy_number: number(1), cells: { C: 'verified' }, append_if_missing: true }],
        new Date().toISOString(),
      ),
    );
    // Instance A's first batchUpdate is never answered: it waits out its 3 s deadline, then sends again.
    google.unanswered.push('values.batchUpdate');
    // Leases of 1 s, renewed every 333 ms: a loaded machine's late timer still renews in time.
    const a = processor(undefined, { leaseMs: 1000, timeoutMs: 3000 });
    const b = processor(undefined, { leaseMs: 1000 });
    await bindDirect(a.bindings, google, keyId, SID);
    const ticking = a.proc.tick();
    // Two lease lengths into A's write, instance B polls: A has renewed its lease, so B gets nothing.
    await new Promise((r) => setTimeout(r, 2000));
    expect(google.count('values.batchUpdate', SID)).toBe(1);
    expect(await b.proc.tick()).toBe(false);
    expect(await ticking).toBe(true);
    await Promise.all([a.limiter.stop(), b.limiter.stop()]);
    expect(google.count('values.batchUpdate', SID)).toBe(2);
    expect(google.grid(SID, 'Policies 2026').map((r) => r[0])).toEqual(['Policy', number(0), number(1)]);
    expect(await store.writebacks.forSubject('job-slow')).toMatchObject({ status: 'written', written: 1, attempts: 1 });
  });

  it('a bound spreadsheet deleted since fails at once with advice; 5xx is retried later', async () => {
    const GONE = 'deleted-spreadsheet-01';
    google.sheet(GONE, 'Policies 2026', [['Policy'], [number(0)]]);
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, GONE);
    google.spreadsheets.delete(GONE);
    await queueBatches(1, 1, { ...target, spreadsheet_id: GONE });
    await proc.tick();
    expect(await store.writebacks.forSubject('batch-0')).toMatchObject({
      status: 'failed',
      last_error: expect.stringContaining('not found. Check the id'),
    });
    google.sheet(SID, 'Policies 2026', [['Policy'], [number(0)]]);
    await bindDirect(bindings, google, keyId, SID);
    const later = newWriteback(
      'verification',
      { type: 'job', id: 'job-5xx', key_id: keyId },
      target,
      [{ policy_number: number(0), cells: { C: 'unverified' }, append_if_missing: false }],
      new Date().toISOString(),
    );
    await insert(later);
    for (let i = 0; i < 5; i++) google.failures.push({ kind: 'values.get', status: 503 });
    await proc.tick();
    expect(await store.writebacks.forSubject('job-5xx')).toMatchObject({
      status: 'pending',
      last_error: expect.stringContaining('HTTP 503'),
    });
    await new Promise((r) => setTimeout(r, 50));
    await proc.tick();
    await limiter.stop();
    expect(await store.writebacks.forSubject('job-5xx')).toMatchObject({ status: 'written', written: 1 });
  });

  it('one spreadsheet, two keys, one of them bound: only the bound key is written; the other fails with nothing read for it', async () => {
    google.sheet(SID, 'Policies 2026', [['Policy'], [number(0)], [number(1)]]);
    const other = (await createApiKey(store, { mode: 'test', name: 'other tenant', scopes: ['verify'] })).record.id;
    const { proc, limiter, bindings } = processor();
    await bindDirect(bindings, google, keyId, SID);
    await insert(
      newWriteback(
        'verification',
        { type: 'job', id: 'mine', key_id: keyId },
        target,
        [{ policy_number: number(0), cells: { C: 'verified' }, append_if_missing: false }],
        new Date().toISOString(),
      ),
    );
    // The other key names a policy that is not in the sheet: a `missing` list would tell it so.
    const probe = [number(1), 'UKM-0000-0404'].map((p) => ({ policy_number: p, cells: { C: 'probe' }, append_if_missing: false }));
    await insert(newWriteback('verification', { type: 'job', id: 'theirs', key_id: other }, target, probe, new Date().toISOString()));
    google.calls.length = 0;
    await proc.tick();
    await limiter.stop();
    expect(await store.writebacks.forSubject('mine')).toMatchObject({ status: 'written', written: 1 });
    expect(await store.writebacks.forSubject('theirs')).toMatchObject({
      status: 'failed',
      written: 0,
      missing: [],
      last_error: NO_LONGER_BOUND,
    });
    expect(google.grid(SID, 'Policies 2026').map((r) => r[2] ?? '')).toEqual(['', 'verified', '']);
    // One key-column read, for the bound key's target; none for the other (it has no binding: no metadata search either).
    expect(google.count('values.get', SID)).toBe(1);
    expect(google.count('developerMetadata.search', SID)).toBe(0);
  });

  it('never calls the API faster than the configured limits (per spreadsheet and per project)', async () => {
    const ids = ['rate-sheet-aaaaaaaaa1', 'rate-sheet-aaaaaaaaa2', 'rate-sheet-aaaaaaaaa3'];
    for (const id of ids) google.sheet(id, 'S', [['Policy'], [number(0)]]);
    const limiter = new SheetsLimiter({ perProject: 12, perSpreadsheet: 5, windowMs: 1000 });
    // When the limiter lets each call go: what the limits govern. (Arrival times at the stand-in add
    // network and event-loop jitter on a loaded machine, which can bunch two spaced calls together.)
    const sent: { id: string; at: number }[] = [];
    const watched = {
      schedule: <T>(c: SheetsCall, fn: () => Promise<T>) =>
        limiter.schedule(c, () => (sent.push({ id: c.spreadsheetId, at: performance.now() }), fn())),
    } as unknown as SheetsLimiter;
    const api = new SheetsApi(
      { auth: serviceAccountAuth(readServiceAccount(google.keyFile)), rootUrl: `${google.url}/`, limiter: watched },
      google.serviceEmail,
    );
    await api.readColumn(ids[0]!, 'S', 'A'); // token fetched before the timed part
    google.calls.length = 0;
    sent.length = 0;
    // Each spreadsheet's calls for a key of its own: keys' calls go on concurrently, one of each at a time.
    await Promise.all(ids.flatMap((id) => Array.from({ length: 8 }, () => api.forKey(`key-${id}`).readColumn(id, 'S', 'A'))));
    await limiter.stop();
    // Bottleneck spaces the starts by its own clock (200 ms apart for a spreadsheet: five in a second); the
    // times here are taken a callback later, which a loaded machine delays by up to tens of milliseconds for
    // one call and not the next, so a window 50 ms short of the second is counted. A limiter that does not
    // space calls sends a spreadsheet's eight at once and fails by far.
    const maxInWindow = (times: number[]) => Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 950).length));
    expect(google.calls.filter((c) => c.kind === 'values.get')).toHaveLength(24);
    expect(sent).toHaveLength(24);
    for (const id of ids) expect(maxInWindow(sent.filter((c) => c.id === id).map((c) => c.at))).toBeLessThanOrEqual(5);
    expect(maxInWindow(sent.map((c) => c.at))).toBeLessThanOrEqual(12);
  });
});
