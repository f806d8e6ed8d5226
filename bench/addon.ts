/**
 * bench/addon: UrlFetch calls and simulated wall time to verify 10,000 rows with =VERIFYPOLICY
 * (one range call) and with the "Verify selected rows" sidebar, beside the naive one call per cell.
 * The calls are counted, not computed: the built add-on runs in the test harness (node:vm with
 * Apps Script stand-ins) against the real connector in a child process. Simulated time = 150 ms per
 * round trip (fetch or fetchAll: fetchAll's requests travel in parallel) + the time the add-on
 * asked Utilities.sleep for + the sidebar's 700 ms between polls.
 */
import { buildAddon, loadAddon, startConnectorChild, SyncHttp } from '../test/addon/harness.js';

const ROWS = 10_000;
const RTT_MS = 150;
const SIDEBAR_POLL_GAP_MS = 700;

function rows(): string[][] {
  return Array.from({ length: ROWS }, (_, i) => (i % 5 === 4 ? [`MUT-${100000 + i}`, 'FR', 'health'] : [`UKM-9999-${String(i).padStart(4, '0')}`, 'UK', 'motor']));
}

export async function benchAddon(): Promise<Record<string, number>> {
  buildAddon();
  const http = new SyncHttp();
  const conn = await startConnectorChild({ keys: { sandbox: { mode: 'test' } } });
  const out: Record<string, number> = {};
  try {
    const data = rows();

    // =VERIFYPOLICY over the whole range, then a recalculation.
    const cf = loadAddon(http);
    cf.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    cf.fns.grantKeyToSpreadsheet(true);
    const col = (i: number) => data.map((r) => [r[i]]);
    let t0 = performance.now();
    const res = cf.fns.VERIFYPOLICY(col(0), col(1), col(2)) as string[][];
    out.cf_real_ms = Math.round(performance.now() - t0);
    const bad = res.filter((r) => !/^(verified|unverified|inconclusive)$/.test(String(r[0])));
    if (bad.length) throw new Error(`${bad.length} rows without a result, e.g. ${bad[0]}`);
    out.cf_calls = cf.stats.requests;
    out.cf_round_trips = cf.stats.roundTrips;
    out.cf_sim_ms = cf.stats.roundTrips * RTT_MS + cf.stats.sleptMs;
    cf.fns.VERIFYPOLICY(col(0), col(1), col(2));
    out.cf_recalc_calls = cf.stats.requests - out.cf_calls;

    // Sidebar: the same rows in a sheet, start + polls as the sidebar makes them.
    const sb = loadAddon(http);
    sb.fns.saveSettings({ url: conn.url, key: conn.keys.sandbox });
    const sheet = sb.ss.getActiveSheet();
    sheet.getRange(1, 1, 1, 3).setValues([['Policy number', 'Country', 'Insurance type']]);
    sheet.getRange(2, 1, ROWS, 3).setValues(data);
    t0 = performance.now();
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
    out.sb_sim_ms = sb.stats.roundTrips * RTT_MS + sb.stats.sleptMs + polls * SIDEBAR_POLL_GAP_MS;

    out.naive_calls = ROWS;
    out.naive_sim_ms = ROWS * RTT_MS;
  } finally {
    await conn.stop();
    await http.close();
  }
  const x = (a: number, b: number) => (a / b).toFixed(0);
  console.log(`\nbench/addon: ${ROWS.toLocaleString()} rows, ${RTT_MS} ms per simulated round trip`);
  console.log('| | UrlFetch calls | round trips | simulated time | vs naive (calls) |');
  console.log('|---|---|---|---|---|');
  console.log(`| naive: one call per cell | ${out.naive_calls} | ${out.naive_calls} | ${(out.naive_sim_ms! / 1000).toFixed(0)} s | 1x |`);
  console.log(`| =VERIFYPOLICY, one range | ${out.cf_calls} | ${out.cf_round_trips} | ${(out.cf_sim_ms! / 1000).toFixed(1)} s | ${x(out.naive_calls!, out.cf_calls!)}x fewer |`);
  console.log(`| sidebar (${out.sb_polls} polls) | ${out.sb_calls} | ${out.sb_round_trips} | ${(out.sb_sim_ms! / 1000).toFixed(1)} s | ${x(out.naive_calls!, out.sb_calls!)}x fewer |`);
  console.log(`recalculation: ${out.cf_recalc_calls} calls; real time here: VERIFYPOLICY ${out.cf_real_ms} ms, sidebar ${out.sb_real_ms} ms`);
  return out;
}
