/**
 * Everything a request handler may use, built once by the composition root (start.ts) and passed
 * down (no globals). Building it starts nothing: start.ts runs and stops the workers in it.
 */
import fs from 'node:fs';
import type { Config } from './config.js';
import type { Extractor } from './jobs/extraction-port.js';
import { Completions } from './jobs/completions.js';
import { WorkQueue } from './jobs/queue.js';
import { WatchMailSender, WatchRunner } from './watches/index.js';
import { OutboxProcessor } from './webhooks/outbox.js';
import type { Mailer } from './mailer.js';
import type { RedisHandle } from './redis/client.js';
import type { Limiters } from './redis/limiters.js';
import type { SheetsIntegration } from './sheets/index.js';
import type { LookupAll } from './webhooks/url-guard.js';
import type { Logger } from './logger.js';
import { createOffload, type Offload } from './offload/index.js';
import type { Store } from './store/types.js';
import { fcaRegisterFromConfig, type OnlineRegister } from './insurers/online/index.js';
import { ReferenceDataCache } from './verify/reference-data.js';
import type { TCountry } from '../../shared/policy.js';
import { buildRegistryChain, type RegistryChain } from './verify/registry/index.js';
import type { TReadiness } from '../../shared/readiness.js';
import {
  checkReadiness,
  extractionCheck,
  METRICS_OFF,
  redisCheck,
  storeCheck,
  type ExtractionHealth,
  type Metrics,
} from './metrics/index.js';

export interface AppContext {
  config: Config;
  store: Store;
  logger: Logger;
  reference: ReferenceDataCache;
  registry: RegistryChain;
  /** Online insurer registers by country, for live keys (the FCA API when configured). */
  onlineRegisters: Partial<Record<TCountry, OnlineRegister>>;
  queue: WorkQueue;
  /** Runs due watches (watches/runner.ts); the routes wake it. */
  watches: WatchRunner;
  /** Sends the e-mail digests watch runs enqueue. */
  watchMail: WatchMailSender;
  completions: Completions;
  outbox: OutboxProcessor;
  /** Null when no Google service account is configured. */
  sheets: SheetsIntegration | null;
  /** Null without COVERCHECK_REDIS_URL: every limit is then kept in this process. */
  redis: RedisHandle | null;
  /** Upstream limiters: clustered on `redis` when there is one. */
  limiters: Limiters;
  /** The key portal's activation mails (SMTP, or .eml files in the outbox folder). */
  mailer: Mailer;
  /** Large request bodies and documents are parsed and decoded on its worker thread. */
  offload: Offload;
  /** DNS for webhook URL checks; tests inject one. */
  lookup?: LookupAll;
  now: () => Date;
  /** This connector's metrics (METRICS_OFF when COVERCHECK_METRICS=off). */
  metrics: Metrics;
  /** GET /readyz's checks: the store, Redis when configured, the extraction process when extraction is on. */
  readiness(): Promise<TReadiness>;
}

/** Builds the context; its workers are created stopped. */
export function createContext(
  config: Config,
  store: Store,
  logger: Logger,
  opts: {
    /** Connected by start.ts (connectRedis is async), which closes it last. */
    redis: RedisHandle | null;
    /** Made once on `redis` by start.ts and shared with the Sheets integration, so one quota is one limiter. */
    limiters: Limiters;
    /** Built by start.ts (createSheets is async: it loads googleapis only when configured); null without a service account. */
    sheets: SheetsIntegration | null;
    /** Shared with the Sheets schedule runner's alerts. */
    mailer: Mailer;
    now: () => Date;
    fetch?: typeof fetch;
    lookup?: LookupAll;
    extractor?: Extractor;
    /** Made by start.ts with the store; default: off. */
    metrics?: Metrics;
    /** What the extractor's watcher saw of the extraction process (metrics/extraction.ts); absent: extraction is off. */
    extractionHealth?: ExtractionHealth;
  },
): AppContext {
  const { redis, limiters, sheets, mailer, now } = opts;
  const metrics = opts.metrics ?? METRICS_OFF;
  const reference = new ReferenceDataCache(store);
  const registry = buildRegistryChain(
    store.registry,
    config.registry.upstreams,
    {
      maxConcurrent: config.registry.maxConcurrent,
      minTimeMs: config.registry.minTimeMs,
      timeoutMs: config.registry.timeoutMs,
      perSecond: config.registry.perSecond,
    },
    metrics.upstreamFetch('registry', opts.fetch ?? fetch),
    limiters,
  );
  const fca = fcaRegisterFromConfig(config, { limiters, fetch: metrics.upstreamFetch('fca_register', opts.fetch ?? fetch) });
  const onlineRegisters: Partial<Record<TCountry, OnlineRegister>> = fca ? { UK: fca } : {};
  const outbox = new OutboxProcessor(
    { store, logger, now, limiters, metrics },
    {
      concurrency: config.webhooks.concurrency,
      perHostConcurrency: config.webhooks.perHostConcurrency,
      perHostMinTimeMs: config.webhooks.perHostMinTimeMs,
      perHostQueue: config.webhooks.perHostQueue,
      breakerFailures: config.webhooks.breakerFailures,
      breakerCooldownMs: config.webhooks.breakerCooldownMs,
      timeoutMs: config.webhooks.timeoutMs,
      retryScale: config.webhooks.retryScale,
      pollMs: config.queue.pollMs,
      allowPrivate: config.webhooks.allowPrivate,
      ca: config.webhooks.caFile ? fs.readFileSync(config.webhooks.caFile) : undefined,
    },
  );
  const onEvent = () => {
    outbox.notify();
    sheets?.writebacks.notify();
  };
  const completions = new Completions();
  const queue = new WorkQueue(
    {
      store,
      engine: { reference, registry, onlineRegisters, now },
      logger,
      now,
      onEvent,
      completions,
      metrics,
      extractor: opts.extractor,
    },
    {
      ...config.queue,
      // One document worker per extraction thread: a document in hand is being read, not waiting for a thread.
      documentWorkers: Math.max(1, config.extraction.threads),
      documentShares: { perLiveKey: config.extraction.readingPerKey.live, perSandboxKey: config.extraction.readingPerKey.sandbox },
    },
  );
  const watchMail = new WatchMailSender({ store, mailer, logger, now }, { pollMs: config.queue.pollMs, leaseMs: 5 * 60_000 });
  const watches = new WatchRunner(
    {
      store,
      engine: { registry, onlineRegisters, now },
      reference,
      logger,
      now,
      onDelivery: () => {
        onEvent();
        watchMail.notify();
      },
    },
    {
      loops: config.watches.workers,
      leaseMs: config.watches.leaseMs,
      pollMs: config.queue.pollMs,
      chunkSize: config.watches.chunkSize,
      concurrency: config.watches.concurrency,
    },
  );
  const offload = createOffload();
  return {
    config,
    store,
    logger,
    reference,
    registry,
    onlineRegisters,
    queue,
    watches,
    watchMail,
    completions,
    outbox,
    sheets,
    redis,
    limiters,
    mailer,
    offload,
    now,
    lookup: opts.lookup,
    metrics,
    readiness: () =>
      checkReadiness({
        store: storeCheck(store),
        redis: redis ? redisCheck(redis.client) : null,
        extraction: opts.extractionHealth ? extractionCheck(opts.extractionHealth) : null,
      }),
  };
}
