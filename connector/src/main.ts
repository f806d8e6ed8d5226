/** Starts the connector: config, store, reference data, HTTP server, graceful shutdown. */
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { loadConfig } from './config.js';
import { createContext, startWorkers, stopWorkers } from './context.js';
import { ensureSandboxKey, seedReferenceData } from './demo/seed.js';
import { createConnectorExtraction } from './extract/as-extractor.js';
import { listen } from './http/server.js';
import { createLogger } from './logger.js';
import { connectRedis, createLimiters, type RedisHandle } from './redis/index.js';
import { createSheets } from './sheets/index.js';
import { shippedDataDir } from './paths.js';
import { describeStore, openStore } from './store/index.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  let redis: RedisHandle | null;
  try {
    redis = await connectRedis(config.redis, logger);
  } catch (err) {
    console.error(`COVERCHECK_REDIS_URL: ${(err as Error).message}`);
    process.exit(2);
  }
  logger.info(
    redis ? { limits: 'shared', redis: redis.where, prefix: redis.prefix } : { limits: 'per-process' },
    redis ? 'rate limits and upstream quotas are shared through Redis' : 'rate limits and upstream quotas are kept per process (no COVERCHECK_REDIS_URL)',
  );
  const storeOptions = {
    databasePath: config.databasePath,
    databaseUrl: config.databaseUrl,
    poolSize: config.databasePoolSize,
    walSyncMs: config.sqliteWalSyncMs,
    onWalSyncError: (err: Error) => logger.warn({ err: err.message }, 'background WAL sync failed; SQLite still syncs it at each checkpoint'),
  };
  const store = await openStore(storeOptions);
  const now = new Date();
  const seeded = await seedReferenceData(store, shippedDataDir(), now);
  logger.info({ ...seeded, store: store.kind, db: describeStore(storeOptions) }, 'reference data loaded');
  // PDF extraction runs in worker threads; threads and their OCR engines start on first use.
  const extraction = config.extraction.threads > 0 ? await createConnectorExtraction(store, { threads: config.extraction.threads, limits: config.extraction.limits }) : null;
  const sheets = await createSheets(config, store, logger, () => new Date(), createLimiters(redis));
  const ctx = createContext(config, store, logger, { sheets, redis, ...(extraction ? { extractor: extraction.extractor } : {}) });
  const app = createApp(ctx);
  // Workers start before the server: work accepted by an earlier run (even one that crashed) resumes.
  startWorkers(ctx);
  const server = await listen(app, config.port, config.host);
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  logger.info({ port, host: config.host }, 'connector listening');

  if (config.demo && store.kind === 'postgres' && !config.sandboxKey) {
    // A shared database usually means several instances: each start would revoke the others' sandbox key.
    logger.warn('COVERCHECK_DEMO on a shared database without COVERCHECK_SANDBOX_KEY: each instance start revokes the previous sandbox key; set a fixed key or COVERCHECK_DEMO=false');
  }
  if (config.demo) {
    const { key, webhookSecret } = await ensureSandboxKey(store, config.sandboxKey, now);
    // The one deliberate place a key is printed: to the operator's terminal, not the log stream.
    process.stdout.write(
      `\nCovercheck connector on ${base}\nSandbox key (never charged; shown once): ${key}\n` +
        (webhookSecret ? `Its webhook signing secret: ${webhookSecret}\n` : '') +
        '\n' +
        `Try:\n  curl -s ${base}/api/v1/verify -H "Authorization: Bearer ${key}" -H "Content-Type: application/json" \\\n` +
        `    -d '{"policy_number":"UKM-1000-0001","country":"UK","insurance_type":"motor"}'\n\n`,
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(() => {
      void stopWorkers(ctx)
        .then(() => extraction?.pool.destroy())
        .then(() => store.close())
        .then(() => process.exit(0));
    });
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
