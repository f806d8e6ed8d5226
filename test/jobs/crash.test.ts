/**
 * Crash test: the connector as a child process (the run's bundle, as `npm start` runs it), 5 batches of 100 and 20 async jobs accepted,
 * kill -9 mid-way, restart on the same database. Every result must be present, every credit
 * settled exactly once. A slow upstream registry on loopback keeps the work in flight long enough.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { openStore } from '../../connector/src/store/index.js';
import { built } from '../helpers/build.js';
import { call, tempDbPath } from '../helpers/server.js';

const db = tempDbPath('crash');
let upstream: http.Server;
let upstreamHits = 0;
let child: ChildProcess | undefined;

beforeAll(async () => {
  upstream = http.createServer((_req, res) => {
    upstreamHits++;
    setTimeout(() => res.writeHead(404, { 'content-type': 'application/json' }).end('{"found":false}'), 40);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
});

afterAll(async () => {
  child?.kill('SIGKILL');
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
  fs.rmSync(path.dirname(db), { recursive: true, force: true });
});

function start(): Promise<{ proc: ChildProcess; url: string }> {
  const proc = spawn(process.execPath, [built().main], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      COVERCHECK_DB: db,
      COVERCHECK_LOG_LEVEL: 'warn',
      COVERCHECK_REGISTRY_UPSTREAMS: `UK=http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      COVERCHECK_JOB_LEASE_MS: '1000',
      COVERCHECK_QUEUE_POLL_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`connector did not start:\n${out}`)), 30_000);
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const url = /Covercheck connector on (http:\S+)/.exec(out)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ proc, url });
      }
    });
  });
}

/** Policy i of batch b: every 5th is FR health (no registry coverage: inconclusive, refunded). */
function policy(b: number, i: number) {
  return i % 5 === 4
    ? { policy_number: `MUT-${b}${String(i).padStart(5, '0')}`, country: 'FR', insurance_type: 'health' }
    : { policy_number: `UKM-77${b}-${String(i).padStart(4, '0')}`, country: 'UK', insurance_type: 'motor' };
}

describe('kill -9 and restart', () => {
  it('completes every accepted batch and job, none twice, credits settled once', async () => {
    // A fresh database with a live key holding 1,000 credits.
    const first = await start();
    child = first.proc;
    const store = await openStore({ databasePath: db });
    const { key, record } = await createApiKey(store, { mode: 'live', name: 'crash test', scopes: ['verify'], credits: 1000 });
    await store.close();

    const batchIds: string[] = [];
    for (let b = 0; b < 5; b++) {
      const r = await call(first.url, 'POST', '/api/v1/verify/batch', {
        key,
        body: { policies: Array.from({ length: 100 }, (_, i) => policy(b, i)) },
      });
      expect(r.status).toBe(202);
      batchIds.push(r.body.batch_id);
    }
    const jobIds: string[] = [];
    for (let j = 0; j < 20; j++) {
      const r = await call(first.url, 'POST', '/api/v1/verify/async', { key, body: policy(9, j) });
      expect(r.status).toBe(202);
      jobIds.push(r.body.job_id);
    }

    // Let some of it finish, then kill the process without warning.
    await new Promise((r) => setTimeout(r, 700));
    const progress = await call(first.url, 'GET', `/api/v1/batches/${batchIds[0]}`, { key });
    first.proc.kill('SIGKILL');
    await new Promise((r) => first.proc.once('exit', r));
    const hitsBeforeRestart = upstreamHits;
    expect(hitsBeforeRestart).toBeGreaterThan(0);
    expect(hitsBeforeRestart).toBeLessThan(520);
    expect(progress.body.status).not.toBe('complete');

    const second = await start();
    child = second.proc;
    const deadline = Date.now() + 60_000;
    const batches: any[] = [];
    for (const id of batchIds) {
      for (;;) {
        const r = await call(second.url, 'GET', `/api/v1/batches/${id}`, { key });
        if (r.body.status === 'complete') {
          batches.push(r.body);
          break;
        }
        if (Date.now() > deadline) throw new Error(`batch ${id} not complete: ${r.body.completed_count}/100`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    const jobs: any[] = [];
    for (const id of jobIds) {
      for (;;) {
        const r = await call(second.url, 'GET', `/api/v1/jobs/${id}`, { key });
        if (r.body.status !== 'pending') {
          jobs.push(r.body);
          break;
        }
        if (Date.now() > deadline) throw new Error(`job ${id} still pending`);
        await new Promise((res) => setTimeout(res, 100));
      }
    }
    second.proc.kill('SIGTERM');
    await new Promise((r) => second.proc.once('exit', r));
    child = undefined;

    // Every result present, in order, with the expected outcome.
    for (const [b, batch] of batches.entries()) {
      expect(batch.completed_count).toBe(100);
      expect(batch.results.map((x: any) => x.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
      for (const x of batch.results) {
        expect(x.error).toBeUndefined();
        expect(x.policy_number).toBe(policy(b, x.index).policy_number);
        expect(x.result.status).toBe(x.index % 5 === 4 ? 'inconclusive' : 'unverified');
      }
    }
    expect(jobs.every((j) => j.status === 'complete')).toBe(true);

    // Credits: 520 reserved, 104 refunded (the inconclusive ones), each settlement once.
    const check = await openStore({ databasePath: db });
    const ledger = await check.credits.ledger(record.id);
    await check.close();
    const reserved = ledger.filter((e) => e.reason === 'reserve').reduce((s, e) => s + e.delta, 0);
    const refunds = ledger.filter((e) => e.reason === 'refund');
    expect(reserved).toBe(-520);
    expect(refunds).toHaveLength(104);
    expect(new Set(refunds.map((e) => e.ref)).size).toBe(104);
    expect(ledger.reduce((s, e) => s + e.delta, 0)).toBe(-416);
    const charged =
      batches.flatMap((b) => b.results).filter((x: any) => x.result.credits_charged === 1).length +
      jobs.filter((j) => j.result.credits_charged === 1).length;
    expect(charged).toBe(416);
    expect(ledger.at(-1)!.balance_after).toBe(1000 - 416);
  }, 120_000);
});
