/**
 * Bench target, run as a child process: the real connector app on a temporary SQLite file with
 * the shipped data, plus a bare Express hello route on a second port in the same process, so
 * both are measured under the same conditions (and the same hello route on a third port, served as
 * the connector is). Prints one JSON line with ports and keys.
 */
import { once } from 'node:events';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { loadConfig } from '../../connector/src/config.js';
import { listen } from '../../connector/src/http/server.js';
import { createLogger } from '../../connector/src/logger.js';
import { startConnector } from '../../connector/src/start.js';
import { helloApp } from './hello.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-bench-'));
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'warn';
const config = loadConfig({
  COVERCHECK_DB: path.join(dir, 'bench.db'),
  COVERCHECK_LOG_LEVEL: logLevel,
  COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '10000000',
  COVERCHECK_RATE_LIMIT_IP_PER_MIN: '10000000',
  // Passed through for A/B runs; unset: the default, as npm start runs.
  COVERCHECK_SQLITE_WAL_SYNC_MS: process.env.COVERCHECK_SQLITE_WAL_SYNC_MS,
  COVERCHECK_METRICS: process.env.COVERCHECK_METRICS,
});
// As main.ts starts it, without PDF extraction (nothing here sends a document).
const target = await startConnector({
  config,
  logger: createLogger(logLevel, fs.createWriteStream('/dev/null')),
  extractionThreads: 0,
  onWalSyncError: (err) => console.error(err),
});
const { store } = target;
const live = await createApiKey(store, { mode: 'live', name: 'bench live', scopes: ['verify'], credits: 10_000_000 });
const test = await createApiKey(store, { mode: 'test', name: 'bench test', scopes: ['verify', 'extract'] });

// bench/batch measures a pure drain: it submits first, then starts the workers with SIGUSR2.
if (process.env.BENCH_DEFER_WORKERS === '1') process.once('SIGUSR2', () => target.startWorkers());
else target.startWorkers();
const connector = await target.listen(0, '127.0.0.1');
const bareServer = helloApp().listen(0, '127.0.0.1');
await once(bareServer, 'listening');
// The same bare app served as the connector is served (createHttpServer): how much of the ratio
// to the bare route comes from that construction rather than from verify's own work.
const likeConnectorServer = await listen(helloApp(), 0, '127.0.0.1');

process.stdout.write(
  JSON.stringify({
    pid: process.pid,
    connectorPort: (connector.address() as AddressInfo).port,
    barePort: (bareServer.address() as AddressInfo).port,
    likeConnectorPort: (likeConnectorServer.address() as AddressInfo).port,
    liveKey: live.key,
    testKey: test.key,
  }) + '\n',
);
process.on('SIGTERM', () => {
  bareServer.close();
  likeConnectorServer.close();
  void target.stop().then(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
});
