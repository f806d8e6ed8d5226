/**
 * bench/extract: accuracy, ms per text page and per scanned page and peak RSS over the corpus
 * (scripts/eval-extract.ts, in-process pipeline); then the connector with its extraction pool:
 * p99 of sync verify at a paced 200 req/s while four scanned PDFs are extracted, beside its idle
 * p99 in the same run, and the connector's peak RSS (VmHWM, worker threads included). The connector
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

function peakRssMb(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
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
    await pacedLoad({ ...verify, rate: 200, durationS: 2 });
    const idle = await pacedLoad({ ...verify, rate: 200, durationS: 5 });

    // Four scanned corpus PDFs; the pool (cores - 1 threads) works through them while verify runs.
    const scans = ['001', '005', '009', '011'];
    const jobs: string[] = [];
    for (const id of scans) {
      const form = new FormData();
      form.append('file', new Blob([fs.readFileSync(`test/fixtures/policies/${id}.pdf`)], { type: 'application/pdf' }), `${id}.pdf`);
      const res = await fetch(`${base}/api/v1/documents/extract`, { method: 'POST', headers: { authorization: `Bearer ${info.testKey}` }, body: form });
      jobs.push(((await res.json()) as { job_id: string }).job_id);
    }
    const started = performance.now();
    const busy = await pacedLoad({ ...verify, rate: 200, durationS: 5 });
    let stillRunning = 0;
    for (const id of jobs) if ((await call(base, 'GET', `/api/v1/jobs/${id}`, { key: info.testKey })).body.status === 'pending') stillRunning++;
    for (const id of jobs) {
      for (;;) {
        const j = await call(base, 'GET', `/api/v1/jobs/${id}`, { key: info.testKey });
        if (j.body.status !== 'pending') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    const allDone = performance.now() - started;
    const rss = peakRssMb(info.pid);
    console.log('bench/extract: connector with its extraction pool');
    console.log(`  sync verify paced at 200 req/s, idle:                p50 ${fmt(idle.p50, 2)} ms   p99 ${fmt(idle.p99, 2)} ms`);
    console.log(`  sync verify paced at 200 req/s, 4 scans extracting:  p50 ${fmt(busy.p50, 2)} ms   p99 ${fmt(busy.p99, 2)} ms   ratio p99 ${fmt(busy.p99 / idle.p99, 2)} (target < 2)`);
    console.log(`  (${stillRunning} of 4 extractions were still running when the busy window closed; all 4 done after ${fmt(allDone / 1000, 1)} s)`);
    console.log(`  connector peak RSS (VmHWM, pool threads and OCR included): ${fmt(rss, 0)} MB (target < 400 MB)`);
    return { idle_p99: idle.p99, busy_p99: busy.p99, ratio: busy.p99 / idle.p99, peak_rss_mb: rss };
  } finally {
    await connector.stop();
  }
}
