/**
 * Noisy neighbour, Sheets write-backs: one key with a backlog of write-backs into many spreadsheets
 * must not hold up another key's single write-back at the processor, and the other key is never
 * refused. The real connector on loopback, with its workers, against the Sheets stand-in.
 *
 * The quota is 10 calls a second for the connector and for each spreadsheet (one call every 100 ms),
 * as in sheets-share.test.ts, so the quota's spacing, not the stand-in's speed, is what a write-back
 * waits for. Each spreadsheet's write-backs go out together: two calls (read the key column, write
 * the rows) however many batches it has waiting. Before each of the victim's write-backs the attacker
 * queues WAVE batches, PER_SHEET into each of its SHEETS bound spreadsheets, and waits until they are
 * all complete, so their write-backs are due before the victim's: SHEETS spreadsheets, 2 * SHEETS
 * calls, about 2 * SHEETS * 100 ms of quota. The victim's write-back (an async verification with a
 * sheet_target into its own bound spreadsheet) is timed from submission to `written`, first alone
 * (the baseline), then with the attacker's backlog waiting.
 *
 * FACTOR: keys take turns at the write-back processor (the key served longest ago goes first, and a
 * key holds at most one of its loops, 4 by default), so the victim's write-back is leased at once by
 * a loop the attacker does not hold; at the quota it then waits, as in sheets-share.test.ts, for at most the
 * attacker's one call handed on ahead of each of its two calls: at most 4 intervals against at least
 * 1 alone, plus the same fixed overhead (HTTP, job queue, verification) on both sides, a ratio of at
 * most 4; FACTOR 5 leaves one interval for jitter on a loaded machine. Leased oldest-due first by one
 * loop, the victim's write-back waits for every spreadsheet of the backlog: about 2 * SHEETS = 80
 * intervals, a ratio of 20 or more.
 *
 * A second case stalls the attacker at Google instead: one of its spreadsheets answers a key-column
 * read never (the stand-in holds the request), so its write-back waits out the request deadline
 * (COVERCHECK_SHEETS_TIMEOUT_MS, 3 s here) before it is retried. The victim's write-back is submitted
 * while that read hangs. The same FACTOR holds, for the same reason: the stalled write holds one of
 * the processor's loops and one of the calls handed to the quota, and the victim's write-back takes
 * another loop and goes through the quota's spacing as alone. With one loop the victim's write-back
 * waits for the stall: about 3 s against 0.2 s, a ratio of 10 or more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeGoogle } from '../helpers/fake-google.js';
import { call, pollUntil, type TestServer } from '../helpers/server.js';
import { bindOverHttp } from '../helpers/sheets-binding.js';
import {
  addPoliciesSheet,
  median,
  POLICY as policy,
  policiesTarget as target,
  startSheetsNeighbours,
  type SheetsNeighbours,
} from '../helpers/sheets-neighbours.js';

const FACTOR = 5;
const SHEETS = 40;
const PER_SHEET = 2;
const WAVE = SHEETS * PER_SHEET;
const ROUNDS = 3;

const VICTIM_SHEET = 'wb-share-victim-0001';
const STALL_SHEET = 'wb-share-stall-0001';
const attackSheet = (i: number) => `wb-share-attack-${String(i).padStart(4, '0')}`;
let neighbours: SheetsNeighbours;
let google: FakeGoogle;
let srv: TestServer;
let attacker: string;

beforeAll(async () => {
  neighbours = await startSheetsNeighbours({
    victimSheet: VICTIM_SHEET,
    // How long a write-back waits on a request Google never answers before retrying it.
    env: { COVERCHECK_SHEETS_TIMEOUT_MS: '3000' },
  });
  ({ google, srv, attacker } = neighbours);
  for (const sheet of [STALL_SHEET, ...Array.from({ length: SHEETS }, (_, i) => attackSheet(i))]) {
    addPoliciesSheet(google, sheet);
    await bindOverHttp(srv.url, attacker, google, sheet);
  }
}, 120_000);
afterAll(async () => {
  await neighbours?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const victimWriteback = () => neighbours.victimWriteback();
const victimRounds = () => neighbours.victimRounds(ROUNDS);

/** One attacker batch into `sheet`; returns its id once it is complete (its write-back queued). */
async function attackerBatch(sheet: string): Promise<string> {
  const r = await call(srv.url, 'POST', '/api/v1/verify/batch', {
    key: attacker,
    body: { policies: [policy], sheet_target: target(sheet) },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  await pollUntil(srv.url, `/api/v1/batches/${r.body.batch_id}`, attacker, (b) => b.status === 'complete', 60_000);
  return r.body.batch_id;
}

/** The attacker's wave: WAVE one-policy batches, PER_SHEET into each spreadsheet; returns once all are complete (write-backs queued). */
async function attackerWave(): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < WAVE; n++) {
    const r = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: attacker,
      body: { policies: [policy], sheet_target: target(attackSheet(n % SHEETS)) },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    ids.push(r.body.batch_id);
  }
  for (const id of ids) await pollUntil(srv.url, `/api/v1/batches/${id}`, attacker, (b) => b.status === 'complete', 60_000);
  return ids;
}

/** How many of these attacker batches still have their write-back waiting. */
async function attackerWaiting(ids: string[]): Promise<number> {
  let n = 0;
  for (const id of ids) {
    const r = await call(srv.url, 'GET', `/api/v1/batches/${id}`, { key: attacker });
    if (r.body.sheet_writeback?.status === 'pending') n++;
  }
  return n;
}

describe('noisy neighbour: Sheets write-backs', () => {
  it("an attacker's spreadsheet that Google does not answer leaves the victim's write-back within a small factor of its time alone", async () => {
    const baseline = await victimRounds();

    const attacked: number[] = [];
    const stalledAfter: number[] = [];
    const ids: string[] = [];
    try {
      for (let i = 0; i < ROUNDS; i++) {
        const before = google.count('values.get', STALL_SHEET);
        google.unanswered.push({ kind: 'values.get', spreadsheetId: STALL_SHEET });
        ids.push(await attackerBatch(STALL_SHEET));
        // The attacker's write-back has sent its key-column read, and Google holds it.
        await until('the stalled read', () => google.count('values.get', STALL_SHEET) > before);
        attacked.push(await victimWriteback());
        stalledAfter.push(await attackerWaiting(ids));
      }
    } finally {
      // Let the attacker's write-backs through, so the next case starts with none waiting.
      google.unanswered.length = 0;
      await until("the attacker's stalled write-backs", async () => (await attackerWaiting(ids)) === 0);
    }

    const ratio = median(attacked) / median(baseline);
    console.log(
      `sheets write-back, stalled spreadsheet: baseline ${baseline.map(Math.round).join(', ')} ms; attacked ${attacked.map(Math.round).join(', ')} ms; ratio of medians ${ratio.toFixed(2)} (bound ${FACTOR}); ` +
        `attacker write-backs still waiting after each victim write-back: ${stalledAfter.join('/')}`,
    );
    expect(ratio).toBeLessThanOrEqual(FACTOR);
    // The attack was real: the victim's write-back was written while the attacker's was still stalled.
    expect(Math.min(...stalledAfter)).toBeGreaterThan(0);
    expect(google.grid(STALL_SHEET, 'Policies')).toEqual([
      ['Policy', 'Status'],
      ['UKM-1000-0001', 'verified'],
    ]);
  }, 120_000);

  it("an attacker's backlog of write-backs into many spreadsheets leaves the victim's write-back within a small factor of its time alone", async () => {
    const baseline = await victimRounds();

    const attacked: number[] = [];
    const waitingBefore: number[] = [];
    const waitingAfter: number[] = [];
    const allIds: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const ids = await attackerWave();
      allIds.push(...ids);
      waitingBefore.push(await attackerWaiting(allIds));
      attacked.push(await victimWriteback());
      waitingAfter.push(await attackerWaiting(allIds));
    }

    const ratio = median(attacked) / median(baseline);
    console.log(
      `sheets write-back backlog: baseline ${baseline.map(Math.round).join(', ')} ms; attacked ${attacked.map(Math.round).join(', ')} ms; ratio of medians ${ratio.toFixed(2)} (bound ${FACTOR}); ` +
        `attacker write-backs waiting before/after each victim write-back: ${waitingBefore.join('/')} -> ${waitingAfter.join('/')}`,
    );
    // The attack was real: the attacker had a backlog (of many spreadsheets) waiting when the victim submitted.
    expect(Math.min(...waitingBefore)).toBeGreaterThanOrEqual(WAVE / 4);
    expect(ratio).toBeLessThanOrEqual(FACTOR);
    // The victim's write-back went ahead of the backlog, not after it.
    expect(Math.min(...waitingAfter)).toBeGreaterThan(0);
    // Nothing of the attacker's is written into the victim's spreadsheet.
    expect(google.grid(VICTIM_SHEET, 'Policies')).toEqual([
      ['Policy', 'Status'],
      ['UKM-1000-0001', 'verified'],
    ]);
  }, 300_000);
});
