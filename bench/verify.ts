/**
 * bench/verify: POST /api/v1/verify against a bare Express hello route, same process, same run.
 * Prints requests/s of each, the ratio, and p50/p99; then p99 of verify at half its peak rate.
 * Peak rates are measured in three interleaved rounds (bare, verify, ... in turn) and reported as
 * medians: on this shared 2-core VM one 8-second window of either can be 20% off, and a ratio of
 * two single windows taken a minute apart moves with it. A round's peak for a route is the better
 * of 10 and 32 connections: a charged verification waits for its group commit, so 10 connections
 * leave the connector idle part of the time (9,600–10,700 req/s against 11,800 with 32), while
 * the bare route does best with 10 (12,800–13,400 against 11,500–12,400).
 * Targets: ratio >= 0.8; at a paced rate (half the verify peak), verify's p99 no higher than bare
 * Express's p99 at the same rate in the same run.
 *
 * Metrics (docs/metrics.md) are on in the connector above, as `npm start` runs it. A second target
 * with COVERCHECK_METRICS=off is measured in the same run, in many short pairs of windows side by
 * side: what else the shared machine runs changes over seconds, so it falls on both of a pair, and
 * the window that comes second in a pair runs in the wake of the first (its WAL, its garbage), so
 * the first alternates and an even number of pairs cancels that. The geometric mean of the pairs'
 * rate ratios, on/off (the tenth at each end left out), is what recording costs a sync verification
 * (target: at least 0.97); the processor time each target spent per answer is compared the same way.
 * The two are not driven at once: two closed loops sharing the processors do not settle, one of
 * them takes the machine.
 */
import fs from 'node:fs';
import { drive, fmt, startTarget, type Load, type Measured } from './lib.js';
import { startLoadGenerator, type PacedResult } from './paced.js';

interface TargetInfo {
  pid: number;
  connectorPort: number;
  barePort: number;
  likeConnectorPort: number;
  liveKey: string;
  testKey: string;
}

const ROUNDS = 3;
/** Pairs of windows, on and off (even: each order as often), and each window's length in seconds. */
const METRICS_PAIRS = 30;
const METRICS_WINDOW_S = 1;
/** The pair runs at verify's better connection count (above), the same for both. */
const METRICS_CONNECTIONS = 32;

/** Processor time a process has used, user and system, in ms (/proc counts in ticks of 10 ms). */
function cpuMs(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

type Timed = Measured & { cpuUsPerRequest: number };

/** One window at METRICS_CONNECTIONS, with the target's processor time per answered request. */
async function timed(load: Load, pid: number, durationS: number): Promise<Timed> {
  const before = cpuMs(pid);
  const m = await drive({ ...load, connections: METRICS_CONNECTIONS, durationS });
  return { ...m, cpuUsPerRequest: ((cpuMs(pid) - before) * 1000) / m.requests };
}
const CONNECTIONS = [10, 32];

type Peak = Measured & { connections: number };

/** The better of the two connection counts, with how many it took. */
async function peak(load: Load, durationS: number): Promise<Peak> {
  let best: Peak | null = null;
  for (const connections of CONNECTIONS) {
    const m = await drive({ ...load, connections, durationS });
    if (!best || m.rps > best.rps) best = { ...m, connections };
  }
  return best!;
}

/** The round with the median rate (its latencies with it). */
function median<M extends Measured>(rounds: M[]): M {
  return [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;
}

export async function benchVerify(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const durationS = opts.durationS ?? 8;
  const roundS = 4;
  const { info, stop } = await startTarget<TargetInfo>('bench/servers/verify-target.ts');
  const off = await startTarget<TargetInfo>('bench/servers/verify-target.ts', { COVERCHECK_METRICS: 'off' }).catch(async (err: unknown) => {
    await stop();
    throw err;
  });
  try {
    const verifyLoad = (key: string) => ({
      url: `http://127.0.0.1:${info.connectorPort}/api/v1/verify`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', provider: 'HDI Global SE' }),
    });
    const loads: Record<'bare' | 'likeConnector' | 'verify' | 'sandbox', Load> = {
      bare: { url: `http://127.0.0.1:${info.barePort}/hello` },
      likeConnector: { url: `http://127.0.0.1:${info.likeConnectorPort}/hello` },
      verify: verifyLoad(info.liveKey),
      sandbox: verifyLoad(info.testKey),
    };
    const metricsOff: Load = { ...verifyLoad(off.info.liveKey), url: `http://127.0.0.1:${off.info.connectorPort}/api/v1/verify` };
    // Warm the servers (JIT, SQLite page cache), then measure. The metrics-off target gets the same
    // warm-up as the main one, hello routes included: Express's code, shared by the apps of a
    // process, is compiled for what it has seen, and the pair must differ in metrics only.
    const offHello = [`http://127.0.0.1:${off.info.barePort}/hello`, `http://127.0.0.1:${off.info.likeConnectorPort}/hello`];
    for (const load of [loads.bare, loads.likeConnector, loads.verify, ...offHello.map((url) => ({ url })), metricsOff])
      await drive({ ...load, durationS: 2 });
    // Metrics on (the main target) and off, side by side. First, while both stores hold as little as
    // each other (every charge adds a ledger row).
    const pairs: { on: Timed; off: Timed }[] = [];
    for (let r = 0; r < METRICS_PAIRS; r++) {
      const on = () => timed(loads.verify, info.pid, METRICS_WINDOW_S);
      const offRun = () => timed(metricsOff, off.info.pid, METRICS_WINDOW_S);
      if (r % 2 === 0) pairs.push({ on: await on(), off: await offRun() });
      else {
        const first = await offRun();
        pairs.push({ on: await on(), off: first });
      }
    }
    // A window that met a burst of the machine's other work is an outlier of either sign: the tenth
    // at each end is left out.
    const geomean = (xs: number[]) => {
      const logs = xs.map(Math.log).sort((a, b) => a - b);
      const kept = logs.slice(Math.floor(logs.length / 10), logs.length - Math.floor(logs.length / 10));
      return Math.exp(kept.reduce((sum, x) => sum + x, 0) / kept.length);
    };
    const rateRatios = pairs.map((p) => p.on.rps / p.off.rps);
    const cpuRatios = pairs.map((p) => p.on.cpuUsPerRequest / p.off.cpuUsPerRequest);
    const metricsRatio = geomean(rateRatios);
    const cpuRatio = geomean(cpuRatios);
    const spread = (xs: number[]) => `${fmt(Math.min(...xs), 2)}–${fmt(Math.max(...xs), 2)}`;
    const metricsOn = median(pairs.map((p) => p.on));
    const metricsOffPeak = median(pairs.map((p) => p.off));
    const recorded = await fetch(`http://127.0.0.1:${info.connectorPort}/metrics`).then((r) => r.text());
    const counted = Number(
      /^covercheck_http_request_duration_seconds_count\{route="verify",status="200"\} (\d+)$/m.exec(recorded)?.[1] ?? 0,
    );
    const rounds = { bare: [] as Peak[], likeConnector: [] as Peak[], verify: [] as Peak[], sandbox: [] as Peak[] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of Object.keys(loads) as (keyof typeof loads)[]) rounds[name].push(await peak(loads[name], roundS));
    }
    const bare = median(rounds.bare);
    const likeConnector = median(rounds.likeConnector);
    const verify = median(rounds.verify);
    const sandbox = median(rounds.sandbox);
    const non2xx = [...rounds.verify, ...rounds.sandbox, ...pairs.flatMap((p) => [p.on, p.off])].reduce((n, m) => n + m.non2xx, 0);
    const halfRate = Math.floor(verify.rps / 2);
    const paced = loads.verify;
    // Half rate from a generator process of its own (bench/paced.ts), after a window at the same
    // rate that is printed but not counted: the figure is the steady state at that rate, not the
    // wake of the full-speed runs before it (their garbage, their WAL).
    const gen = await startLoadGenerator();
    let settle: PacedResult, half: PacedResult, likeHalf: PacedResult, bareHalf: PacedResult;
    try {
      settle = await gen.run({ ...paced, rate: halfRate, durationS: 3 });
      half = await gen.run({ ...paced, rate: halfRate, durationS });
      likeHalf = await gen.run({ ...loads.likeConnector, rate: halfRate, durationS });
      bareHalf = await gen.run({ ...loads.bare, rate: halfRate, durationS });
    } finally {
      gen.close();
    }
    const ratio = verify.rps / bare.rps;
    const conns = (rs: Peak[]) => `connections ${rs.map((m) => m.connections).join('/')}`;
    console.log(
      `bench/verify (autocannon, live key charged each call; median of ${ROUNDS} interleaved rounds, each the better of ${CONNECTIONS.join(' and ')} connections for ${roundS} s)`,
    );
    console.log(
      `  bare express GET /hello   ${fmt(bare.rps, 0).padStart(7)} req/s   p50 ${bare.p50} ms   p99 ${bare.p99} ms   ${conns(rounds.bare)}`,
    );
    console.log(
      `  POST /api/v1/verify       ${fmt(verify.rps, 0).padStart(7)} req/s   p50 ${verify.p50} ms   p99 ${verify.p99} ms   non-2xx ${non2xx}   ${conns(rounds.verify)}`,
    );
    console.log(
      `  POST /api/v1/verify (sandbox key: no charge written) ${fmt(sandbox.rps, 0)} req/s   p50 ${sandbox.p50} ms   p99 ${sandbox.p99} ms   ${conns(rounds.sandbox)}`,
    );
    console.log(
      `  ratio verify/bare         ${fmt(ratio, 2)}   (target >= 0.8)   rounds: ${rounds.verify.map((v, i) => fmt(v.rps / rounds.bare[i]!.rps, 2)).join(' ')}`,
    );
    console.log(
      `  the hello route served as the connector is (createHttpServer) ${fmt(likeConnector.rps, 0)} req/s   p50 ${likeConnector.p50} ms   p99 ${likeConnector.p99} ms`,
    );
    console.log(`  ratio verify/that route   ${fmt(verify.rps / likeConnector.rps, 2)}   (verify's own work against the same serving)`);
    console.log(
      `  metrics (${METRICS_PAIRS} pairs of ${METRICS_WINDOW_S} s windows at ${METRICS_CONNECTIONS} connections, on and off side by side, the first alternating; rates and times: medians):`,
    );
    console.log(
      `    POST /api/v1/verify, metrics on   ${fmt(metricsOn.rps, 0).padStart(7)} req/s   p50 ${metricsOn.p50} ms   p99 ${metricsOn.p99} ms`,
    );
    console.log(
      `    POST /api/v1/verify, metrics off  ${fmt(metricsOffPeak.rps, 0).padStart(7)} req/s   p50 ${metricsOffPeak.p50} ms   p99 ${metricsOffPeak.p99} ms`,
    );
    console.log(
      `    rate ratio on/off (trimmed geometric mean of the pairs') ${fmt(metricsRatio, 3)}   (target >= 0.97: ${metricsRatio >= 0.97 ? 'met' : 'NOT met'})   pairs ${spread(rateRatios)}`,
    );
    console.log(
      `    target processor time per answer: on ${fmt(metricsOn.cpuUsPerRequest, 1)} µs, off ${fmt(metricsOffPeak.cpuUsPerRequest, 1)} µs; ratio on/off (the same mean) ${fmt(cpuRatio, 3)}   pairs ${spread(cpuRatios)}`,
    );
    console.log(`    verify answers the metrics counted: ${counted}`);
    console.log(`  paced at half the verify peak, ${halfRate} req/s (open loop, latency from send, generator process of its own):`);
    console.log(`    POST /api/v1/verify, first 3 s (not counted) p99 ${settle.p99} ms`);
    console.log(
      `    POST /api/v1/verify     p50 ${half.p50} ms   p90 ${half.p90} ms   p99 ${half.p99} ms   max ${half.max} ms   failed ${half.failed}`,
    );
    console.log(
      `    hello served as the connector is  p50 ${likeHalf.p50} ms   p90 ${likeHalf.p90} ms   p99 ${likeHalf.p99} ms   max ${likeHalf.max} ms`,
    );
    console.log(
      `    bare express GET /hello p50 ${bareHalf.p50} ms   p90 ${bareHalf.p90} ms   p99 ${bareHalf.p99} ms   max ${bareHalf.max} ms`,
    );
    console.log(
      `    verify p99 / bare p99   ${fmt(half.p99 / bareHalf.p99, 2)}   (target <= 1: ${half.p99 <= bareHalf.p99 ? 'met' : 'NOT met'})`,
    );
    if (non2xx > 0 || half.failed > 0) console.log('  WARNING: non-2xx answers during the run; figures are not valid');
    return {
      bare_rps: bare.rps,
      like_connector_rps: likeConnector.rps,
      verify_rps: verify.rps,
      sandbox_rps: sandbox.rps,
      ratio,
      verify_p99: verify.p99,
      half_rate_p99: half.p99,
      like_connector_half_rate_p99: likeHalf.p99,
      bare_half_rate_p99: bareHalf.p99,
      verify_metrics_on_rps: metricsOn.rps,
      verify_metrics_off_rps: metricsOffPeak.rps,
      metrics_ratio: metricsRatio,
      metrics_cpu_ratio: cpuRatio,
    };
  } finally {
    await Promise.all([stop(), off.stop()]);
  }
}
