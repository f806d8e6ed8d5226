/**
 * bench/datasets: with 10,000 datasets and a 100,000-point series loaded, p50 and p99 of a search
 * and of a latest-100 series read, beside a bare Express route in the same process and run.
 * One request at a time, timed in the client with performance.now(): latency, not throughput.
 * Targets: search < 5 ms p50, series < 2 ms p50.
 */
import { fmt, sequentialLatency, startTarget } from './lib.js';

export async function benchDatasets(opts: { durationS?: number } = {}): Promise<Record<string, number>> {
  const { info, stop } = await startTarget<{ port: number; barePort: number; datasets: number }>('bench/servers/datasets-target.ts');
  const durationS = opts.durationS ?? 5;
  try {
    const routes: [string, string][] = [
      ['bare GET /hello', `http://127.0.0.1:${info.barePort}/hello`],
      ['search ?q=motor insurance', `http://127.0.0.1:${info.port}/api/v1/datasets?q=motor%20insurance`],
      ['search ?q=clai&cadence=monthly', `http://127.0.0.1:${info.port}/api/v1/datasets?q=clai&cadence=monthly`],
      ['list, no q, offset 5000', `http://127.0.0.1:${info.port}/api/v1/datasets?offset=5000`],
      ['series latest 100 of 100,000', `http://127.0.0.1:${info.port}/api/v1/datasets/gen-big-series/series`],
    ];
    const out: Record<string, number> = {};
    console.log(`bench/datasets (${info.datasets} datasets; one request at a time, ${durationS} s each)`);
    for (const [label, url] of routes) {
      await sequentialLatency(url, 1);
      const m = await sequentialLatency(url, durationS);
      if (m.failed > 0) throw new Error(`${label}: ${m.failed} failed answers`);
      out[`${label} p50`] = m.p50;
      out[`${label} p99`] = m.p99;
      console.log(`  ${label.padEnd(34)} p50 ${fmt(m.p50, 2)} ms   p99 ${fmt(m.p99, 2)} ms`);
    }
    return out;
  } finally {
    await stop();
  }
}
