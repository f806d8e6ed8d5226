/**
 * The fuzz suite (issue 17, "Done means"): thousands of malformed and adversarial requests to
 * every route of a real connector on loopback, in a child process (server-child.ts). Asserts that
 * every answer is the contract's (check.ts: no 5xx but 503 with Retry-After, error bodies in the
 * contract's schema), that the process never dies, that its event loop is never blocked for more
 * than 200 ms of CPU (stall-monitor.ts), and that /healthz is green afterwards.
 *
 * Seeded and reproducible: FUZZ_SEED (default 17) and FUZZ_RUNS (default 3000) choose the run;
 * a failure prints the offending request, the seed and the fast-check path, and
 * `FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz/connector.test.ts` replays exactly
 * that request. FUZZ_EXTRACTION=1 runs the real PDF extraction on what is uploaded.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ASYNC_BODY_LIMIT } from '../../connector/src/routes/jobs.js';
import { built } from '../helpers/build.js';
import { sendRaw, type RawRequest } from '../helpers/raw-http.js';
import { buildRequest, caseArbitrary, describeRequest, ROUTES, type Case, type Env } from './cases.js';
import { problemWith } from './check.js';
import { buildHostilePdfs } from './hostile-pdfs.js';
import type { Stall, StallReport } from './stall-monitor.js';

const SEED = Number(process.env.FUZZ_SEED ?? 17);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const PATH = process.env.FUZZ_PATH;
const JSON_LIMIT = 64 * 1024; // COVERCHECK_JSON_LIMIT_KB's default, which server-child.ts keeps

interface Ready {
  type: 'ready';
  url: string;
  pid: number;
  keys: Env['keys'];
  ids: Env['ids'];
  routes: string[];
}

let child: ChildProcess;
let ready: Ready;
let env: Env;
let exited: string | null = null;
let stderrTail = '';
const stalls: Stall[] = [];
/** What was sent when, to name the requests in flight during a stall. */
const sent: { started: number; ended: number; req: RawRequest }[] = [];
let pendingReport: ((r: StallReport) => void) | null = null;

beforeAll(async () => {
  const pdfs = await buildHostilePdfs();
  child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'server-child.ts'), JSON.stringify(process.env.FUZZ_EXTRACTION === '1' ? { extraction: true, extractionHost: built().extractHost } : {})], {
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
  });
  child.stderr!.on('data', (c: Buffer) => {
    stderrTail = (stderrTail + c.toString()).slice(-4000);
  });
  child.on('exit', (code, signal) => {
    exited = `exit code ${code}${signal ? `, signal ${signal}` : ''}`;
  });
  ready = await new Promise<Ready>((resolve, reject) => {
    child.on('message', (msg: { type: string; stall?: Stall; report?: StallReport }) => {
      if (msg.type === 'ready') resolve(msg as unknown as Ready);
      if (msg.type === 'stall') stalls.push(msg.stall!);
      if (msg.type === 'report') pendingReport?.(msg.report!);
    });
    child.on('exit', () => reject(new Error(`the fuzz server did not start (${exited}):\n${stderrTail}`)));
  });
  env = { keys: ready.keys, ids: ready.ids, pdfs, limits: { json: JSON_LIMIT, async: ASYNC_BODY_LIMIT } };
}, 120_000);

afterAll(async () => {
  if (!child || exited) return;
  const gone = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await gone;
});

/**
 * The child's stall report. The round trip also flushes any stall it has seen so far, and fails as
 * soon as the child exits: a crash caused by the last request (an 'error' event nobody listens to
 * fires a tick or two after the response went out) ends the process before it gets to answer.
 */
function report(): Promise<StallReport> {
  return new Promise((resolve, reject) => {
    const onExit = () => {
      clearTimeout(timer);
      reject(new Error(`the server process died (${exited})`));
    };
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      reject(new Error('no stall report from the server within 10 s'));
    }, 10_000);
    pendingReport = (r) => {
      clearTimeout(timer);
      child.off('exit', onExit);
      pendingReport = null;
      resolve(r);
    };
    if (exited) return onExit();
    child.once('exit', onExit);
    // With a callback a failed send (the child just died) is reported there, not as an 'error' event.
    child.send({ type: 'report' }, (err) => {
      if (err) onExit();
    });
  });
}

/** A fresh portal form for cases that post one with a valid CSRF field. */
async function portalForm(): Promise<Env['portalForm']> {
  const out = await sendRaw(ready.url, { method: 'GET', path: '/portal/', headers: [] });
  if (!out.ok) return undefined;
  const cookie = /cc_portal_sid=[^;]+/.exec(out.response.headers['set-cookie'] ?? '')?.[0];
  const csrf = /name="csrf" value="([^"]+)"/.exec(out.response.text)?.[1];
  return cookie && csrf ? { cookie, csrf } : undefined;
}

function inFlightDuring(s: Stall): string {
  const during = sent.filter((r) => r.started <= s.to && r.ended >= s.from - 5);
  const shown = during.length ? during : sent.filter((r) => r.ended < s.from).slice(-2);
  return shown.map((r) => describeRequest(r.req)).join('\n---\n');
}

const stallText = (s: Stall) => `the event loop was blocked for ${s.wallMs} ms (${s.cpuMs} ms of main-thread CPU)`;

describe('fuzz: every route, malformed and adversarial requests', () => {
  it('covers every route the app serves', () => {
    expect([...ready.routes].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it(`${PATH ? `replays case ${PATH} of seed ${SEED}` : `${RUNS} requests (seed ${SEED})`}: contract answers only, no crash, no stall`, async () => {
    const statuses = new Map<number, number>();
    const property = fc.asyncProperty(caseArbitrary, async (c: Case) => {
      if (exited) throw new Error(`the server process had already exited (${exited})`);
      const form = c.body?.t === 'form' && c.body.csrf !== 'none' ? await portalForm() : undefined;
      const built = buildRequest(c, form ? { ...env, portalForm: form } : env);
      const stallsBefore = stalls.length;
      const started = Date.now();
      const outcome = await sendRaw(ready.url, built.req);
      sent.push({ started, ended: Date.now(), req: built.req });
      if (sent.length > 50) sent.shift();
      // A client that left: the server notices the closed socket a moment later.
      if (outcome.ok && outcome.response.status === 0) await new Promise((r) => setTimeout(r, 30));
      try {
        await report();
      } catch (err) {
        throw new Error(`${(err as Error).message} on this request:\n${describeRequest(built.req)}\n--- its stderr ---\n${stderrTail}`);
      }
      const problem = problemWith(built.req, outcome, built.mayGoUnanswered);
      if (problem) throw new Error(`${problem}\n--- request ---\n${describeRequest(built.req)}`);
      const fresh = stalls.slice(stallsBefore);
      if (fresh.length) throw new Error(`${stallText(fresh[0]!)}; requests in flight then:\n${inFlightDuring(fresh[0]!)}`);
      if (outcome.ok) statuses.set(outcome.response.status, (statuses.get(outcome.response.status) ?? 0) + 1);
    });
    try {
      await fc.assert(property, { seed: SEED, numRuns: RUNS, endOnFailure: true, ...(PATH ? { path: PATH } : {}) });
    } catch (err) {
      // fast-check names the seed and path in its message and keeps our error as the cause.
      const message = (err as Error).message;
      const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : '';
      const failedPath = /path: "([^"]+)"/.exec(message)?.[1];
      throw new Error(`${cause}\n\nReplay with: FUZZ_SEED=${SEED} FUZZ_PATH=${failedPath ?? '?'} npx vitest run test/fuzz/connector.test.ts\n\n${message}`);
    }
    const final = await report();
    console.log(
      `fuzz seed ${SEED}: ${[...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ')}; loop: ${final.ticks} ticks, max ${Math.round(final.maxWallMs)} ms wall / ${Math.round(final.maxCpuMs)} ms CPU between ticks (${final.cpuSource}), ${final.pauses} pauses while descheduled`,
    );
    expect(final.stalls.map((s) => `${stallText(s)}; requests in flight then:\n${inFlightDuring(s)}`)).toEqual([]);
  }, 600_000);

  it('leaves /healthz green and the process alive', async () => {
    const out = await sendRaw(ready.url, { method: 'GET', path: '/healthz', headers: [] });
    expect(out.ok && out.response.status, out.ok ? out.response.text : out.reason).toBe(200);
    expect(exited).toBeNull();
  });
});
