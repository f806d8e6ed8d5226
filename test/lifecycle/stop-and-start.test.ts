/**
 * The built connector stopped and started as a service manager does it: SIGTERM during a long OCR
 * extraction (exit 0 within COVERCHECK_SHUTDOWN_MS, no stack trace, the job handed back and done after
 * the restart) and during a sync request (it completes); start failures caused by a setting (one line
 * naming it, exit 2); ISO timestamps in the log.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { openStore } from '../../connector/src/store/index.js';
import type { JobRecord } from '../../connector/src/store/types.js';
import { corpusPdf } from '../extract/helpers.js';
import { call, pollUntil } from '../helpers/server.js';
import { cleanUp, spawnConnector, stackLines, terminate, whenReady, type ConnectorChild } from './child.js';

const children: ConnectorChild[] = [];
function spawn(opts: Parameters<typeof spawnConnector>[0] = {}): ConnectorChild {
  const c = spawnConnector(opts);
  children.push(c);
  return c;
}
afterAll(async () => Promise.all(children.map((c) => cleanUp(c))));

/** Scanned corpus PDFs' pages in one document: each page is read by OCR, so reading all of them takes many seconds. */
async function longScan(): Promise<Buffer> {
  const out = await PDFDocument.create();
  for (const id of ['001', '011', '016', '021', '028']) {
    const src = await PDFDocument.load(corpusPdf(id));
    for (const page of await out.copyPages(src, src.getPageIndices())) out.addPage(page);
  }
  return Buffer.from(await out.save());
}

/** A key of its own in the child's database (the sandbox key is re-minted, and the old one revoked, at each start). */
async function keyIn(dir: string, mode: 'live' | 'test', scopes: ('verify' | 'extract')[]): Promise<string> {
  const store = await openStore({ databasePath: path.join(dir, 'covercheck.db') });
  try {
    return (await createApiKey(store, { mode, name: 'lifecycle', scopes, credits: 100 })).key;
  } finally {
    await store.close();
  }
}

async function jobRow(dir: string, id: string): Promise<JobRecord | null> {
  const store = await openStore({ databasePath: path.join(dir, 'covercheck.db') });
  try {
    return await store.jobs.get(id);
  } finally {
    await store.close();
  }
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The stop of a connector with nothing in hand: what closing alone costs on this machine now. */
let idleStopMs: number;
beforeAll(async () => {
  const c = spawn();
  await whenReady(c);
  const stop = await terminate(c);
  expect(stop).toMatchObject({ code: 0, signal: null });
  idleStopMs = stop.ms;
}, 90_000);

describe('SIGTERM', () => {
  it('during a long OCR extraction: exit 0 within the budget, no stack trace, the job handed back and done after a restart', async () => {
    const budgetMs = 1500;
    // A lease far longer than the test: the restart can take the job only if the stop gave it back.
    const env = { COVERCHECK_SHUTDOWN_MS: String(budgetMs), COVERCHECK_JOB_LEASE_MS: '600000', COVERCHECK_QUEUE_POLL_MS: '50' };
    const first = spawn({ env });
    const { url } = await whenReady(first);
    const key = await keyIn(first.dir, 'test', ['extract']);
    const form = new FormData();
    form.append('file', new Blob([await longScan()], { type: 'application/pdf' }), 'scan.pdf');
    const res = await fetch(`${url}/api/v1/documents/extract`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    expect(res.status).toBe(202);
    const { job_id: jobId } = (await res.json()) as { job_id: string };
    // Taken by the document lane: its reading has begun.
    for (let row = await jobRow(first.dir, jobId); !row?.lease_owner; row = await jobRow(first.dir, jobId))
      await new Promise((r) => setTimeout(r, 50));

    const stop = await terminate(first);
    expect(stop, first.stderr()).toMatchObject({ code: 0, signal: null });
    expect(stackLines(first.stderr())).toEqual([]);
    expect(first.stderr()).not.toContain('ERR_IPC_CHANNEL_CLOSED');
    // The hand-back is inside the budget; past it the stop only closes what an idle stop closes. Five
    // times the idle stop leaves room for a machine busy with OCR and other suites (measured: 1.1 to
    // 1.6 s against an idle stop of 35 to 75 ms); a stop that waited for the document takes tens of seconds.
    expect(stop.ms).toBeLessThan(budgetMs + 5 * idleStopMs);

    const row = (await jobRow(first.dir, jobId))!;
    if (row.status === 'pending') {
      // Handed back: free for the next taker now, not after the lease's 600 s.
      expect(row.lease_owner).toBeNull();
      expect(Date.parse(row.lease_until!)).toBeLessThanOrEqual(Date.now());
      expect(first.logs().some((l) => l.msg === 'job handed back: the connector is stopping' && l.job_id === jobId)).toBe(true);
    } else {
      expect(row.status).toBe('complete');
    }

    const second = spawn({ dir: first.dir, env });
    const restarted = await whenReady(second);
    const job = await pollUntil(restarted.url, `/api/v1/jobs/${jobId}`, key, (b: { status: string }) => b.status !== 'pending', 150_000);
    expect(job).toMatchObject({ status: 'complete', kind: 'extraction' });
    expect((await terminate(second)).code).toBe(0);
  }, 240_000);

  it('with a sync request in flight: the request completes, new connections are refused, exit 0', async () => {
    let arrived!: () => void;
    const upstreamHit = new Promise<void>((r) => (arrived = r));
    // A registry upstream that answers after 1.5 s: the verification is in flight that long.
    const upstream = http.createServer((_req, res) => {
      arrived();
      setTimeout(() => res.writeHead(404, { 'content-type': 'application/json' }).end('{"found":false}'), 1500);
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const c = spawn({ env: { COVERCHECK_REGISTRY_UPSTREAMS: `UK=http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}` } });
      const { url } = await whenReady(c);
      const key = await keyIn(c.dir, 'live', ['verify']);
      const verification = call(url, 'POST', '/api/v1/verify', {
        key,
        body: { policy_number: 'UKM-4242-0001', country: 'UK', insurance_type: 'motor' },
      });
      await upstreamHit;
      const stopped = terminate(c);
      await new Promise((r) => setTimeout(r, 300));
      // A fresh connection (not the kept-alive one of the request above).
      const late = await new Promise<string>((resolve) => {
        const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
        socket.once('connect', () => resolve('connected'));
        socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? 'error'));
      });
      expect(late).toBe('ECONNREFUSED');
      const answer = await verification;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ status: 'unverified' });
      const exit = await stopped;
      expect(exit, c.stderr()).toMatchObject({ code: 0, signal: null });
      expect(stackLines(c.stderr())).toEqual([]);
    } finally {
      upstream.closeAllConnections();
      await new Promise((r) => upstream.close(r));
    }
  }, 120_000);
});

describe('a start that fails on what a setting names', () => {
  it('prints one line naming the setting, no stack trace, and exits 2: port in use, Redis unreachable, missing credentials, unusable database path', async () => {
    const taken = net.createServer();
    await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
    const takenPort = (taken.address() as net.AddressInfo).port;
    const closedPort = await freePort();
    // A database path under a plain file: its folder cannot be made.
    const notADir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-file-')), 'plain-file');
    fs.writeFileSync(notADir, 'not a folder');
    try {
      const cases: { env: Record<string, string>; line: RegExp }[] = [
        { env: { PORT: String(takenPort) }, line: new RegExp(`^PORT=${takenPort}: the port is in use by another process`) },
        { env: { COVERCHECK_REDIS_URL: `redis://127.0.0.1:${closedPort}` }, line: /^COVERCHECK_REDIS_URL: .*127\.0\.0\.1/ },
        {
          env: { GOOGLE_APPLICATION_CREDENTIALS: '/nonexistent/covercheck-key.json' },
          line: /^GOOGLE_APPLICATION_CREDENTIALS: \/nonexistent\/covercheck-key\.json /,
        },
        {
          env: { COVERCHECK_DB: path.join(notADir, 'covercheck.db') },
          line: /^COVERCHECK_DB=.*plain-file\/covercheck\.db: the database file could not be opened or created/,
        },
      ];
      const runs = cases.map((k) => ({ ...k, child: spawn({ env: k.env }) }));
      for (const { child, line, env } of runs) {
        await child.closed;
        const name = Object.keys(env)[0];
        expect(child.proc.exitCode, `${name}: ${child.stderr()}`).toBe(2);
        const lines = child
          .stderr()
          .split('\n')
          .filter((l) => l.trim() !== '');
        expect(lines, name).toHaveLength(1);
        expect(lines[0], name).toMatch(line);
        expect(stackLines(child.stderr() + child.stdout()), name).toEqual([]);
      }
    } finally {
      await new Promise((r) => taken.close(r));
      fs.rmSync(path.dirname(notADir), { recursive: true, force: true });
    }
  }, 90_000);
});

describe('the log', () => {
  it('stamps every line with an ISO 8601 time', async () => {
    const c = spawn();
    const { url } = await whenReady(c);
    await fetch(`${url}/healthz`);
    const t0 = Date.now();
    await terminate(c);
    const logs = c.logs();
    expect(logs.length).toBeGreaterThan(3);
    for (const l of logs) {
      expect(l.time, JSON.stringify(l)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(Math.abs(Date.parse(l.time as string) - t0)).toBeLessThan(120_000);
    }
  }, 90_000);
});
