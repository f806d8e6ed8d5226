/**
 * Request rate limits (rate-limiter-flexible): a budget per API key for authenticated routes and
 * per client IP for unauthenticated ones and for failed authentication. Fixed one-minute windows;
 * numbers from config. Excess answers 429 rate_limit_exceeded with Retry-After and retry_after.
 * With Redis the counts are shared by every instance; if Redis fails they fall back to per-instance
 * counts (redis/rate-limiter.ts).
 */
import type { Request, RequestHandler } from 'express';
import { RateLimiterRes } from 'rate-limiter-flexible';
import type { Config } from '../config.js';
import type { RedisHandle } from '../redis/client.js';
import { createBudget } from '../redis/rate-limiter.js';
import { AppError } from '../errors.js';
import { currentKey } from './auth.js';

export interface RateLimits {
  perKey: RequestHandler;
  perIp: RequestHandler;
  /** Spends one point of the IP's budget; throws 429 when it is gone. */
  consumeIp(req: Request): Promise<void>;
}

function tooMany(rej: unknown, what: string): AppError {
  if (!(rej instanceof RateLimiterRes)) throw rej;
  const retryAfter = Math.max(1, Math.ceil(rej.msBeforeNext / 1000));
  return new AppError('rate_limit_exceeded', `Too many requests for this ${what}. Retry after ${retryAfter} s.`, { retryAfter });
}

export function createRateLimits(config: Config, redis: RedisHandle | null = null): RateLimits {
  const keyLimiter = createBudget(redis, { keyPrefix: 'key', points: config.rateLimit.perKeyPerMinute, duration: 60 });
  const ipLimiter = createBudget(redis, { keyPrefix: 'ip', points: config.rateLimit.perIpPerMinute, duration: 60 });
  const consumeIp = async (req: Request) => {
    try {
      await ipLimiter.consume(req.ip ?? 'unknown');
    } catch (rej) {
      throw tooMany(rej, 'IP address');
    }
  };
  return {
    consumeIp,
    // Errors go to next() rather than being thrown, so these also work when called by hand.
    perIp: async (req, _res, next) => {
      try {
        await consumeIp(req);
      } catch (err) {
        return next(err);
      }
      next();
    },
    perKey: async (_req, res, next) => {
      try {
        await keyLimiter.consume(currentKey(res).id);
      } catch (rej) {
        return next(tooMany(rej, 'API key'));
      }
      next();
    },
  };
}
