/**
 * bench/batch: (1) time from submitting a batch of 100 to `complete` as seen by a client polling
 * every 5 ms (target < 200 ms); (2) 1,000 async jobs: how fast the API accepts them and how fast
 * the workers drain them (workers started only once all are queued), beside the sync endpoint's
 * rate measured in the same run.
 */
import { call } from '../test/helpers/server.js';
import { drive, fmt, startTarget } from './lib.js';

interface TargetInfo {
  connectorPort: number;
  liveKey: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const policy = (i: number) => ({ policy_number: `UKM-1000-${String(i % 8).padStart(4, '0')}`, country: 'UK', insurance_type: 'motor' });

async function batchLatency(base: string, key: string): Promise<number[]> {
  const times: number[] = [];
  for (let round = 0; round < 12; round++) {
    const started = performance.now();
    const r = await call(base, 'POST', '/api/v1/verify/batch', {
      key,
      body: { policies: Array.from({ length: 100 }, (_, i) => policy(i)) },
    });
    if (r.status !== 202) throw new Error(`batch refused: ${JSON.stringify(r.body)}`);
    for (;;) {
      const b = await call(base, 'GET', `/api/v1/batches/${r.body.batch_id}`, { key });
      if (b.body.status === 'complete') break;
      await sleep(5);
    }
    if (round >= 2) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

export async function benchBatch(): Promise<Record<string, number>> {
  // Run 1: sync rate and batch latency, workers running.
  const a = await startTarget<TargetInfo>('bench/servers/verify-target.ts');
  const out: Record<string, number> = {};
  try {
    const base = `http://127.0.0.1:${a.info.connectorPort}`;
    const headers = { authorization: `Bearer ${a.info.liveKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify(policy(1));
    await drive({ url: `${base}/api/v1/verify`, method: 'POST', headers, body, durationS: 2 });
    const sync = await drive({ url: `${base}/api/v1/verify`, method: 'POST', headers, body, durationS: 5 });
    // Acceptance rate of async submissions while the workers process them (a realistic mix).
    const accept = await drive({ url: `${base}/api/v1/verify/async`, method: 'POST', headers, body, durationS: 5 });
    if (accept.non2xx > 0) throw new Error(`${accept.non2xx} async submissions refused`);
    const times = await batchLatency(base, a.info.liveKey);
    out.accept_rps = accept.rps;
    out.sync_rps = sync.rps;
    out.batch_p50_ms = pct(times, 50);
    out.batch_max_ms = times.at(-1)!;
  } finally {
    await a.stop();
  }

  // Run 2: 1,000 async jobs accepted with workers stopped, then drained.
  const b = await startTarget<TargetInfo>('bench/servers/verify-target.ts', { BENCH_DEFER_WORKERS: '1' });
  try {
    const base = `http://127.0.0.1:${b.info.connectorPort}`;
    const headers = { authorization: `Bearer ${b.info.liveKey}`, 'content-type': 'application/json' };
    const jobs = Number(process.env.BENCH_JOBS ?? 1000);
    const accepted = await drive({
      url: `${base}/api/v1/verify/async`,
      method: 'POST',
      headers,
      body: JSON.stringify(policy(1)),
      connections: 10,
      durationS: 60,
      amount: jobs,
    });
    if (accepted.non2xx > 0) throw new Error(`${accepted.non2xx} submissions refused`);
    // The last job accepted is the last one leased (oldest first); find its id, start the workers, wait for it.
    const log = await call(base, 'POST', '/api/v1/verify/async', { key: b.info.liveKey, body: policy(2) });
    const started = performance.now();
    b.signal('SIGUSR2');
    for (;;) {
      const j = await call(base, 'GET', `/api/v1/jobs/${log.body.job_id}`, { key: b.info.liveKey });
      if (j.body.status !== 'pending') break;
      await sleep(2);
    }
    const drainMs = performance.now() - started;
    out.drain_jobs_per_s = (jobs + 1) / (drainMs / 1000);
    console.log('bench/batch');
    console.log(
      `  batch of 100, submit -> complete (client polls every 5 ms, 10 rounds): p50 ${fmt(out.batch_p50_ms!)} ms   max ${fmt(out.batch_max_ms!)} ms   (target < 200 ms)`,
    );
    console.log(
      `  POST /api/v1/verify/async accepted at ${fmt(out.accept_rps!, 0)} req/s while workers ran (each a committed insert + credit reservation)`,
    );
    console.log(`  ${jobs + 1} queued async jobs drained by 4 workers in ${fmt(drainMs, 0)} ms -> ${fmt(out.drain_jobs_per_s, 0)} jobs/s`);
    console.log(
      `  sync POST /api/v1/verify in the same bench: ${fmt(out.sync_rps!, 0)} req/s   drain / sync ${fmt(out.drain_jobs_per_s / out.sync_rps!, 2)}`,
    );
    return out;
  } finally {
    await b.stop();
  }
}
