/**
 * bench/addon: UrlFetch calls and simulated time to verify 10,000 rows with =VERIFYPOLICY (one
 * range call, then a recalculation) and with the "Verify selected rows" sidebar, beside the naive
 * one call per cell. The built add-on runs on the Apps Script stand-ins (test/addon/standin: the
 * CacheService cap of 1,000 items in force, the 30 s custom function limit on the simulated clock)
 * against the real connector in a child process. Simulated time is the stand-in's clock: each
 * round trip (fetch, or a fetchAll's requests in parallel) counts its real duration or 150 ms,
 * whichever is longer, plus the time the add-on asked Utilities.sleep for; the sidebar adds its
 * 700 ms between polls. Delta re-check: the same sheet verified with a live key, 100 rows
 * edited, verified again: the credits (balance before and after) and UrlFetch calls of that re-run.
 *
 * Quotas: the UrlFetch calls and property operations the user's day allows ("Quotas for Google
 * Services", consumer account: 20,000 and 50,000), spent by 10,000 rows as one range formula and as
 * one formula per row, first run and recalculation, against the per-cell targets. Counts, not
 * times: they are the same on any machine, so no baseline is needed.
 */
import { buildAddon, CONNECTOR, loadAddon, startConnectorChild, SyncHttp, type Harness } from '../test/addon/harness.js';

const ROWS = 10_000;
const CHANGED = 100;
const RTT_MS = 150;
const SIDEBAR_POLL_GAP_MS = 700;

/** Per cell: first run <= 1 UrlFetch and <= 2 property operations; recalculation 0 UrlFetch and <= 1 property read. */
const TARGET = { firstFetch: 1, firstProps: 2, recalcFetch: 0, recalcProps: 1 } as const;
const DAY = { fetch: 20_000, props: 50_000 } as const;

interface Use {
  fetch: number;
  props: number;
  worstFetch: number;
  worstProps: number;
  answered: number;
  steered: number;
}

/** Runs `calls` executions, metering each one's UrlFetch calls and property operations. */
function metered(h: Harness, calls: (() => unknown)[], between?: () => void): Use {
  const u = h.world.user(h.user);
  const use: Use = { fetch: 0, props: 0, worstFetch: 0, worstProps: 0, answered: 0, steered: 0 };
  for (const call of calls) {
    const [f0, p0] = [u.stats.requests, u.propsQuota.total];
    const out = call();
    const [f, p] = [u.stats.requests - f0, u.propsQuota.total - p0];
    Object.assign(use, {
      fetch: use.fetch + f,
      props: use.props + p,
      worstFetch: Math.max(use.worstFetch, f),
      worstProps: Math.max(use.worstProps, p),
    });
    const cells = (Array.isArray(out) ? out.map((r) => r[0]) : [out]) as unknown[];
    for (const c of cells) {
      if (/^(verified|unverified|inconclusive)$/.test(String(c))) use.answered++;
      else if (/use one formula over a range/i.test(String(c))) use.steered++;
      else throw new Error(`a cell answered ${String(c)}`);
    }
    between?.();
  }
  return use;
}

function rows(): string[][] {
  return Array.from({ length: ROWS }, (_, i) =>
    i % 5 === 4 ? [`MUT-${100000 + i}`, 'FR', 'health'] : [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor'],
  );
}

export async function benchAddon(): Promise<Record<string, number>> {
  buildAddon();
  const http = new SyncHttp();
  const conn = await startConnectorChild({ keys: { sandbox: { mode: 'test' }, live: { mode: 'live', credits: 30_000 } } });
  const out: Record<string, number> = {};
  let quotas: Record<string, Use> = {};
  try {
    const data = rows();
    const col = (i: number) => data.map((r) => [r[i]]);

    // =VERIFYPOLICY over the whole range, then a recalculation.
    const cf = loadAddon(http, { connector: conn.url, rttMs: RTT_MS });
    cf.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    cf.fns.grantKeyToSpreadsheet(true);
    const clock = cf.world.clock;
    const [req0, rt0] = [cf.stats.requests, cf.stats.roundTrips];
    let t0 = performance.now();
    let s0 = clock.now;
    const res = cf.fns.VERIFYPOLICY(col(0), col(1), col(2)) as string[][];
    out.cf_sim_ms = clock.now - s0;
    out.cf_real_ms = Math.round(performance.now() - t0);
    const bad = res.filter((r) => !/^(verified|unverified|inconclusive)$/.test(String(r[0])));
    if (bad.length) throw new Error(`${bad.length} rows without a result, e.g. ${bad[0]}`);
    out.cf_calls = cf.stats.requests - req0;
    out.cf_round_trips = cf.stats.roundTrips - rt0;
    out.cf_cache_items = cf.docCache.size();
    out.cf_cache_evicted = cf.docCache.stats.evicted;
    s0 = clock.now;
    const again = cf.fns.VERIFYPOLICY(col(0), col(1), col(2)) as string[][];
    out.cf_recalc_sim_ms = clock.now - s0;
    out.cf_recalc_calls = cf.stats.requests - req0 - out.cf_calls;
    if (JSON.stringify(again) !== JSON.stringify(res)) throw new Error('the recalculation answered differently');

    // Sidebar: the same rows in a sheet, start + polls as the sidebar makes them.
    const sb = loadAddon(http, { connector: conn.url, rttMs: RTT_MS });
    sb.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    const sheet = sb.ss.active;
    sheet.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    sheet.getRange(2, 1, ROWS, 3).setValues(data);
    t0 = performance.now();
    s0 = sb.world.clock.now;
    let p = sb.fns.startRowsRun(sb.fns.detectRowMapping().mapping);
    let polls = 0;
    while (!p.finished) {
      p = sb.fns.pollRowsRun(p.runId);
      polls++;
    }
    out.sb_real_ms = Math.round(performance.now() - t0);
    out.sb_calls = sb.stats.requests;
    out.sb_round_trips = sb.stats.roundTrips;
    out.sb_polls = polls;
    out.sb_sim_ms = sb.world.clock.now - s0 + polls * SIDEBAR_POLL_GAP_MS;

    // Delta re-check: a live key's full run, 100 rows edited across the sheet, then the re-run.
    const balance = async () => {
      const r = await fetch(`${conn.url}/api/v1/account`, { headers: { authorization: `Bearer ${conn.keys.live}` } });
      return ((await r.json()) as { credits: { balance: number } }).credits.balance;
    };
    const dl = loadAddon(http, { connector: conn.url, rttMs: RTT_MS });
    dl.fns.saveSettings({ url: CONNECTOR, key: conn.keys.live });
    const dsheet = dl.ss.active;
    dsheet.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    dsheet.getRange(2, 1, ROWS, 3).setValues(data);
    const runAll = () => {
      let q = dl.fns.startRowsRun(dl.fns.detectRowMapping().mapping);
      while (!q.finished) q = dl.fns.pollRowsRun(q.runId);
      return q;
    };
    let b0 = await balance();
    let q = runAll();
    out.delta_first_credits = b0 - (await balance());
    out.delta_first_calls = dl.stats.requests;
    for (let i = 0; i < CHANGED; i++) dsheet.set(2 + i * (ROWS / CHANGED) + (i % 7), 1, `UKM-8888-${String(i).padStart(4, '0')}`);
    b0 = await balance();
    const [r0, t0d, s0d] = [dl.stats.requests, dl.stats.roundTrips, dl.world.clock.now];
    q = runAll();
    out.delta_credits = b0 - (await balance());
    out.delta_calls = dl.stats.requests - r0;
    out.delta_round_trips = dl.stats.roundTrips - t0d;
    out.delta_sim_ms = dl.world.clock.now - s0d;
    out.delta_checked = q.total;
    out.delta_skipped = q.skipped;
    out.delta_summary_credits = q.summary?.creditsSpent ?? -1;
    if (out.delta_checked !== CHANGED || out.delta_skipped !== ROWS - CHANGED)
      throw new Error(`delta re-check sent ${q.total} rows and skipped ${q.skipped}`);

    out.naive_calls = ROWS;
    out.naive_sim_ms = ROWS * RTT_MS;

    quotas = await benchQuotas(http, conn);
  } finally {
    await conn.stop();
    await http.close();
  }
  const x = (a: number, b: number) => (a / b).toFixed(0);
  console.log(`\nbench/addon: ${ROWS.toLocaleString()} rows, at least ${RTT_MS} ms per simulated round trip, CacheService cap in force`);
  console.log('| | UrlFetch calls | round trips | simulated time | vs naive (calls) |');
  console.log('|---|---|---|---|---|');
  console.log(`| naive: one call per cell | ${out.naive_calls} | ${out.naive_calls} | ${(out.naive_sim_ms! / 1000).toFixed(0)} s | 1x |`);
  console.log(
    `| =VERIFYPOLICY, one range, first run | ${out.cf_calls} | ${out.cf_round_trips} | ${(out.cf_sim_ms! / 1000).toFixed(1)} s | ${x(out.naive_calls!, out.cf_calls!)}x fewer |`,
  );
  console.log(`| =VERIFYPOLICY, recalculation | ${out.cf_recalc_calls} | 0 | ${(out.cf_recalc_sim_ms! / 1000).toFixed(1)} s | |`);
  console.log(
    `| sidebar (${out.sb_polls} polls) | ${out.sb_calls} | ${out.sb_round_trips} | ${(out.sb_sim_ms! / 1000).toFixed(1)} s | ${x(out.naive_calls!, out.sb_calls!)}x fewer |`,
  );
  console.log(
    `document cache after the first run: ${out.cf_cache_items} items, ${out.cf_cache_evicted} evicted; real time here: VERIFYPOLICY ${out.cf_real_ms} ms, sidebar ${out.sb_real_ms} ms`,
  );
  console.log(
    `\ndelta re-check: ${ROWS.toLocaleString()} rows verified with a live key (${out.delta_first_credits} credits, ${out.delta_first_calls} calls), then ${CHANGED} rows edited and verified again`,
  );
  console.log('| re-run | rows sent | rows skipped | credits | UrlFetch calls | round trips | simulated time |');
  console.log('|---|---|---|---|---|---|---|');
  console.log(
    `| after ${CHANGED} rows changed | ${out.delta_checked} | ${out.delta_skipped} | ${out.delta_credits} (summary says ${out.delta_summary_credits}) | ${out.delta_calls} | ${out.delta_round_trips} | ${(out.delta_sim_ms! / 1000).toFixed(1)} s |`,
  );
  console.log(`target: <= ${CHANGED} credits and <= 4 calls: ${out.delta_credits! <= CHANGED && out.delta_calls! <= 4 ? 'met' : 'MISSED'}`);
  printQuotas(quotas);
  return {
    ...out,
    ...Object.fromEntries(Object.entries(quotas).flatMap(([k, u]) => Object.entries(u).map(([f, v]) => [`quota_${k}_${f}`, v]))),
  };
}

/**
 * 10,000 rows as one range formula, and as one formula per row: filled down gradually (2 s a cell,
 * so the per-minute budget of fresh single cells never refuses one: every cell's own cost), and
 * filled down at once (the budget answers most cells "use a range"). Per-row rows are UK motor
 * numbers the sandbox answers `unverified`, cached 6 h, so the recalculation after the 5.6 h of
 * filling finds every one (inconclusive answers are kept 10 min only, by design).
 */
async function benchQuotas(http: SyncHttp, conn: { url: string; keys: Record<string, string> }): Promise<Record<string, Use>> {
  const data = rows();
  const col = (i: number) => data.map((r) => [r[i]]);
  const granted = () => {
    const h = loadAddon(http, { connector: conn.url });
    h.fns.saveSettings({ url: CONNECTOR, key: conn.keys.sandbox });
    h.fns.grantKeyToSpreadsheet(true);
    return h;
  };
  const range = granted();
  const rangeCall = () => range.fns.VERIFYPOLICY(col(0), col(1), col(2));
  const out: Record<string, Use> = {};
  out.range_first = metered(range, [rangeCall]);
  out.range_recalc = metered(range, [rangeCall]);

  const uk = Array.from({ length: ROWS }, (_, i) => `UKM-9999-${String(i).padStart(4, '0')}`);
  const slow = granted();
  const cellCalls = (h: Harness) => uk.map((pn) => () => h.fns.VERIFYPOLICY(pn, 'UK', 'motor'));
  out.cells_first = metered(slow, cellCalls(slow), () => slow.advance(2000));
  out.cells_recalc = metered(slow, cellCalls(slow));
  const burst = granted();
  out.burst_first = metered(burst, cellCalls(burst));
  out.burst_recalc = metered(burst, cellCalls(burst));
  return out;
}

function printQuotas(q: Record<string, Use>): void {
  const ok = (b: boolean) => (b ? 'met' : 'MISSED');
  console.log(
    `\nquotas: ${ROWS.toLocaleString()} rows; a consumer user's day is ${DAY.fetch.toLocaleString()} UrlFetch calls and ${DAY.props.toLocaleString()} property operations ("Quotas for Google Services")`,
  );
  console.log(
    '| | UrlFetch calls | property operations | % of the day (calls / properties) | per cell: calls, properties (worst cell) | cells answered / steered to a range |',
  );
  console.log('|---|---|---|---|---|---|');
  const row = (label: string, u: Use, cells: number) =>
    console.log(
      `| ${label} | ${u.fetch} | ${u.props} | ${((100 * u.fetch) / DAY.fetch).toFixed(1)}% / ${((100 * u.props) / DAY.props).toFixed(1)}% | ${(u.fetch / cells).toFixed(3)} (${u.worstFetch}), ${(u.props / cells).toFixed(3)} (${u.worstProps}) | ${u.answered} / ${u.steered} |`,
    );
  row('one range formula, first run', q.range_first!, ROWS);
  row('one range formula, recalculation', q.range_recalc!, ROWS);
  row('a formula per row, filled down gradually, first run', q.cells_first!, ROWS);
  row('a formula per row, filled down gradually, recalculation', q.cells_recalc!, ROWS);
  row('a formula per row, filled down at once, first run', q.burst_first!, ROWS);
  row('a formula per row, filled down at once, recalculation', q.burst_recalc!, ROWS);
  const c = q.cells_first!;
  const r = q.cells_recalc!;
  const b = q.burst_first!;
  console.log(
    `target, per cell, first run <= ${TARGET.firstFetch} UrlFetch (worst cell ${c.worstFetch}): ${ok(c.worstFetch <= TARGET.firstFetch)}`,
  );
  console.log(
    `target, per cell, first run <= ${TARGET.firstProps} property operations (worst cell ${c.worstProps}): ${ok(c.worstProps <= TARGET.firstProps)}`,
  );
  console.log(
    `target, per cell, recalculation ${TARGET.recalcFetch} UrlFetch (all cells ${r.fetch}): ${ok(r.fetch === TARGET.recalcFetch)}`,
  );
  console.log(
    `target, per cell, recalculation <= ${TARGET.recalcProps} property read (worst cell ${r.worstProps}): ${ok(r.worstProps <= TARGET.recalcProps)}`,
  );
  console.log(
    `target, past the per-minute budget a fresh single cell answers "use a range" without a call (${b.steered} cells did, ${b.fetch} calls for ${b.answered} answered): ${ok(b.steered > 0 && b.fetch === b.answered)}`,
  );
}
