/**
 * What both fuzz runs share (connector.test.ts on SQLite, connector-pg-redis.test.ts on PostgreSQL
 * and Redis with extraction): the connector child (server-child.ts) and its stall reports, and the
 * seeded property run that sends each case, then checks its answer (check.ts), the process, and the
 * child's event loop. Each run's file adds its own checks through `onAnswer`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import fc from 'fast-check';
import { ASYNC_BODY_LIMIT } from '../../connector/src/routes/jobs.js';
import { sendRaw, type RawOutcome, type RawRequest } from '../helpers/raw-http.js';
import { actingKeys, booksProblem, type Books, type KeyIds } from './books.js';
import { buildRequest, describeRequest, ROUTES, type Built, type Case, type Env, type RouteName } from './cases.js';
import { problemWith } from './check.js';
import { buildHostilePdfs } from './hostile-pdfs.js';
import type { Stall, StallReport } from './stall-monitor.js';

export const JSON_LIMIT = 64 * 1024; // COVERCHECK_JSON_LIMIT_KB's default, which server-child.ts keeps

/** server-child.ts's argv[2]. */
export interface ChildSpec {
  extraction?: boolean;
  extractionHost?: string;
  /** A PostgreSQL database instead of a fresh SQLite file. */
  databaseUrl?: string;
  /** More environment for the connector's configuration (Redis, limits). */
  env?: Record<string, string>;
  /** Live keys to make besides the usual ones (Ready.spare). */
  spareKeys?: number;
}

interface Ready {
  type: 'ready';
  url: string;
  pid: number;
  keys: Env['keys'];
  keyIds: KeyIds;
  spare: string[];
  ids: Env['ids'];
  routes: string[];
}

export const stallText = (s: Stall) => `the event loop was blocked for ${s.wallMs} ms (${s.cpuMs} ms of main-thread CPU)`;

export class FuzzChild {
  readonly stalls: Stall[] = [];
  /** What was sent when, to name the requests in flight during a stall. */
  readonly sent: { started: number; ended: number; req: RawRequest }[] = [];
  exited: string | null = null;
  stderrTail = '';
  ready!: Ready;
  env!: Env;
  private child!: ChildProcess;
  private pendingReport: ((r: StallReport) => void) | null = null;
  private pendingBooks: ((b: { books?: Books; error?: string }) => void) | null = null;

  async start(spec: ChildSpec): Promise<void> {
    const pdfs = await buildHostilePdfs();
    this.child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'server-child.ts'), JSON.stringify(spec)], {
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    });
    const child = this.child;
    child.stderr!.on('data', (c: Buffer) => {
      this.stderrTail = (this.stderrTail + c.toString()).slice(-4000);
    });
    child.on('exit', (code, signal) => {
      this.exited = `exit code ${code}${signal ? `, signal ${signal}` : ''}`;
    });
    this.ready = await new Promise<Ready>((resolve, reject) => {
      child.on('message', (msg: { type: string; stall?: Stall; report?: StallReport; books?: Books; error?: string }) => {
        if (msg.type === 'ready') resolve(msg as unknown as Ready);
        if (msg.type === 'stall') this.stalls.push(msg.stall!);
        if (msg.type === 'report') this.pendingReport?.(msg.report!);
        if (msg.type === 'books') this.pendingBooks?.(msg);
      });
      child.on('exit', () => reject(new Error(`the fuzz server did not start (${this.exited}):\n${this.stderrTail}`)));
    });
    this.env = { keys: this.ready.keys, ids: this.ready.ids, pdfs, limits: { json: JSON_LIMIT, async: ASYNC_BODY_LIMIT } };
  }

  async stop(): Promise<void> {
    if (!this.child || this.exited) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await gone;
  }

  /**
   * The child's stall report. The round trip also flushes any stall it has seen so far, and fails as
   * soon as the child exits: a crash caused by the last request (an 'error' event nobody listens to
   * fires a tick or two after the response went out) ends the process before it gets to answer.
   */
  report(): Promise<StallReport> {
    const child = this.child;
    return new Promise((resolve, reject) => {
      const onExit = () => {
        clearTimeout(timer);
        reject(new Error(`the server process died (${this.exited})`));
      };
      const timer = setTimeout(() => {
        child.off('exit', onExit);
        reject(new Error('no stall report from the server within 10 s'));
      }, 10_000);
      this.pendingReport = (r) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        this.pendingReport = null;
        resolve(r);
      };
      if (this.exited) return onExit();
      child.once('exit', onExit);
      // With a callback a failed send (the child just died) is reported there, not as an 'error' event.
      child.send({ type: 'report' }, (err) => {
        if (err) onExit();
      });
    });
  }

  /** The watches and the ledger (books.ts), with the ledger rows written after `since`. */
  books(since: number | null = null): Promise<Books> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no books from the server within 10 s')), 10_000);
      this.pendingBooks = (b) => {
        clearTimeout(timer);
        this.pendingBooks = null;
        if (b.books) resolve(b.books);
        else reject(new Error(`the server could not read its books: ${b.error}`));
      };
      this.child.send({ type: 'books', since });
    });
  }

  /** A fresh portal form for cases that post one with a valid CSRF field. */
  async portalForm(): Promise<Env['portalForm']> {
    const out = await sendRaw(this.ready.url, { method: 'GET', path: '/portal/', headers: [] });
    if (!out.ok) return undefined;
    const cookie = /cc_portal_sid=[^;]+/.exec(out.response.headers['set-cookie'] ?? '')?.[0];
    const csrf = /name="csrf" value="([^"]+)"/.exec(out.response.text)?.[1];
    return cookie && csrf ? { cookie, csrf } : undefined;
  }

  inFlightDuring(s: Stall): string {
    const during = this.sent.filter((r) => r.started <= s.to && r.ended >= s.from - 5);
    const shown = during.length ? during : this.sent.filter((r) => r.ended < s.from).slice(-2);
    return shown.map((r) => describeRequest(r.req)).join('\n---\n');
  }

  /**
   * Sends one request and holds it to the suite's rules: the child alive, the answer the contract's,
   * no stall while it ran. Throws what is wrong, naming the request.
   */
  async send(req: RawRequest, mayGoUnanswered: boolean): Promise<RawOutcome> {
    if (this.exited) throw new Error(`the server process had already exited (${this.exited})`);
    const stallsBefore = this.stalls.length;
    const started = Date.now();
    const outcome = await sendRaw(this.ready.url, req);
    this.sent.push({ started, ended: Date.now(), req });
    if (this.sent.length > 50) this.sent.shift();
    // A client that left: the server notices the closed socket a moment later.
    if (outcome.ok && outcome.response.status === 0) await new Promise((r) => setTimeout(r, 30));
    try {
      await this.report();
    } catch (err) {
      throw new Error(`${(err as Error).message} on this request:\n${describeRequest(req)}\n--- its stderr ---\n${this.stderrTail}`);
    }
    const problem = problemWith(req, outcome, mayGoUnanswered);
    if (problem) throw new Error(`${problem}\n--- request ---\n${describeRequest(req)}`);
    const fresh = this.stalls.slice(stallsBefore);
    if (fresh.length) throw new Error(`${stallText(fresh[0]!)}; requests in flight then:\n${this.inFlightDuring(fresh[0]!)}`);
    return outcome;
  }
}

export interface RunOptions {
  seed: number;
  runs: number;
  /** fast-check's path of one case, to replay it alone. */
  path?: string;
  /** The test file, for the replay line. */
  file: string;
  /** More checks on each answer; throw to fail the case. */
  onAnswer?: (c: Case, built: Built, outcome: RawOutcome) => void | Promise<void>;
  /** Reads the books before and after each case and holds them to booksProblem (books.ts). */
  books?: boolean;
}

/** Routes that never take a credit, whatever they are sent: the watch routes and the result history. */
const TAKES_NO_CREDIT = (route: RouteName) => ROUTES[route].path.startsWith('/api/v1/watches') || route === 'GET /api/v1/verifications';

/** The seeded run: every case sent and checked; the answers' statuses counted. */
export async function runFuzz(child: FuzzChild, arbitrary: fc.Arbitrary<Case>, opts: RunOptions): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  const property = fc.asyncProperty(arbitrary, async (c: Case) => {
    const form = c.body?.t === 'form' && c.body.csrf !== 'none' ? await child.portalForm() : undefined;
    const built = buildRequest(c, form ? { ...child.env, portalForm: form } : child.env);
    const before = opts.books ? await child.books() : null;
    const outcome = await child.send(built.req, built.mayGoUnanswered);
    if (before) {
      // A client that left may still have its request at work: its books settle a moment later.
      if (!outcome.ok || outcome.response.status === 0) await new Promise((r) => setTimeout(r, 100));
      const after = await child.books(before.lastLedgerId);
      const problem = booksProblem(built.req, outcome, actingKeys(c.auth, child.ready.keyIds), before, after, !TAKES_NO_CREDIT(c.route));
      if (problem) throw new Error(`${problem}\n--- request ---\n${describeRequest(built.req)}`);
    }
    try {
      await opts.onAnswer?.(c, built, outcome);
    } catch (err) {
      throw new Error(`${(err as Error).message}\n--- request ---\n${describeRequest(built.req)}`);
    }
    if (outcome.ok) statuses.set(outcome.response.status, (statuses.get(outcome.response.status) ?? 0) + 1);
  });
  try {
    await fc.assert(property, { seed: opts.seed, numRuns: opts.runs, endOnFailure: true, ...(opts.path ? { path: opts.path } : {}) });
  } catch (err) {
    // fast-check names the seed and path in its message and keeps our error as the cause.
    const message = (err as Error).message;
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : '';
    const failedPath = /path: "([^"]+)"/.exec(message)?.[1];
    throw new Error(
      `${cause}\n\nReplay with: FUZZ_SEED=${opts.seed} FUZZ_PATH=${failedPath ?? '?'} npx vitest run ${opts.file}\n\n${message}`,
    );
  }
  return statuses;
}

/** One line for the log: the statuses and what the child's loop did. */
export function summary(seed: number, statuses: Map<number, number>, final: StallReport): string {
  return `fuzz seed ${seed}: ${[...statuses]
    .sort(([a], [b]) => a - b)
    .map(([s, n]) => `${s}×${n}`)
    .join(
      ' ',
    )}; loop: ${final.ticks} ticks, max ${Math.round(final.maxWallMs)} ms wall / ${Math.round(final.maxCpuMs)} ms CPU between ticks (${final.cpuSource}), ${final.pauses} pauses while descheduled`;
}
