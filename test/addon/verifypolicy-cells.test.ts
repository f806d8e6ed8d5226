/**
 * What =VERIFYPOLICY cells show, through the built add-on against real connector children:
 * answers for the key granted now (never a result cached for another key), and pending cells
 * brought up to date by one action, since Sheets recalculates a custom function only when its
 * formula or a cell it references is edited (the stand-in's rule, standin-rules.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAddonRig, SLOW_REGISTRY, type AddonRig } from '../helpers/addon-rig.js';
import { CONNECTOR, DIST, loadAddon, type SyncHttp, type ChildConnector, type Harness } from './harness.js';

let rig: AddonRig<'conn' | 'slow'>;
let conn: ChildConnector;
let slow: ChildConnector;
let http: SyncHttp;

beforeAll(async () => {
  rig = await startAddonRig({ conn: { keys: { sandbox: { mode: 'test' }, live: { mode: 'live', credits: 100 } } }, slow: SLOW_REGISTRY });
  ({ http, conn, slow } = rig);
}, 60_000);

afterAll(async () => {
  await rig?.stop();
});

async function direct(key: string, body: unknown): Promise<any> {
  const res = await fetch(`${conn.url}/api/v1/verify`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return res.json();
}
const balance = async (key: string) =>
  (
    (await fetch(`${conn.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.json())) as {
      credits: { balance: number };
    }
  ).credits.balance;

function grant(h: Harness, key: string): void {
  h.fns.saveSettings({ url: CONNECTOR, key });
  h.fns.grantKeyToSpreadsheet(true);
}

describe('results belong to the key that asked', () => {
  it('after a pk_test_ grant is replaced by a pk_live_ one, the live key is asked (and charged); nothing of a key is readable in the cache; revoking clears the results', async () => {
    const h = loadAddon(http, { connector: conn.url });
    const cells = [['UKM-1000-0001'], ['KFZ-5096-000001']];
    const countries = [['UK'], ['DE']];
    grant(h, conn.keys.sandbox!);
    const sandboxOut = h.fns.VERIFYPOLICY(cells, countries, 'motor', '', 'full');
    const liveBefore = await balance(conn.keys.live!);

    grant(h, conn.keys.live!);
    const n = h.stats.requests;
    const liveOut = h.fns.VERIFYPOLICY(cells, countries, 'motor', '', 'full');
    expect(h.stats.requests).toBeGreaterThan(n);
    const liveAfter = await balance(conn.keys.live!);
    // The same key's direct answers (each charged too, after the balance was read).
    const want = [];
    for (const [i, c] of cells.entries()) {
      const r = await direct(conn.keys.live!, { policy_number: c[0], country: countries[i]![0], insurance_type: 'motor' });
      want.push([r.status, r.confidence_score, r.insurer?.name ?? '', r.flags.join(', ')]);
    }
    expect(liveOut).toEqual(want);
    expect(liveOut).not.toEqual(sandboxOut);
    const charged = want.filter((w) => w[0] !== 'inconclusive').length;
    expect(charged).toBeGreaterThan(0);
    expect(liveAfter).toBe(liveBefore - charged);
    // A recalculation with the same key is still free.
    const m = h.stats.requests;
    expect(h.fns.VERIFYPOLICY(cells, countries, 'motor', '', 'full')).toEqual(liveOut);
    expect(h.stats.requests).toBe(m);

    const stored =
      JSON.stringify([...h.docCache.entries]) +
      JSON.stringify(Object.entries(h.docProps.data).filter(([k]) => k !== 'covercheck.grant.key'));
    for (const k of [conn.keys.sandbox!, conn.keys.live!]) expect(stored).not.toContain(k.slice(8));

    h.fns.revokeGrant();
    expect(h.docCache.size()).toBe(0);
    // Granted again, the same key asks the connector again (a revoke is a revoke).
    grant(h, conn.keys.live!);
    const k = h.stats.requests;
    h.fns.VERIFYPOLICY(cells, countries, 'motor', '', 'full');
    expect(h.stats.requests).toBeGreaterThan(k);
  });
});

describe('pending cells brought up to date by one action', () => {
  const PENDING =
    /^Still verifying \(already submitted, no second charge\): in a minute, choose Extensions > Covercheck > Update pending results\.$/;

  it('"Still verifying" names the menu item; cells stay pending by themselves; "Update pending results" recalculates only the pending formulas, without a second charge', async () => {
    // Round trips of 11 s (simulated): after the submit there is no time for a long poll.
    const h = loadAddon(http, { connector: slow.url, rttMs: 11_000 });
    h.fns.saveSettings({ url: CONNECTOR, key: slow.keys.live });
    h.fns.grantKeyToSpreadsheet(true);
    h.open();
    expect(
      h.ui.menus
        .at(-1)!
        .items.filter((i) => i !== '---')
        .map((i) => (i as { label: string }).label),
    ).toContain('Update pending results');
    const s = h.ss.active;
    s.getRange(1, 1, 5, 3).setValues([
      ['Policy', 'Country', 'Type'],
      ['UKM-9999-0001', 'UK', 'motor'],
      ['UKM-9999-0002', 'UK', 'motor'],
      ['UKM-9999-0003', 'UK', 'motor'],
      ['UKM-9999-0004', 'UK', 'motor'],
    ]);
    // Two range formulas (a single cell is answered in its one call), and one whose answer is final (an error, no call).
    s.getRange('D2').setFormula('=VERIFYPOLICY(A2:A3,B2:B3,C2:C3)');
    s.getRange('E4').setFormula('=VERIFYPOLICY(A4:A5,"UK","motor")');
    s.getRange('F4').setFormula('=VERIFYPOLICY(A4,"ES","motor")');
    expect([s.get(2, 4), s.get(3, 4), s.get(4, 5), s.get(4, 6)]).toEqual([
      expect.stringMatching(PENDING),
      expect.stringMatching(PENDING),
      expect.stringMatching(PENDING),
      '#ERROR!',
    ]);
    const runs = h.ss.formulas.runs;

    // Nothing recalculates them: the batches complete, minutes pass, the spreadsheet is reopened.
    await new Promise((r) => setTimeout(r, 3500));
    h.advance(5 * 60_000);
    h.open();
    expect([s.get(2, 4), s.get(4, 5)]).toEqual([expect.stringMatching(PENDING), expect.stringMatching(PENDING)]);
    expect(h.ss.formulas.runs).toBe(runs);

    let out: { formulas: number; message: string } | undefined;
    for (let i = 0; i < 40; i++) {
      out = h.fns.updatePendingResults();
      if (s.get(2, 4) === 'inconclusive' && s.get(4, 5) === 'inconclusive') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect([s.get(2, 4), s.get(3, 4), s.get(4, 5), s.get(4, 6)]).toEqual(['inconclusive', 'inconclusive', 'inconclusive', '#ERROR!']);
    expect(out!).toMatchObject({ formulas: 2, message: 'Recalculating 2 =VERIFYPOLICY formulas with pending results.' });
    expect(h.ss.formulas.ran.slice(runs)).not.toContain('Sheet1!F4');
    // One batch per formula, none sent twice.
    expect(h.stats.log.filter((l) => l.method === 'POST').length).toBe(2);
    expect(h.fns.updatePendingResults()).toMatchObject({ formulas: 0, message: 'No =VERIFYPOLICY cell is waiting for a result.' });
    expect(h.ss.toasts.at(-1)).toBe('No =VERIFYPOLICY cell is waiting for a result.');
    // The sidebar offers the same action.
    expect(fs.readFileSync(path.join(DIST, 'sidebar.html'), 'utf8')).toMatch(
      /<button id="pending-run"[^>]*>Update pending results<\/button>[\s\S]*run\('updatePendingResults'\)/,
    );
  }, 60_000);
});

describe('=VERIFYPOLICY filled down one cell per row spends little of the daily quotas', () => {
  // "Quotas for Google Services", consumer account, per user a day: 20,000 UrlFetch calls and 50,000
  // property reads and writes. Targets per cell: first run <= 1 UrlFetch and <= 2 property operations;
  // recalculation 0 UrlFetch and <= 1 property read.
  const ROWS = 200;

  /** The UrlFetch calls and property operations of each custom-function execution, in order. */
  function metered(h: Harness): { fetch: number; props: number; cell: string }[] {
    const host = h.ss.formulas.host!;
    const run = host.runCustomFunction.bind(host);
    const costs: { fetch: number; props: number; cell: string }[] = [];
    host.runCustomFunction = (user, name, args) => {
      const u = h.world.user(user);
      const [f0, p0] = [u.stats.requests, u.propsQuota.total];
      try {
        return run(user, name, args);
      } finally {
        costs.push({ fetch: u.stats.requests - f0, props: u.propsQuota.total - p0, cell: h.ss.formulas.ran.at(-1)! });
      }
    };
    return costs;
  }

  function filledSheet(h: Harness) {
    const s = h.ss.active;
    s.getRange(1, 1, 1, 3).setValues([['Policy', 'Country', 'Type']]);
    s.getRange(2, 1, ROWS, 3).setValues(Array.from({ length: ROWS }, (_, i) => [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']));
    return s;
  }
  const formulas = (from: number, n: number) =>
    Array.from({ length: n }, (_, i) => [`=VERIFYPOLICY(A${from + i},B${from + i},C${from + i})`]);

  it('per cell: first run <= 1 UrlFetch and <= 2 property operations; recalculation 0 UrlFetch and <= 1 property read', () => {
    const h = loadAddon(http, { connector: conn.url });
    grant(h, conn.keys.sandbox!);
    const s = filledSheet(h);
    const costs = metered(h);
    // Filled down a few rows a minute (under the per-minute budget of fresh single cells).
    for (let r = 2; r < 2 + ROWS; r += 10) {
      s.getRange(r, 4, 10, 1).setFormulas(formulas(r, 10));
      // Reading the sheet lets Sheets recalculate what was entered.
      s.getRange(r, 4, 10, 1).getValues();
      h.advance(60_000);
    }
    expect(s.getRange(2, 4, ROWS, 1).getValues().flat()).toEqual(Array(ROWS).fill('unverified'));
    const first = costs.splice(0);
    expect(first).toHaveLength(ROWS);
    const sum = (xs: typeof first, k: 'fetch' | 'props') => xs.reduce((n, x) => n + x[k], 0);
    const worst = (xs: typeof first, k: 'fetch' | 'props') => xs.reduce((w, x) => (x[k] > w[k] ? x : w));
    // Each per execution, not only on average: the worst cell's counts, with the cell named.
    expect({ fetchPerCell: sum(first, 'fetch') / ROWS, worstFetch: worst(first, 'fetch') }).toMatchObject({
      fetchPerCell: 1,
      worstFetch: { fetch: 1 },
    });
    expect(sum(first, 'props') / ROWS).toBeLessThanOrEqual(2);
    expect(worst(first, 'props')).toMatchObject({ props: expect.any(Number) });
    expect(worst(first, 'props').props, `worst cell ${worst(first, 'props').cell}`).toBeLessThanOrEqual(2);

    // Recalculation: every formula entered again at once.
    const props = JSON.stringify(h.docProps.data);
    s.getRange(2, 4, ROWS, 1).setFormulas(formulas(2, ROWS));
    expect(s.getRange(2, 4, ROWS, 1).getValues().flat()).toEqual(Array(ROWS).fill('unverified'));
    const again = costs.splice(0);
    expect(again).toHaveLength(ROWS);
    expect({ fetch: sum(again, 'fetch'), worstProps: worst(again, 'props').props }).toEqual({ fetch: 0, worstProps: 1 });
    // Reads only.
    expect(JSON.stringify(h.docProps.data)).toBe(props);
  });

  it('past the per-minute budget a fresh single cell answers "use a range" and spends no UrlFetch; the help text steers to ranges', () => {
    const h = loadAddon(http, { connector: conn.url });
    grant(h, conn.keys.sandbox!);
    const s = filledSheet(h);
    const costs = metered(h);
    s.getRange(2, 4, ROWS, 1).setFormulas(formulas(2, ROWS));
    const shown = s.getRange(2, 4, ROWS, 1).getValues().flat();
    const answered = shown.filter((v) => v === 'unverified').length;
    const steered = shown.filter((v) => typeof v === 'string' && /use one formula over a range/i.test(v));
    expect(answered).toBeGreaterThan(0);
    expect(answered).toBeLessThanOrEqual(60);
    expect(answered + steered.length).toBe(ROWS);
    expect(steered[0]).toMatch(/=VERIFYPOLICY\(A2:A500, B2:B500, C2:C500\)/);
    expect(costs.reduce((n, x) => n + x.fetch, 0)).toBe(answered);
    expect(costs.filter((c) => c.fetch === 0).every((c) => c.props <= 1)).toBe(true);

    // One formula over the range answers every row, steered or not.
    s.getRange('E2').setFormula(`=VERIFYPOLICY(A2:A${ROWS + 1},B2:B${ROWS + 1},C2:C${ROWS + 1})`);
    expect(s.getRange(2, 5, ROWS, 1).getValues().flat()).toEqual(Array(ROWS).fill('unverified'));

    // The help Sheets shows for the function.
    const code = fs.readFileSync(path.join(DIST, 'Code.js'), 'utf8');
    const doc = /\/\*\*([\s\S]*?)@customfunction/.exec(code)![1]!;
    expect(doc).toMatch(/=VERIFYPOLICY\(A2:A500, B2:B500, C2:C500\)/);
    expect(doc).not.toMatch(/single cells or whole columns/i);
  });
});
