/**
 * Starts the connector: config, the composition root (start.ts), HTTP server, workers; stops on
 * SIGTERM or SIGINT within COVERCHECK_SHUTDOWN_MS. A bad setting, or a start that fails on what a
 * setting names (start-failure.ts), is one line on stderr and exit code 2.
 */
import type { AddressInfo } from 'node:net';
import { loadConfig } from './config.js';
import { ensureSandboxKey } from './demo/seed.js';
import { createLogger } from './logger.js';
import { logPortalPolicy } from './portal/policy.js';
import { startConnector, type Connector } from './start.js';
import { StartFailure } from './start-failure.js';

/** A stop that has not ended this long after its budget is stuck: the process exits anyway. */
const STUCK_AFTER_BUDGET_MS = 10_000;

/** The operator's mistake, not the code's: one line, no stack trace, exit 2. Anything else is thrown on. */
function failStart(err: unknown): never {
  if (!(err instanceof StartFailure)) throw err;
  console.error(err.message);
  process.exit(2);
}

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
  const logger = createLogger(config.logLevel);
  let connector: Connector | null = null;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second Ctrl-C: the operator does not want to wait. Leases still held run out after their length.
      logger.warn({ signal }, 'stopping at once: work in hand is left to its leases');
      process.exit(1);
    }
    stopping = true;
    // Still starting: nothing has been taken yet, since the workers start last.
    if (!connector) {
      logger.info({ signal }, 'stopped while starting');
      process.exit(0);
    }
    const budgetMs = config.shutdownMs;
    logger.info({ signal, budget_ms: budgetMs }, 'stopping: no new work; finishing or handing back what is in hand');
    setTimeout(() => {
      logger.error({ budget_ms: budgetMs }, 'the stop did not end in time; exiting');
      process.exit(1);
    }, budgetMs + STUCK_AFTER_BUDGET_MS).unref();
    connector.stop({ budgetMs }).then(
      () => {
        logger.info('stopped');
        process.exit(0);
      },
      (err: unknown) => {
        logger.error({ err }, 'the stop failed');
        process.exit(1);
      },
    );
  };
  // Before anything is printed: a supervisor may signal as soon as it sees the process is up.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));

  try {
    connector = await startConnector({ config, logger });
  } catch (err) {
    failStart(err);
  }
  let server;
  try {
    server = await connector.listen(config.port, config.host);
  } catch (err) {
    // Nothing was taken yet: the workers start once the server listens.
    await connector.stop();
    failStart(err);
  }
  // A stop that came while the server was starting has stopped everything: nothing more to start.
  if (stopping) return;
  // Work accepted by an earlier run (even one that crashed) resumes now.
  connector.startWorkers();
  const { store } = connector;
  const { port } = server.address() as AddressInfo;
  const base = `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${port}`;
  logger.info({ port, host: config.host }, 'connector listening');
  logPortalPolicy(logger, config.portal.policy);

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
}

void main();
