/**
 * Shared limits for a connector running as several instances: one Redis connection per instance
 * (client.ts, ioredis loaded only when configured), clustered bottleneck limiters for upstream
 * quotas (limiters.ts), inbound request budgets (rate-limiter.ts) and single-use ids (single-use.ts).
 * Without COVERCHECK_REDIS_URL each of these is the in-process equivalent.
 */
export { connectRedis, describeRedisUrl, type RedisHandle } from './client.js';
export { createLimiters, type LimiterSettings, type Limiters } from './limiters.js';
export { createBudget, type BudgetOptions } from './rate-limiter.js';
export { createSingleUse, MemorySingleUse, RedisSingleUse, type SingleUse } from './single-use.js';
