/**
 * The composition root: the one place the connector is put together, in one order, for main.ts, the
 * test servers and the bench targets. Redis, then the store, reference data, PDF extraction, the
 * upstream limiters (made once), Sheets, the context, the background workers (one list) and the app;
 * the workers and the HTTP server start when the caller says, and `stop` takes everything down in
 * the reverse order.
 */
import { createMailer } from './mailer.js';
import { createMetrics, METRICS_OFF, watchExtractor } from './metrics/index.js';
import type { Server } from 'node:http';
import type { Express } from 'express';
import { createApp } from './app.js';
import { createKeySweeper } from './auth/sweep-unused.js';
import type { Config } from './config.js';
import { createContext, type AppContext } from './context.js';
import { DatasetRefresher } from './datasets/refresh.js';
import { createRetentionWorker } from './jobs/retention.js';
import { createRecheckScanner } from './watches/index.js';
import { ReferenceDataCache } from './verify/reference-data.js';
import { seedReferenceData } from './demo/seed.js';
import { createConnectorExtraction } from './extract/running/connector-extraction.js';
import { resolveConnectionLimits } from './http/connection-limits.js';
import { listenFailure, StartFailure, storeFailure } from './start-failure.js';
import { listen } from './http/server.js';
import type { Logger } from './logger.js';
import { shippedDataDir } from './paths.js';
import { liveReadiness } from './verify/live-readiness.js';
import { connectRedis } from './redis/client.js';
import { createLimiters } from './redis/limiters.js';
import { createSheets } from './sheets/index.js';
import { describeStore, openStore } from './store/index.js';
import type { Store } from './store/types.js';
import type { LookupAll } from './webhooks/url-guard.js';
import { startInOrder, stopInReverse, type Worker } from './workers/index.js';

export interface StartOptions {
  config: Config;
  logger: Logger;
  /** The app's clock; tests move it. Reference data is seeded at the real time either way. */
  now?: () => Date;
  /** Outbound HTTP for registry upstreams and dataset refreshes; tests inject one. */
  fetch?: typeof fetch;
  /** DNS for webhook URL checks; tests inject one. */
  lookup?: LookupAll;
  /** Load the shipped reference data (register, demo registry and sanctions, dataset catalogue); default true. */
  seed?: boolean;
  /** PDF extraction threads; default `config.extraction.threads`; 0: no extraction (PDF jobs are refused). */
  extractionThreads?: number;
  /**
   * The extraction process's module; default extract-host.js beside the bundle, else host.ts under
   * tsx. The test run passes its own build: a process starts in ~0.8 s instead of ~4 s under tsx.
   */
  extractionHost?: string;
  /** A failed background WAL sync; default a warning in the log. */
  onWalSyncError?: (err: Error) => void;
}

export interface Connector {
  config: Config;
  store: Store;
  ctx: AppContext;
  app: Express;
  /**
   * The background workers, in start order; stopped in reverse. A worker comes after the ones its
   * units feed, so it stops first and what its last units write is still taken up (the job queue's
   * webhook events and write-backs).
   */
  workers: readonly Worker[];
  /** Deactivates free-plan keys unused for 7 days; one of `workers`. */
  keySweeper: Worker;
  /** Starts `workers` in order. */
  startWorkers(): void;
  /** Serves the app (port 0: any free port); `stop` closes the server. */
  listen(port: number, host: string): Promise<Server>;
  /**
   * Closes the server (requests in flight finish) and stops the workers in reverse order, both at
   * once, then extraction, Redis and the store. With `budgetMs`, what is still in hand near its end
   * is handed back: connections are closed and documents being read are given up, their jobs
   * released for the next taker at once.
   */
  stop(opts?: { budgetMs?: number }): Promise<void>;
}

/** The end of a stop's budget kept for handing back the work still in hand, at most (a quarter of the budget when shorter). */
const HAND_BACK_MS = 2_000;

/** Whether `p` settles within `ms`. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  if (ms === Infinity) return p.then(() => true);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  try {
    return await Promise.race([p.then(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Stops accepting connections and resolves once the last one has closed. A connection whose request
 * finishes is closed then, not kept alive until keepAliveTimeout: node closes only the connections
 * idle when `close` is called.
 */
function closeServer(server: Server): Promise<void> {
  const sweep = setInterval(() => server.closeIdleConnections(), 50);
  return new Promise<void>((resolve) =>
    server.close(() => {
      clearInterval(sweep);
      resolve();
    }),
  );
}

export async function startConnector(opts: StartOptions): Promise<Connector> {
  const { config, logger } = opts;
  const redis = await connectRedis(config.redis, logger).catch((err: Error) => {
    throw new StartFailure(`COVERCHECK_REDIS_URL: ${err.message}`, { cause: err });
  });
  logger.info(
    redis ? { limits: 'shared', redis: redis.where, prefix: redis.prefix } : { limits: 'per-process' },
    redis
      ? 'rate limits and upstream quotas are shared through Redis'
      : 'rate limits and upstream quotas are kept per process (no COVERCHECK_REDIS_URL)',
  );
  const storeOptions = {
    databasePath: config.databasePath,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    walSyncMs: config.sqliteWalSyncMs,
    onWalSyncError:
      opts.onWalSyncError ??
      ((err: Error) => logger.warn({ err: err.message }, 'background WAL sync failed; SQLite still syncs it at each checkpoint')),
  };
  const store = await openStore(storeOptions).catch((err: unknown) => {
    throw storeFailure(err, { databaseUrl: config.databaseUrl, where: describeStore(storeOptions) });
  });
  if (opts.seed !== false) {
    const seeded = await seedReferenceData(store, shippedDataDir(), new Date());
    logger.info({ ...seeded, store: store.kind, db: describeStore(storeOptions) }, 'reference data loaded');
  }
  const readiness = await liveReadiness(store, { upstreams: config.registry.upstreams, fcaApi: config.fcaRegister !== null });
  if (readiness.registryMissing.length || readiness.sanctionsMissing) {
    logger.warn(
      {
        live_keys_inconclusive_for: readiness.registryMissing,
        sanctions_list_loaded: !readiness.sanctionsMissing,
        uk_register_partial: readiness.ukRegisterPartial,
      },
      'live keys see real sources only: configure registry upstreams or import registry extracts, and import a sanctions list (README, Before production)',
    );
  }
  // PDF extraction runs in worker threads; threads and their OCR engines start on first use.
  const threads = opts.extractionThreads ?? config.extraction.threads;
  const extraction =
    threads > 0
      ? await createConnectorExtraction(store, {
          threads,
          limits: config.extraction.limits,
          hostFile: opts.extractionHost,
        })
      : null;
  const now = opts.now ?? (() => new Date());
  const limiters = createLimiters(redis, { idleTimeoutMs: config.redis?.limiterIdleMs });
  const mailer = createMailer({ smtpUrl: config.portal.smtpUrl, from: config.portal.mailFrom, outbox: config.portal.outbox, logger });
  // The one way this fails is a credentials file that cannot be read, and its message names the variable.
  const sheets = await createSheets(config, store, logger, now, limiters, mailer).catch((err: Error) => {
    throw err.message.startsWith('GOOGLE_APPLICATION_CREDENTIALS') ? new StartFailure(err.message, { cause: err }) : err;
  });
  const metrics = config.metrics ? createMetrics({ store, now, logger }) : METRICS_OFF;
  // Watched whether or not metrics are on: readiness asks what the extraction process last did.
  const watched = extraction ? watchExtractor(extraction.extractor, metrics.extraction) : null;
  const ctx = createContext(config, store, logger, {
    mailer,
    redis,
    limiters,
    sheets,
    now,
    extractor: watched?.extractor,
    extractionHealth: watched?.health,
    metrics,
    fetch: opts.fetch,
    lookup: opts.lookup,
  });
  const keySweeper = createKeySweeper({ store: store.portal, logger, now }, config.portal.sweepIntervalMs);
  const refresher = config.datasets.refresh
    ? new DatasetRefresher(store.datasets, logger, {
        intervalMs: config.datasets.refreshIntervalMs,
        now,
        fetch: metrics.upstreamFetch('dataset_refresh', opts.fetch ?? fetch),
      })
    : null;
  const retention = createRetentionWorker({ store: store.retention, logger, now }, config.retention, config.retention.intervalMs);
  const workers: Worker[] = [
    keySweeper,
    retention,
    ...(sheets ? [sheets.schedules, sheets.writebacks] : []),
    ...(refresher ? [refresher] : []),
    ctx.outbox,
    ctx.watchMail,
    // A cache of its own that reads the version on every scan, so an import is seen at the next scan.
    createRecheckScanner(
      { store, reference: new ReferenceDataCache(store, 0), now, logger, onDue: () => ctx.watches.notify() },
      config.watches.recheckIntervalMs,
    ),
    // After what it feeds (the outbox, the write-backs, the mail sender): it stops first.
    ctx.watches,
    ctx.queue,
  ];
  const app = createApp(ctx);
  let server: Server | null = null;

  return {
    config,
    store,
    ctx,
    app,
    workers,
    keySweeper,
    startWorkers() {
      startInOrder(workers);
    },
    async listen(port, host) {
      const connections = resolveConnectionLimits(config.connections, { behindProxy: config.trustProxy !== false });
      const { maxTotal, maxPerAddress, openFiles } = connections;
      logger.info(
        { max_connections: maxTotal, max_connections_per_address: maxPerAddress, open_files_limit: openFiles },
        'connection bounds',
      );
      if (connections.warning) logger.warn(connections.warning);
      server = await listen(app, port, host, connections).catch((err: unknown) => {
        throw listenFailure(err, port, host);
      });
      return server;
    },
    async stop({ budgetMs } = {}) {
      const budget = budgetMs ?? Infinity;
      const deadline = performance.now() + budget;
      // The budget's last quarter (at most HAND_BACK_MS) is kept for handing back.
      const finishBy = deadline - Math.min(HAND_BACK_MS, budget / 4);
      const open = server;
      // Stop taking work, both at once: no new connections (requests in flight finish), and each
      // worker stops leasing and lets its units in hand finish.
      const closed = open ? closeServer(open) : Promise.resolve();
      const stopped = stopInReverse(workers);
      if (!(await settlesWithin(Promise.all([closed, stopped]), finishBy - performance.now()))) {
        logger.warn({ budget_ms: budget }, 'stop: the time to finish is spent; handing back the work still in hand');
        open?.closeAllConnections();
        // The documents being read are given up, and the job queue releases their jobs for the next taker at once.
        const handedBack = Promise.all([extraction?.pool.destroy(), stopped]);
        if (!(await settlesWithin(handedBack, deadline - performance.now())))
          logger.warn('stop: some background work did not stop in time; its leases run out after their length');
      }
      await ctx.sheets?.limiter.stop();
      await ctx.registry.stop();
      await Promise.all(Object.values(ctx.onlineRegisters).map((r) => r.stop()));
      await ctx.offload.destroy();
      ctx.mailer.close();
      // After the limiters above, which may still talk to Redis while they stop; an open client would keep the process alive.
      await redis?.close();
      await extraction?.pool.destroy();
      await store.close();
    },
  };
}
