/**
 * Makes the bottleneck limiters that guard upstream quotas (registries, webhook hosts, Sheets).
 * Without Redis they are plain in-process limiters, exactly as an embedded connector always had.
 * With Redis they are clustered (bottleneck's ioredis datastore): running counts, spacing and
 * reservoirs live in Redis, so `maxConcurrent: 2` means two at once across every instance.
 *
 * Clustering rules this follows (bottleneck README, "Clustering"):
 * - limiters with the same `id` share state, so ids carry the deployment's prefix;
 * - the first limiter to create an id stores its settings in Redis and later ones adopt them, so
 *   each new limiter re-applies this instance's settings with updateSettings() (a changed config
 *   takes effect on restart), leaving the current reservoir count alone so a restart can't refill it;
 * - `timeout` expires an idle limiter's keys (COVERCHECK_REDIS_LIMITER_IDLE_MS); the next call
 *   re-creates them with the limiter's settings, on Redis 7 too (script-errors.ts);
 *   `clearDatastore: false` keeps other instances' state;
 * - queued jobs stay local; a job's `expiration` lets the cluster reclaim the slot of an instance
 *   that died mid-job (see `job()`).
 */
import Bottleneck from 'bottleneck';
import type { RedisHandle } from './client.js';
import { recoverExpiredLimiters } from './script-errors.js';

export interface LimiterSettings {
  maxConcurrent?: number | null;
  minTime?: number;
  /** At most `amount` job starts per `intervalMs`: bottleneck's reservoir, reset every interval. */
  quota?: { amount: number; intervalMs: number } | null;
}

export interface Limiters {
  /** True when limits are shared with other instances through Redis. */
  readonly shared: boolean;
  limiter(id: string, settings: LimiterSettings): Bottleneck;
  /** One limiter per key (`group.key(k)`), each with these settings. */
  group(id: string, settings: LimiterSettings): Bottleneck.Group;
  /**
   * Options for schedule(). Shared: an expiration a little over the job's own deadline, after which
   * the cluster frees the job's slot even if its instance died. Local: none, as before.
   */
  job(deadlineMs: number): Bottleneck.JobOptions;
}

/** Idle limiters' keys expire after this long by default (bottleneck's own default for groups). */
const IDLE_TTL_MS = 5 * 60_000;
/**
 * Clustered limiters look at Redis every 5 s by default; a queue waiting on an empty reservoir
 * would wait that long for its refill. Quotas check every 250 ms (the local datastore's rate).
 */
const QUOTA_HEARTBEAT_MS = 250;
const EXPIRATION_MARGIN_MS = 5_000;

function limits(s: LimiterSettings): Bottleneck.ConstructorOptions {
  return {
    maxConcurrent: s.maxConcurrent ?? null,
    minTime: s.minTime ?? 0,
    ...(s.quota ? { reservoir: s.quota.amount, reservoirRefreshAmount: s.quota.amount, reservoirRefreshInterval: s.quota.intervalMs } : {}),
  };
}

/** What updateSettings re-applies: everything but the live reservoir count (unless the quota is gone). */
function sharedSettings(s: LimiterSettings): Bottleneck.ConstructorOptions {
  return {
    maxConcurrent: s.maxConcurrent ?? null,
    minTime: s.minTime ?? 0,
    reservoirRefreshAmount: s.quota?.amount ?? null,
    reservoirRefreshInterval: s.quota?.intervalMs ?? null,
    ...(s.quota ? {} : { reservoir: null }),
  };
}

export interface LimitersOptions {
  /** A shared limiter's keys in Redis expire after this long unused (COVERCHECK_REDIS_LIMITER_IDLE_MS). */
  idleTimeoutMs?: number | undefined;
}

export function createLimiters(redis: RedisHandle | null, opts: LimitersOptions = {}): Limiters {
  if (!redis) {
    return {
      shared: false,
      limiter: (id, s) => new Bottleneck({ ...limits(s), id }),
      group: (id, s) => new Bottleneck.Group({ ...limits(s), id }),
      job: () => ({}),
    };
  }
  if (!recoverExpiredLimiters(redis.bottleneck)) {
    redis.reportError(
      new Error(
        'bottleneck no longer has the script hook script-errors.ts wraps: limiters idle past their timeout may not recover on Redis 7',
      ),
    );
  }
  const clustered = (id: string, s: LimiterSettings): Bottleneck.ConstructorOptions => ({
    ...limits(s),
    id: redis.key(id),
    datastore: 'ioredis',
    connection: redis.bottleneck,
    clearDatastore: false,
    timeout: opts.idleTimeoutMs ?? IDLE_TTL_MS,
    ...(s.quota ? { heartbeatInterval: Math.min(QUOTA_HEARTBEAT_MS, s.quota.intervalMs) } : {}),
  });
  const adopt = (limiter: Bottleneck, s: LimiterSettings): Bottleneck => {
    limiter.on('error', (err: unknown) => redis.reportError(err));
    // Typed as returning the limiter; at runtime it returns a promise of it (the Redis round trip).
    Promise.resolve(limiter.updateSettings(sharedSettings(s))).catch((err: unknown) => redis.reportError(err));
    return limiter;
  };
  return {
    shared: true,
    limiter: (id, s) => adopt(new Bottleneck(clustered(id, s)), s),
    group(id, s) {
      const group = new Bottleneck.Group(clustered(id, s));
      group.on('created', (limiter) => adopt(limiter, s));
      group.on('error', (err: unknown) => redis.reportError(err));
      return group;
    },
    job: (deadlineMs) => ({ expiration: deadlineMs + EXPIRATION_MARGIN_MS }),
  };
}
