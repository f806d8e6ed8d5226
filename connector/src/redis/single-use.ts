/**
 * Single-use ids (the portal's CSRF form ids): `claim(id)` is true the first time an id is seen and
 * false after. In memory for one instance; with Redis, SET NX PX makes the first claim win across
 * every instance, so a form re-posted to another instance is still refused.
 */
import type { RedisHandle } from './client.js';

export interface SingleUse {
  /** True when `id` had not been claimed; it then stays claimed until `untilMs` (epoch ms). */
  claim(id: string, untilMs: number, nowMs: number): Promise<boolean>;
}

export class MemorySingleUse implements SingleUse {
  private readonly used = new Map<string, number>();

  async claim(id: string, untilMs: number, nowMs: number): Promise<boolean> {
    return this.claimNow(id, untilMs, nowMs);
  }

  /** The synchronous core, also the fallback of the Redis version. */
  claimNow(id: string, untilMs: number, nowMs: number): boolean {
    for (const [k, until] of this.used) if (until < nowMs) this.used.delete(k);
    if (this.used.has(id)) return false;
    this.used.set(id, untilMs);
    return true;
  }
}

/**
 * Claims in Redis under `prefix:name:id`. Every claim is also kept locally: if Redis is unreachable
 * the local record still refuses a reuse on this instance (the limit degrades to per-instance, as
 * the rate limits do) instead of failing the request.
 */
export class RedisSingleUse implements SingleUse {
  private readonly local = new MemorySingleUse();

  constructor(
    private readonly redis: RedisHandle,
    private readonly name: string,
  ) {}

  async claim(id: string, untilMs: number, nowMs: number): Promise<boolean> {
    if (!this.local.claimNow(id, untilMs, nowMs)) return false;
    const ttl = Math.max(1, untilMs - nowMs);
    try {
      return (await this.redis.client.set(this.redis.key(this.name, id), '1', 'PX', ttl, 'NX')) === 'OK';
    } catch (err) {
      this.redis.reportError(err);
      return true;
    }
  }
}

export function createSingleUse(redis: RedisHandle | null, name: string): SingleUse {
  return redis ? new RedisSingleUse(redis, name) : new MemorySingleUse();
}
