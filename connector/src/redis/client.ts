/**
 * The one Redis connection of an instance, built from config when COVERCHECK_REDIS_URL is set.
 * ioredis is loaded only then (dynamic import): an embedded deployment never loads it.
 *
 * The handle holds one command client, shared by the inbound rate limits, the portal's single-use
 * form ids and every clustered bottleneck limiter, and bottleneck's connection object, which adds
 * the one subscriber client bottleneck needs for its pub/sub. Everything is keyed under `prefix`,
 * so several deployments can share one Redis.
 */
import Bottleneck from 'bottleneck';
import type { Redis } from 'ioredis';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export interface RedisHandle {
  readonly client: Redis;
  readonly prefix: string;
  /** Bottleneck's connection: every clustered limiter and group shares it (and so two clients in all). */
  readonly bottleneck: Bottleneck.IORedisConnection;
  /** `prefix:part:part`, the namespace for our own keys. */
  key(...parts: string[]): string;
  /** The URL without its password, for logs. */
  readonly where: string;
  /** Logs a limiter's Redis failure, at most every 30 s (the clients' own errors are logged once per outage). */
  reportError(err: unknown): void;
  /** Quits both clients; safe to call twice. */
  close(): Promise<void>;
}

export interface ConnectOptions {
  /** How long start may wait for Redis before giving up. */
  connectTimeoutMs?: number;
}

/** How often an ongoing outage is logged again (the clients retry far more often than this). */
const OUTAGE_LOG_EVERY_MS = 30_000;

export function describeRedisUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * Connects and waits until Redis answers. Null without Redis config. Throws a readable error when
 * Redis can't be reached at start: limits that were meant to be shared must not silently become
 * per-process ones.
 */
export async function connectRedis(settings: Config['redis'], logger: Logger, opts: ConnectOptions = {}): Promise<RedisHandle | null> {
  if (!settings) return null;
  const { Redis: RedisClient } = await import('ioredis');
  const where = describeRedisUrl(settings.url);
  const timeoutMs = opts.connectTimeoutMs ?? 10_000;

  const client = new RedisClient(settings.url, {
    // A command issued during a short blip (a failover, a restart) waits for the reconnect; in a
    // longer outage it fails after two reconnect attempts rather than holding the request behind it.
    enableOfflineQueue: true,
    maxRetriesPerRequest: 2,
    connectTimeout: 5_000,
    retryStrategy: (attempt: number) => Math.min(100 * 2 ** (attempt - 1), 2_000),
    connectionName: `${settings.prefix}:connector`,
  });

  let down = false;
  let connected = false;
  let lastError: unknown;
  let lastOutageLog = 0;
  const outage = (err: unknown) => {
    lastError = err;
    // Before the first connection, start reports the failure itself (one clear message, exit 2).
    if (!connected) return;
    const now = Date.now();
    if (down && now - lastOutageLog < OUTAGE_LOG_EVERY_MS) return;
    down = true;
    lastOutageLog = now;
    logger.error(
      { err, redis: where },
      'Redis unreachable: inbound rate limits fall back to per-instance counts; calls to rate-limited upstreams (registries, webhooks, Sheets) fail or wait until it is back',
    );
  };
  client.on('error', outage);
  client.on('ready', () => {
    connected = true;
    if (!down) return;
    down = false;
    logger.warn({ redis: where }, 'Redis reachable again: limits are shared across instances again');
  });
  let lastFailureLog = 0;
  const reportError = (err: unknown) => {
    const now = Date.now();
    if (now - lastFailureLog < OUTAGE_LOG_EVERY_MS) return;
    lastFailureLog = now;
    logger.error({ err, redis: where }, 'a shared limiter failed on Redis');
  };

  // Bottleneck would require('ioredis') itself unless given the class; the connection reuses our
  // client for commands and duplicates it once for subscriptions.
  const connection = new Bottleneck.IORedisConnection({ client, Redis: RedisClient });
  connection.on('error', outage);

  // bottleneck.d.ts declares ready() a method, but IORedisConnection sets it as a promise property;
  // its subscriber client exists (and connects) from the constructor on.
  const { ready, subscriber } = connection as unknown as { ready: Promise<Bottleneck.ClientsList>; subscriber: Redis };
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      ready,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const cause = lastError instanceof Error ? ` (${lastError.message})` : '';
          reject(new Error(`Redis at ${where} did not answer within ${timeoutMs} ms${cause}`));
        }, timeoutMs);
      }),
    ]);
  } catch (err) {
    client.disconnect();
    subscriber.disconnect();
    throw err;
  } finally {
    clearTimeout(timer);
  }

  let closing: Promise<void> | undefined;
  return {
    client,
    prefix: settings.prefix,
    bottleneck: connection,
    where,
    reportError,
    key: (...parts) => [settings.prefix, ...parts].join(':'),
    close() {
      closing ??= (async () => {
        // QUIT lets replies in flight arrive; if Redis is gone it can't answer, so cap the wait.
        const quit = connection.disconnect(true).catch(() => undefined);
        await Promise.race([quit, new Promise((r) => setTimeout(r, 2_000).unref())]);
        // Stops reconnect attempts too: nothing of ours keeps the process alive afterwards.
        client.disconnect();
        subscriber.disconnect();
      })();
      return closing;
    },
  };
}
