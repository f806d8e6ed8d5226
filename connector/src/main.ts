/** Starts the connector: config, the composition root (start.ts), workers, HTTP server, graceful shutdown. */
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.js';
import { ensureSandboxKey } from './demo/seed.js';
import { createLogger } from './logger.js';
import { RedisUnreachable, startConnector } from './start.js';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  let connector;
  try {
    connector = await startConnector({ config, logger });
  } catch (err) {
    if (!(err instanceof RedisUnreachable)) throw err;
    console.error(err.message);
    process.exit(2);
  }
  const { store } = connector;
  // Workers start before the server: work accepted by an earlier run (even one that crashed) resumes.
  connector.startWorkers();
  const server = await connector.listen(config.port, config.host);
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  logger.info({ port, host: config.host }, 'connector listening');

  if (config.demo && store.kind === 'postgres' && !config.sandboxKey) {
    // A shared database usually means several instances: each start would revoke the others' sandbox key.
    logger.warn(
      'COVERCHECK_DEMO on a shared database without COVERCHECK_SANDBOX_KEY: each instance start revokes the previous sandbox key; set a fixed key or COVERCHECK_DEMO=false',
    );
  }
  if (config.demo) {
    const { key, webhookSecret } = await ensureSandboxKey(store, config.sandboxKey, new Date());
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
    void connector.stop().then(() => process.exit(0));
    setTimeout(() => process.exit(1), 10_000).unref();
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

void main();
