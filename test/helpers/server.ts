/** Starts the real connector (start.ts, as main.ts does) on an ephemeral loopback port with a fresh SQLite file (or a given PostgreSQL database). */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { loadConfig, type Config } from '../../connector/src/config.js';
import type { AppContext } from '../../connector/src/context.js';
import { createLogger, type Logger } from '../../connector/src/logger.js';
import { startConnector, type Connector } from '../../connector/src/start.js';
import type { Store } from '../../connector/src/store/types.js';
import type { TScope } from '../../shared/account.js';
import { built } from './build.js';
import { createDatabase } from './services.js';

export interface TestServer {
  url: string;
  connector: Connector;
  ctx: AppContext;
  store: Store;
  dbPath: string;
  /** A key with every scope; `mode` live is charged. */
  key(opts?: { mode?: 'live' | 'test'; credits?: number; scopes?: TScope[]; name?: string }): Promise<{ key: string; id: string }>;
  close(): Promise<void>;
}

export function tempDbPath(label = 'test'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `covercheck-${label}-`));
  return path.join(dir, 'covercheck.db');
}

export async function startTestServer(
  opts: {
    env?: Record<string, string>;
    config?: Partial<Config>;
    now?: () => Date;
    fetch?: typeof fetch;
    seed?: boolean;
    workers?: boolean;
    lookup?: AppContext['lookup'];
    /** Run PDF extraction (a real worker-thread pool with OCR); off by default to keep suites light. */
    extraction?: boolean;
    /** The extraction process's module; default the run's bundle (test/helpers/build.ts), which child processes can't ask vitest for. */
    extractionHost?: string;
    /** A PostgreSQL database (e.g. from createDatabase in services.ts) instead of a fresh SQLite file. */
    databaseUrl?: string;
    /** The app's logger (silent by default), e.g. one writing into an array to read what was logged. */
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const dbPath = tempDbPath();
  const config = loadConfig(
    {
      COVERCHECK_DB: dbPath,
      HOST: '127.0.0.1',
      PORT: '0',
      COVERCHECK_LOG_LEVEL: 'silent',
      COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '100000',
      COVERCHECK_RATE_LIMIT_IP_PER_MIN: '100000',
      COVERCHECK_QUEUE_POLL_MS: '20',
      ...opts.env,
    },
    opts.config,
  );
  // The `postgres` vitest project runs the HTTP suites again on PostgreSQL (vitest.config.ts), each
  // server on a copy of a migrated database (migrating an empty one is the store contract's part).
  const databaseUrl =
    opts.databaseUrl ??
    (process.env.COVERCHECK_TEST_BACKEND === 'postgres'
      ? await createDatabase(inject('postgresUrl'), 'http', inject('postgresMigrated'))
      : undefined);
  // Put together as main.ts does (with COVERCHECK_REDIS_URL in env, limits are shared through Redis);
  // a failing background WAL sync is printed, since the log is silent.
  const connector = await startConnector({
    config: { ...config, databasePath: dbPath, databaseUrl },
    logger: opts.logger ?? createLogger('silent'),
    seed: opts.seed !== false,
    extractionThreads: opts.extraction ? 1 : 0,
    ...(opts.extraction ? { extractionHost: opts.extractionHost ?? built().extractHost } : {}),
    onWalSyncError: (err) => console.error(err),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.lookup ? { lookup: opts.lookup } : {}),
  });
  const { store, ctx } = connector;
  if (databaseUrl && store.kind !== 'postgres') throw new Error(`asked for PostgreSQL, got a ${store.kind} store`);
  if (opts.workers !== false) connector.startWorkers();
  const server = await connector.listen(0, '127.0.0.1');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connector,
    ctx,
    store,
    dbPath,
    async key(k = {}) {
      const { key, record } = await createApiKey(store, {
        mode: k.mode ?? 'live',
        name: k.name ?? 'test key',
        scopes: k.scopes ?? ['verify', 'extract', 'datasets'],
        ...(k.credits !== undefined ? { credits: k.credits } : {}),
      });
      return { key, id: record.id };
    },
    async close() {
      server.closeAllConnections();
      await connector.stop();
      fs.rmSync(path.dirname(dbPath), { recursive: true, force: true });
    },
  };
}

/** Polls a GET until `done(body)` holds, or fails after `timeoutMs`. */
export async function pollUntil<T = any>(base: string, p: string, key: string, done: (body: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call<T>(base, 'GET', p, { key });
    if (r.status !== 200) throw new Error(`GET ${p} answered ${r.status}: ${JSON.stringify(r.body)}`);
    if (done(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`GET ${p} not done after ${timeoutMs} ms: ${JSON.stringify(r.body).slice(0, 500)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

export interface CallResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** One HTTP call with JSON in and out; `body: string` is sent raw (for malformed-JSON tests). */
export async function call<T = any>(
  base: string,
  method: string,
  p: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<CallResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(base + p, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // leave as text
  }
  return { status: res.status, body: parsed as T, headers: res.headers };
}
