/**
 * bench/extract: accuracy, ms per text page and per scanned page and peak RSS over the corpus
 * (scripts/eval-extract.ts, in-process pipeline); then the connector with its extraction pool:
 * p99 of sync verify at a paced 200 req/s while four scanned PDFs are extracted, beside its idle
 * p99 in the same run (alternating rounds, median ratio), and the peak RSS of the connector and its
 * extraction process together. The connector
 * is the production build run by plain node, as `npm start` runs it: under tsx the in-process
 * evaluation's RSS also holds transformed copies of every module (pdf.js: ~390 MB instead of ~37 MB).
 * Targets: < 50 ms per text page, < 3 s per scanned page, < 400 MB peak RSS, busy p99 < 2x idle.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { call } from '../test/helpers/server.js';
import { buildConnector, fmt, startConnectorBuild } from './lib.js';
import { pacedLoad } from './paced.js';

/** Idle/busy window pairs. */
const ROUNDS = 5;

/** A /proc/<pid>/status figure in MB (0 once the process is gone). */
function statusMb(pid: number, field: 'VmRSS' | 'VmHWM' | 'Pss'): number {
  try {
    const file = field === 'Pss' ? `/proc/${pid}/smaps_rollup` : `/proc/${pid}/status`;
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(file, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The connector and its descendants (the extraction process). */
function processTree(pid: number): number[] {
  const out = [pid];
  for (let i = 0; i < out.length; i++) {
    const p = out[i]!;
    let tids: string[] = [];
    try {
      tids = fs.readdirSync(`/proc/${p}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        out.push(...fs.readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number));
      } catch {
        // thread or process ended
      }
    }
  }
  return out;
}

/**
 * Samples the RSS of the connector's whole process tree every 50 ms and keeps the largest sum; also
 * keeps each process's own peak (VmHWM), whose sum bounds the tree's peak from above.
 */
function watchTreeRss(pid: number): { stop(): { peakSumMb: number; hwmSumMb: number; peakPssMb: number } } {
  let peakSum = 0;
  let peakPss = 0;
  const hwm = new Map<number, number>();
  const sample = () => {
    let sum = 0;
    let pss = 0;
    for (const p of processTree(pid)) {
      sum += statusMb(p, 'VmRSS');
      pss += statusMb(p, 'Pss');
      hwm.set(p, Math.max(hwm.get(p) ?? 0, statusMb(p, 'VmHWM')));
    }
    peakSum = Math.max(peakSum, sum);
    peakPss = Math.max(peakPss, pss);
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { peakSumMb: peakSum, hwmSumMb: [...hwm.values()].reduce((a, b) => a + b, 0), peakPssMb: peakPss };
    },
  };
}

export async function benchExtract(): Promise<Record<string, number>> {
  console.log('bench/extract: corpus evaluation (scripts/eval-extract.ts)');
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/eval-extract.ts'], { maxBuffer: 1 << 22 });
  console.log(stdout.replace(/^/gm, '  ').trimEnd());

  // The connector as deployed: the production build, its extraction pool on cores - 1 threads.
  await buildConnector();
  const connector = await startConnectorBuild();
  const base = connector.url;
  const info = { testKey: connector.sandboxKey, pid: connector.pid };
  try {
    const verify = {
      url: `${base}/api/v1/verify`,
      method: 'POST' as const,
      headers: { authorization: `Bearer ${info.testKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor' }),
    };
    const rssWatch = watchTreeRss(info.pid);
    await pacedLoad({ ...verify, rate: 200, durationS: 2 });

    // A p99 of one 5 s window at 200 req/s is its 10th-worst request, so one idle/busy pair is noisy
    // (idle alone varies 3-6 ms here). Rounds alternate idle and busy windows; the median ratio is
    // the figure. The busy window closes when the last of the four extractions finishes, so it never
    // includes idle time after them.
    const scans = ['001', '005', '009', '011'];
    const rounds: { idle: number; busy: number; busyS: number; sent: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const idle = await pacedLoad({ ...verify, rate: 200, durationS: 5 });
      const jobs: string[] = [];
      for (const id of scans) {
        const form = new FormData();
        form.append('file', new Blob([fs.readFileSync(`test/fixtures/policies/${id}.pdf`)], { type: 'application/pdf' }), `${id}.pdf`);
        const res = await fetch(`${base}/api/v1/documents/extract`, { method: 'POST', headers: { authorization: `Bearer ${info.testKey}` }, body: form });
        jobs.push(((await res.json()) as { job_id: string }).job_id);
      }
      let done = false;
      const watch = (async () => {
        for (const id of jobs) {
          while ((await call(base, 'GET', `/api/v1/jobs/${id}`, { key: info.testKey })).body.status === 'pending') await new Promise((r) => setTimeout(r, 100));
        }
        done = true;
      })();
      const started = performance.now();
      const busy = await pacedLoad({ ...verify, rate: 200, durationS: 60, stopWhen: () => done });
      await watch;
      rounds.push({ idle: idle.p99, busy: busy.p99, busyS: (performance.now() - started) / 1000, sent: busy.sent });
    }
    const rss = rssWatch.stop();
    const ratios = rounds.map((r) => r.busy / r.idle);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log('bench/extract: connector with its extraction pool');
    console.log(`  sync verify paced at 200 req/s; p99 idle, then p99 while 4 scans are extracted (the window ends with them):`);
    for (const [i, r] of rounds.entries()) {
      console.log(`    round ${i + 1}: idle p99 ${fmt(r.idle, 2)} ms   busy p99 ${fmt(r.busy, 2)} ms (${r.sent} requests over ${fmt(r.busyS, 1)} s)   ratio ${fmt(r.busy / r.idle, 2)}`);
    }
    console.log(`  median ratio ${fmt(median(ratios), 2)} (target < 2); worst ${fmt(Math.max(...ratios), 2)}`);
    console.log(`  peak RSS of the connector and its extraction process together: ${fmt(rss.peakSumMb, 0)} MB sampled every 50 ms, at most ${fmt(rss.hwmSumMb, 0)} MB (sum of each one's VmHWM) (target < 400 MB)`);
    console.log(`  the same as PSS (pages shared by the two processes, such as node's own code, counted once): ${fmt(rss.peakPssMb, 0)} MB`);
    return { median_ratio: median(ratios), worst_ratio: Math.max(...ratios), peak_rss_mb: rss.peakSumMb, hwm_sum_mb: rss.hwmSumMb };
  } finally {
    await connector.stop();
  }
}
