/**
 * Inbound request budgets (rate-limiter-flexible): in process memory, or with Redis one count per
 * key shared by every instance (RateLimiterRedis, an atomic INCR + TTL script).
 *
 * When Redis can't be reached the limiter falls back to an in-memory one with the same budget
 * (`insuranceLimiter`), so requests keep being answered and limited, per instance, rather than
 * failing: during an outage a key can get up to `points` per instance. `rejectIfRedisNotReady`
 * makes that fallback immediate instead of letting a request wait on reconnect attempts.
 */
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisHandle } from './client.js';

export interface BudgetOptions {
  /** Names the budget: `key`, `ip`, `portal_ip`... */
  keyPrefix: string;
  points: number;
  /** Window length in seconds. */
  duration: number;
}

export function createBudget(redis: RedisHandle | null, opts: BudgetOptions): RateLimiterAbstract {
  const memory = new RateLimiterMemory(opts);
  if (!redis) return memory;
  return new RateLimiterRedis({
    ...opts,
    keyPrefix: redis.key('rl', opts.keyPrefix),
    storeClient: redis.client,
    rejectIfRedisNotReady: true,
    insuranceLimiter: memory,
  });
}
