/**
 * bench/writeback: 10 batches of 100 results written back through the real googleapis client to
 * the local Sheets stand-in, with a quota of 60 writes per window, against writing one call per
 * result. The window is 1/100 of a minute so the naive run finishes in seconds; beside the measured
 * times, the floor a real 60-per-minute quota puts on each ((calls - 1) x 1 s).
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { createApiKey } from '../connector/src/auth/create-key.js';
import { createLogger } from '../connector/src/logger.js';
import { a1 } from '../connector/src/sheets/a1.js';
import { SheetsApi } from '../connector/src/sheets/api.js';
import { readServiceAccount, serviceAccountAuth } from '../connector/src/sheets/auth.js';
import { SheetBindings } from '../connector/src/sheets/bindings.js';
import { SheetsLimiter } from '../connector/src/sheets/limiter.js';
import { WritebackProcessor } from '../connector/src/sheets/processor.js';
import { newWriteback } from '../connector/src/sheets/writeback.js';
import { openStore } from '../connector/src/store/index.js';
import { FakeGoogle } from '../test/helpers/fake-google.js';
import { tempDbPath } from '../test/helpers/server.js';
import { bindDirect } from '../test/helpers/sheets-binding.js';
import { fmt } from './lib.js';

const SCALE = 100;
const WINDOW_MS = 60_000 / SCALE;

export async function benchWriteback(): Promise<Record<string, number>> {
  const google = new FakeGoogle();
  await google.start();
  const db = tempDbPath('bench-writeback');
  const store = await openStore({ databasePath: db });
  try {
    const keyId = (await createApiKey(store, { mode: 'test', name: 'bench', scopes: ['verify'] })).record.id;
    const SID = 'bench-writeback-sheet-01';
    const number = (i: number) => `UKM-7777-${String(i).padStart(4, '0')}`;
    google.sheet(SID, 'Book', [['Policy'], ...Array.from({ length: 1000 }, (_, i) => [number(i)])]);
    const target = {
      spreadsheet_id: SID,
      sheet_name: 'Book',
      key_column: 'A',
      header_rows: 1,
      columns: { status: 'B', confidence_score: 'C' },
    };
    const raw = new Database(db);
    for (let b = 0; b < 10; b++) {
      const rows = Array.from({ length: 100 }, (_, i) => ({
        policy_number: number(b * 100 + i),
        cells: { B: 'verified', C: 0.85 },
        append_if_missing: false,
      }));
      raw
        .prepare(
          `INSERT INTO sheet_writebacks (id, key_id, subject_type, subject_id, kind, spreadsheet_id, target, rows, next_attempt_at, created_at, updated_at)
        VALUES (@id, @key_id, @subject_type, @subject_id, @kind, @spreadsheet_id, @target, @rows, @created_at, @created_at, @created_at)`,
        )
        .run(newWriteback('verification', { type: 'batch', id: `b${b}`, key_id: keyId }, target, rows, new Date().toISOString()));
    }
    raw.close();
    const make = () => {
      const limiter = new SheetsLimiter({ perProject: 60, perSpreadsheet: 60, windowMs: WINDOW_MS });
      return {
        limiter,
        api: new SheetsApi(
          { auth: serviceAccountAuth(readServiceAccount(google.keyFile)), rootUrl: `${google.url}/`, limiter },
          google.serviceEmail,
        ),
      };
    };

    // Coalesced: what the connector does, into a spreadsheet bound to the key (bound before the
    // timed part: a freshly verified binding costs the write-backs no call).
    const c = make();
    const now = () => new Date();
    const bindings = new SheetBindings({ store, api: c.api, now }, { recheckMs: 600_000 });
    await bindDirect(bindings, google, keyId, SID);
    const proc = new WritebackProcessor(
      { store, api: c.api, bindings, logger: createLogger('silent'), now },
      { pollMs: 10, retryBaseMs: 100, leaseMs: 60_000 },
    );
    google.calls.length = 0;
    let t = performance.now();
    while (await proc.tick());
    const coalescedMs = performance.now() - t;
    const coalescedCalls = google.calls.filter((x) => x.kind !== 'token').length;
    await c.limiter.stop();

    // Naive: one values.update per result, through the same limiter.
    const n = make();
    await n.api.readColumn(SID, 'Book', 'A');
    google.calls.length = 0;
    t = performance.now();
    await Promise.all(Array.from({ length: 1000 }, (_, i) => n.api.update(SID, a1('Book', `B${i + 2}:C${i + 2}`), [['verified', 0.85]])));
    const naiveMs = performance.now() - t;
    const naiveCalls = google.calls.filter((x) => x.kind !== 'token').length;
    await n.limiter.stop();

    console.log(`bench/writeback: 10 batches x 100 results, quota 60 calls per window (window = 1/${SCALE} minute)`);
    const floor = (calls: number) => Math.max(0, calls - 1);
    console.log(
      `  coalesced (connector): ${coalescedCalls} calls, ${fmt(coalescedMs, 0)} ms measured; at a real 60/min quota at least ${floor(coalescedCalls)} s`,
    );
    console.log(
      `  one call per result:   ${naiveCalls} calls, ${fmt(naiveMs, 0)} ms measured; at a real 60/min quota at least ${fmt(floor(naiveCalls) / 60, 1)} min`,
    );
    return { coalesced_calls: coalescedCalls, coalesced_ms: coalescedMs, naive_calls: naiveCalls, naive_ms: naiveMs };
  } finally {
    await store.close();
    fs.rmSync(path.dirname(db), { recursive: true, force: true });
    await google.stop();
  }
}
