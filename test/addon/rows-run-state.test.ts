/**
 * "Verify selected rows" keeps what it pays for: the run state is recorded before any batch is
 * submitted, in cache items each well under CacheService's 100 KB, and every batch goes out with
 * an Idempotency-Key, so a save that fails loses no accepted batch and charges none twice (the
 * key's balance, read through the connector's GET /api/v1/account, is the judge).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CACHE_LIMITS } from './standin/storage.js';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({
    // Live keys see real rows only: the child holds an operator's registry extract, so unknown UK
    // motor numbers are charged unverified answers.
    conn: {
      operatorRegistry: true,
      keys: {
        big: { mode: 'live', credits: 20_000 },
        small: { mode: 'live', credits: 1_000 },
        small2: { mode: 'live', credits: 1_000 },
        closed: { mode: 'live', credits: 1_000 },
        closed2: { mode: 'live', credits: 1_000 },
      },
    },
  });
  ({ http, conn } = rig);
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

async function get(p: string, key: string): Promise<any> {
  const send = () => fetch(conn.url + p, { headers: { authorization: `Bearer ${key}` } });
  const res = await send().catch((e: { cause?: { code?: string } }) => (e.cause?.code === 'UND_ERR_SOCKET' ? send() : Promise.reject(e)));
  return res.json();
}
const balance = async (key: string) => ((await get('/api/v1/account', key)) as { credits: { balance: number } }).credits.balance;

/** `n` policies on every other row from row 2 (the rows between are blank): no two rows adjacent. */
function sparseSheet(key: string, n: number): Harness {
  const h = loadAddon(http, { connector: conn.url });
  h.fns.saveSettings({ url: CONNECTOR, key });
  const s = h.ss.active;
  s.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
  const data: string[][] = [];
  for (let i = 0; i < n; i++)
    data.push([`UKO-9${String(i).padStart(3, '0').slice(-3)}-${String(i).padStart(4, '0')}`, 'UK', 'motor'], ['', '', '']);
  s.getRange(2, 1, data.length, 3).setValues(data);
  return h;
}
const policyRows = (n: number) => Array.from({ length: n }, (_, i) => 2 + 2 * i);

function pollToEnd(h: Harness, p: any): any {
  for (let i = 0; i < 200 && !p.finished; i++) p = h.fns.pollRowsRun(p.runId);
  expect(p.finished).toBe(true);
  return p;
}

/** The largest item in a user cache now. */
const largestItem = (h: Harness) => Math.max(0, ...[...h.userCache.entries.values()].map((e) => Buffer.byteLength(e.v)));

describe('run state in bounded pieces', () => {
  it('9,500 policies on non-adjacent rows: every batch paid for is written, each cache item well under 100 KB, a re-run pays nothing', async () => {
    const N = 9_500;
    const h = sparseSheet(conn.keys.big!, N);
    const b0 = await balance(conn.keys.big!);
    let largest = 0;
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    largest = Math.max(largest, largestItem(h));
    expect(p).toMatchObject({ total: N, errors: 0 });
    for (let i = 0; i < 200 && !p.finished; i++) {
      p = h.fns.pollRowsRun(p.runId);
      largest = Math.max(largest, largestItem(h));
    }
    expect(p.finished).toBe(true);
    expect(largest).toBeLessThan(CACHE_LIMITS.valueBytes / 2);
    const s = h.ss.active;
    const statuses = policyRows(N).map((r) => s.get(r, 4));
    expect(statuses.filter((v) => v !== 'unverified')).toEqual([]);
    const spent = b0 - (await balance(conn.keys.big!));
    expect(spent).toBe(N);
    expect(p.summary.creditsSpent).toBe(spent);

    const b1 = await balance(conn.keys.big!);
    const again = pollToEnd(h, h.fns.startRowsRun(h.fns.detectRowMapping().mapping));
    expect(again).toMatchObject({ total: 0, skipped: N });
    expect(await balance(conn.keys.big!)).toBe(b1);
  }, 60_000);
});

describe('a cache save that fails', () => {
  it('after the batches were accepted, or while polling: the next poll gets the same batches back (Idempotency-Key), writes every row and charges once; a re-run charges nothing', async () => {
    const N = 250;
    const h = sparseSheet(conn.keys.small!, N);
    const b0 = await balance(conn.keys.small!);
    // The first save (before submitting) holds the batches' pieces; the one after holds only the run's head.
    h.userCache.refusePut((keys) => keys.length === 1 && /^run:[^:]+$/.test(keys[0]!), 'Service error: Cache');
    const posts = () => h.stats.log.filter((l) => l.method === 'POST').length;
    const posts0 = posts();
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    expect(h.userCache.refusals).toBe(1);
    expect(p.total).toBe(N);
    expect(p.message).toMatch(/Progress not saved \(Service error: Cache\); the next update repeats this one, without charging again\./);
    expect(posts() - posts0).toBe(3);
    // The saved head knows no batch id: the first poll sends the three batches again, with their keys.
    p = h.fns.pollRowsRun(p.runId);
    expect(posts() - posts0).toBe(6);
    // A poll whose save fails: the next one reads and writes those batches again, charging nothing.
    h.userCache.refusePut((keys) => keys.length === 1 && /^run:[^:]+$/.test(keys[0]!), 'Service error: Cache');
    p = h.fns.pollRowsRun(p.runId);
    expect(h.userCache.refusals).toBe(2);
    p = pollToEnd(h, p);
    expect(posts() - posts0).toBe(6);
    const s = h.ss.active;
    expect(
      policyRows(N)
        .map((r) => s.get(r, 4))
        .filter((v) => v !== 'unverified'),
    ).toEqual([]);
    expect(b0 - (await balance(conn.keys.small!))).toBe(N);
    expect(p.summary.creditsSpent).toBe(N);

    const b1 = await balance(conn.keys.small!);
    expect(pollToEnd(h, h.fns.startRowsRun(h.fns.detectRowMapping().mapping))).toMatchObject({ total: 0, skipped: N });
    expect(await balance(conn.keys.small!)).toBe(b1);
  }, 30_000);

  it('before anything was submitted: the run stops, nothing is sent or charged, and the user is told; a re-run charges once', async () => {
    const N = 250;
    const h = sparseSheet(conn.keys.small2!, N);
    const b0 = await balance(conn.keys.small2!);
    const posts0 = h.stats.log.filter((l) => l.method === 'POST').length;
    h.userCache.refusePut((keys) => keys.some((k) => /:b:/.test(k)), 'Service error: Cache');
    expect(() => h.fns.startRowsRun(h.fns.detectRowMapping().mapping)).toThrow(/nothing was sent.*no credits/i);
    expect(h.stats.log.filter((l) => l.method === 'POST').length).toBe(posts0);
    expect(await balance(conn.keys.small2!)).toBe(b0);
    expect(h.ss.active.get(2, 4)).toBe('');

    const p = pollToEnd(h, h.fns.startRowsRun(h.fns.detectRowMapping().mapping));
    expect(p).toMatchObject({ total: N, errors: 0 });
    expect(b0 - (await balance(conn.keys.small2!))).toBe(N);
  }, 30_000);
});

describe('a run whose sidebar was closed before its results came in', () => {
  /** Moves every data row one row down (as inserting a row above them would), and adds one policy at the end. */
  function shiftAndAdd(h: Harness, n: number): number {
    const s = h.ss.active;
    const last = 1 + 2 * n;
    const data = s.getRange(2, 1, last - 1, 3).getValues();
    s.getRange(2, 1, 1, 3).setValues([['', '', '']]);
    s.getRange(3, 1, data.length, 3).setValues(data);
    const added = last + 2;
    s.getRange(added, 1, 1, 3).setValues([['UKO-9999-0999', 'UK', 'motor']]);
    return added;
  }

  it("the next run takes its batches over, by each policy's hash, wherever the rows are now: every row written, each policy paid once", async () => {
    const N = 250;
    const h = sparseSheet(conn.keys.closed!, N);
    const b0 = await balance(conn.keys.closed!);
    const posts = () => h.stats.log.filter((l) => l.method === 'POST' && l.url.endsWith('/verify/batch')).length;
    const first = h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    expect(posts()).toBe(3);
    // The sidebar is closed: no poll. The rows stay blank, and then move.
    expect(h.ss.active.get(2, 4)).toBe('');
    const added = shiftAndAdd(h, N);
    let p = h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    expect(p.runId).not.toBe(first.runId);
    expect(p.message).toMatch(
      /250 rows were already sent by an earlier run that did not finish \(the sidebar was closed\): their results are collected now, without paying again\./,
    );
    // Only the new policy is sent.
    expect(posts()).toBe(4);
    p = pollToEnd(h, p);
    const s = h.ss.active;
    expect([...policyRows(N).map((r) => r + 1), added].map((r) => s.get(r, 4)).filter((v) => v !== 'unverified')).toEqual([]);
    expect(
      policyRows(N)
        .map((r) => s.get(r, 4))
        .filter((v) => v !== ''),
    ).toEqual([]);
    expect(b0 - (await balance(conn.keys.closed!))).toBe(N + 1);
    // The earlier run, polled again (its sidebar reopened), writes nothing more.
    const before = JSON.stringify(s.getRange(1, 1, added, 8).getValues());
    pollToEnd(h, h.fns.pollRowsRun(first.runId));
    expect(JSON.stringify(s.getRange(1, 1, added, 8).getValues())).toBe(before);
  }, 30_000);

  it('when the earlier run never saved its batch ids, the next run sends them again with their first Idempotency-Keys: answered, not charged again', async () => {
    const N = 250;
    const h = sparseSheet(conn.keys.closed2!, N);
    const b0 = await balance(conn.keys.closed2!);
    h.userCache.refusePut((keys) => keys.length === 1 && /^run:[^:]+$/.test(keys[0]!), 'Service error: Cache');
    h.fns.startRowsRun(h.fns.detectRowMapping().mapping);
    expect(h.userCache.refusals).toBe(1);
    const p = pollToEnd(h, h.fns.startRowsRun(h.fns.detectRowMapping().mapping));
    expect(p).toMatchObject({ total: N, errors: 0 });
    expect(
      policyRows(N)
        .map((r) => h.ss.active.get(r, 4))
        .filter((v) => v !== 'unverified'),
    ).toEqual([]);
    expect(b0 - (await balance(conn.keys.closed2!))).toBe(N);
  }, 30_000);
});
