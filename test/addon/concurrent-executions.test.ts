/**
 * Executions that overlap, as they do in Sheets: two formulas over the same policies, a formula
 * whose results land while another saves its own, the hourly trigger firing while a sidebar call
 * refreshes the same schedule, two editors adding schedules at once. The stand-in runs the second
 * execution while the first is suspended at one of its service calls (World.interleave) and models
 * LockService (standin/locks.ts). The invariants: nothing is paid for twice, no write of one
 * execution is lost to another's, and every lock taken is released.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, loadAddon, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

const SLUG = 'uk-rpi-vehicles-tax-insurance-yoy';
let rig: AddonRig<'conn'>;
let conn: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({ conn: { keys: { sandbox: { mode: 'test' }, live: { mode: 'live', credits: 100 } } } });
  ({ http, conn } = rig);
}, 60_000);
afterAll(async () => {
  await rig?.stop();
});

function granted(): Harness {
  const h = loadAddon(http, { connector: conn.url });
  h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
  h.fns.grantKeyToSpreadsheet(true);
  return h;
}
const posts = (h: Harness, path: RegExp) => h.stats.log.filter((l) => l.method.toUpperCase() === 'POST' && path.test(l.url)).length;
const gets = (h: Harness, path: RegExp) => h.stats.log.filter((l) => l.method.toUpperCase() === 'GET' && path.test(l.url)).length;
const column = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => [`${prefix}-${String(1000 + i)}-0001`]);
const same = (n: number, v: string) => Array.from({ length: n }, () => [v]);
const pendingText = (out: unknown) => JSON.stringify(out).match(/Waiting: another Covercheck run|Still verifying|Queued/);

describe('=VERIFYPOLICY executions at once', () => {
  it("two formulas over the same policies: the second, arriving while the first submits, waits briefly and pays for nothing; it then finds the first's results", () => {
    const h = granted();
    const numbers = column('UKM', 3);
    let second: unknown;
    // The first has sent its batch and is about to record it when the second starts.
    h.world.interleave(
      (m, e) => m === 'Properties.setProperties' && e.mode === 'CUSTOM_FUNCTION',
      () => {
        second = h.fns.VERIFYPOLICY(numbers, same(3, 'UK'), same(3, 'motor'));
      },
    );
    const first = h.fns.VERIFYPOLICY(numbers, same(3, 'UK'), same(3, 'motor'));
    expect(pendingText(first)).toBeNull();
    expect(JSON.stringify(second)).toMatch(/Waiting: another Covercheck run in this spreadsheet .*nothing charged/);
    expect(posts(h, /\/verify\/batch$/)).toBe(1);
    // Recalculated later, the second is answered from the first's results, without a request.
    const n = h.stats.requests;
    expect(h.fns.VERIFYPOLICY(numbers, same(3, 'UK'), same(3, 'motor'))).toEqual(first);
    expect(h.stats.requests).toBe(n);
    expect(h.world.locks.leaked).toEqual([]);
  });

  it('a formula that saves its results while another saves its own loses neither: no policy is submitted (paid for) twice', () => {
    const h = granted();
    const [x, y] = [column('UKM', 20), column('UKH', 20)];
    let second: unknown;
    // The first has read the cache packs and is about to write them back when the second runs whole.
    h.world.interleave(
      (m, e) => m === 'Cache.putAll' && e.mode === 'CUSTOM_FUNCTION',
      () => {
        second = h.fns.VERIFYPOLICY(y, same(20, 'UK'), same(20, 'motor'));
      },
    );
    const first = h.fns.VERIFYPOLICY(x, same(20, 'UK'), same(20, 'motor'));
    expect(pendingText(first)).toBeNull();
    expect(second).toBeDefined();
    // Until the second's results are cached, recalculating it (as "Update pending results" does) is the same formula again.
    let out = second;
    for (let i = 0; i < 3 && pendingText(out); i++) out = h.fns.VERIFYPOLICY(y, same(20, 'UK'), same(20, 'motor'));
    expect(pendingText(out)).toBeNull();
    const n = h.stats.requests;
    expect(h.fns.VERIFYPOLICY(y, same(20, 'UK'), same(20, 'motor'))).toEqual(out);
    expect(h.fns.VERIFYPOLICY(x, same(20, 'UK'), same(20, 'motor'))).toEqual(first);
    expect(h.stats.requests).toBe(n);
    // One batch for x, one for y: never y twice because its cached results were overwritten.
    expect(posts(h, /\/verify\/batch$/)).toBe(2);
    expect(h.world.locks.leaked).toEqual([]);
  });
});

describe('dataset schedules at once', () => {
  it('the hourly trigger firing while "Refresh now" refreshes the same schedule: no run is lost from the history, no refresh runs beside another', () => {
    const h = granted();
    h.fns.importDataset({ slug: SLUG, sheetName: 'RPI', limit: 6, schedule: 'hourly' });
    const trigger = h.triggers[0]!;
    const id = h.fns.listSchedules().schedules[0].id;
    // Two hours on without the trigger firing: the schedule is due.
    h.world.clock.advance(2 * 3600_000);
    const before = gets(h, /\/series/);
    h.world.interleave(
      (m, e, key) => m === 'Properties.setProperty' && e.mode === 'FULL' && String(key).startsWith('covercheck.runs.'),
      () => h.world.fire(trigger),
    );
    h.fns.refreshScheduleNow(id);
    const refreshes = gets(h, /\/series/) - before;
    const runs = h.fns.listSchedules().schedules[0].runs;
    // The import's run and one per refresh that fetched the series.
    expect(runs).toHaveLength(1 + refreshes);
    expect(refreshes).toBe(1);
    expect(trigger.failures).toEqual([]);
    expect(h.world.locks.leaked).toEqual([]);
  });

  it('two editors adding schedules at once: neither schedule is lost; the one that could not save says so', () => {
    const h = granted();
    const bob = h.as('bob@example.com');
    bob.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    let bobs: { ok: boolean; message?: string } | null = null;
    h.world.interleave(
      (m, e, key) => m === 'Properties.setProperty' && e.user === h.user && key === 'covercheck.schedules',
      () => {
        try {
          bob.fns.importDataset({ slug: SLUG, sheetName: 'Bob', limit: 6, schedule: 'daily' });
          bobs = { ok: true };
        } catch (e) {
          bobs = { ok: false, message: (e as Error).message };
        }
      },
    );
    h.fns.importDataset({ slug: SLUG, sheetName: 'Alice', limit: 6, schedule: 'daily' });
    const names = h.fns
      .listSchedules()
      .schedules.map((s: { sheetName: string }) => s.sheetName)
      .sort();
    expect(bobs).not.toBeNull();
    if (bobs!.ok) expect(names).toEqual(['Alice', 'Bob']);
    else {
      expect(bobs!.message).toMatch(/Another Covercheck action in this spreadsheet .* try again/);
      expect(names).toEqual(['Alice']);
      // Nothing of Bob's was written.
      expect(h.ss.sheets.some((s) => s.name === 'Bob')).toBe(false);
    }
    expect(h.world.locks.leaked).toEqual([]);
  });
});
