/** CacheService and PropertiesService stand-ins, with the limits Google documents for each. */
import { Clock, GasError, type Guard } from './runtime.js';

/**
 * reference/cache/cache#put: keys up to 250 characters, up to 100 KB of data per key, expiration
 * 1 to 21,600 s (default 600 s); "The cap for cached items is 1,000. If more than 1,000 items are
 * written, the cache stores the 900 items farthest from expiration."
 */
export const CACHE_LIMITS = {
  keyChars: 250,
  valueBytes: 100 * 1024,
  minTtl: 1,
  maxTtl: 21_600,
  defaultTtl: 600,
  cap: 1000,
  keepAfterCap: 900,
} as const;

export class FakeCache {
  entries = new Map<string, { v: string; until: number }>();
  stats = { puts: 0, gets: 0, evicted: 0 };
  /** Puts refused by `refusePut` so far (tests read it). */
  refusals = 0;
  private refusal: { match: (keys: string[]) => boolean; message: string } | null = null;
  constructor(
    private guard: Guard,
    private clock: Clock,
  ) {}

  private check(k: string, v?: string, ttl?: number): void {
    if (typeof k !== 'string' || k.length > CACHE_LIMITS.keyChars)
      throw new GasError(`Argument too large: key (${String(k).length} characters, at most ${CACHE_LIMITS.keyChars})`);
    if (v !== undefined && Buffer.byteLength(String(v)) > CACHE_LIMITS.valueBytes) throw new GasError('Argument too large: value');
    if (ttl !== undefined && !(Number.isInteger(ttl) && ttl >= CACHE_LIMITS.minTtl && ttl <= CACHE_LIMITS.maxTtl)) {
      throw new GasError(`Invalid argument: expirationInSeconds must be from ${CACHE_LIMITS.minTtl} to ${CACHE_LIMITS.maxTtl}, not ${ttl}`);
    }
  }
  private live(k: string): string | null {
    const e = this.entries.get(k);
    if (!e) return null;
    if (e.until <= this.clock.now) {
      this.entries.delete(k);
      return null;
    }
    return e.v;
  }
  /** Over the cap: drop expired items, then keep the 900 farthest from expiration. */
  private enforceCap(): void {
    if (this.entries.size <= CACHE_LIMITS.cap) return;
    for (const [k, e] of this.entries) if (e.until <= this.clock.now) this.entries.delete(k);
    if (this.entries.size <= CACHE_LIMITS.cap) return;
    const keep = [...this.entries].sort((a, b) => b[1].until - a[1].until).slice(0, CACHE_LIMITS.keepAfterCap);
    this.stats.evicted += this.entries.size - keep.length;
    this.entries = new Map(keep);
  }
  /**
   * Tests: the next put or putAll whose keys `match` throws `message` and stores nothing, once.
   * CacheService is a network service and promises nothing more (Cache reference: no guarantee
   * beyond the limits; a "Service error: Cache" can come back from any call).
   */
  refusePut(match: (keys: string[]) => boolean = () => true, message = 'Service error: Cache'): void {
    this.refusal = { match, message };
  }
  private maybeRefuse(keys: string[]): void {
    if (!this.refusal?.match(keys)) return;
    const { message } = this.refusal;
    this.refusal = null;
    this.refusals++;
    throw new GasError(message);
  }
  /** Live items (tests read it). */
  size(): number {
    for (const k of [...this.entries.keys()]) this.live(k);
    return this.entries.size;
  }

  get(k: string): string | null {
    this.guard.call('Cache.get');
    this.check(k);
    this.stats.gets++;
    return this.live(k);
  }
  getAll(ks: string[]): Record<string, string> {
    this.guard.call('Cache.getAll');
    const out: Record<string, string> = {};
    for (const k of ks) {
      this.check(k);
      this.stats.gets++;
      const v = this.live(k);
      if (v !== null) out[k] = v;
    }
    return out;
  }
  put(k: string, v: string, ttl: number = CACHE_LIMITS.defaultTtl): void {
    this.guard.call('Cache.put');
    this.check(k, v, ttl);
    this.maybeRefuse([k]);
    this.stats.puts++;
    this.entries.set(k, { v: String(v), until: this.clock.now + ttl * 1000 });
    this.enforceCap();
  }
  putAll(o: Record<string, string>, ttl: number = CACHE_LIMITS.defaultTtl): void {
    this.guard.call('Cache.putAll');
    for (const [k, v] of Object.entries(o)) this.check(k, v, ttl);
    this.maybeRefuse(Object.keys(o));
    for (const [k, v] of Object.entries(o)) {
      this.stats.puts++;
      this.entries.set(k, { v: String(v), until: this.clock.now + ttl * 1000 });
    }
    this.enforceCap();
  }
  remove(k: string): void {
    this.guard.call('Cache.remove');
    this.entries.delete(k);
  }
  removeAll(ks: string[]): void {
    this.guard.call('Cache.removeAll');
    for (const k of ks) this.entries.delete(k);
  }
}

/**
 * "Quotas for Google Services": properties value size 9 KB / value, total storage 500 KB /
 * property store, properties read/write 50,000 / day for a consumer account (per user, reset 24 h
 * after the first request).
 */
export const PROPERTY_LIMITS = { valueBytes: 9 * 1024, storeBytes: 500 * 1024, dailyCalls: 50_000 } as const;

/** A per-user daily quota window ("Quotas are per user and reset 24 hours after the first request"). */
export class DailyQuota {
  private start = -Infinity;
  /** Calls in the current 24 h window. */
  count = 0;
  /** Calls ever made, across windows (tests and benches read it). */
  total = 0;
  constructor(
    private clock: Clock,
    private limit: number,
    private service: string,
  ) {}
  take(n = 1): void {
    if (this.clock.now - this.start >= 24 * 3600_000) {
      this.start = this.clock.now;
      this.count = 0;
    }
    if (this.count + n > this.limit) throw new GasError(`Service invoked too many times for one day: ${this.service}.`);
    this.count += n;
    this.total += n;
  }
}

export class FakeProperties {
  data: Record<string, string> = {};
  constructor(
    private guard: Guard,
    /** The running user's properties quota; null while the test itself reads or writes. */
    private quota: () => DailyQuota | null,
    /** Null when writes are allowed, else the refusal (custom functions run with the owner's user properties, read only to editors). */
    private refuseWrite: () => string | null = () => null,
  ) {}

  private read(method: string, detail?: string): void {
    this.guard.call(method, detail);
    this.quota()?.take();
  }
  private write(method: string, next: Record<string, string>, detail?: string): void {
    this.guard.call(method, detail);
    const refusal = this.refuseWrite();
    if (refusal) throw new GasError(refusal);
    this.quota()?.take();
    for (const [k, v] of Object.entries(next)) {
      if (Buffer.byteLength(v) > PROPERTY_LIMITS.valueBytes)
        throw new GasError(`Argument too large: value of ${k} (${Buffer.byteLength(v)} bytes, at most ${PROPERTY_LIMITS.valueBytes})`);
    }
    const merged = { ...this.data, ...next };
    if (FakeProperties.bytes(merged) > PROPERTY_LIMITS.storeBytes)
      throw new GasError('You have exceeded the property storage quota. Please remove some properties and try again.');
    this.data = merged;
  }
  static bytes(o: Record<string, string>): number {
    let n = 0;
    for (const [k, v] of Object.entries(o)) n += Buffer.byteLength(k) + Buffer.byteLength(v);
    return n;
  }
  /** Bytes used (tests read it). */
  size(): number {
    return FakeProperties.bytes(this.data);
  }

  getProperty(k: string): string | null {
    this.read('Properties.getProperty', k);
    return k in this.data ? this.data[k]! : null;
  }
  getProperties(): Record<string, string> {
    this.read('Properties.getProperties');
    return { ...this.data };
  }
  getKeys(): string[] {
    this.read('Properties.getKeys');
    return Object.keys(this.data);
  }
  setProperty(k: string, v: string): this {
    this.write('Properties.setProperty', { [k]: String(v) }, k);
    return this;
  }
  setProperties(o: Record<string, string>, deleteAllOthers = false): this {
    const next = Object.fromEntries(Object.entries(o).map(([k, v]) => [k, String(v)]));
    if (deleteAllOthers) {
      this.guard.call('Properties.setProperties');
      this.data = {};
    }
    this.write('Properties.setProperties', next);
    return this;
  }
  deleteProperty(k: string): this {
    this.guard.call('Properties.deleteProperty');
    const refusal = this.refuseWrite();
    if (refusal) throw new GasError(refusal);
    this.quota()?.take();
    delete this.data[k];
    return this;
  }
  deleteAllProperties(): this {
    this.guard.call('Properties.deleteAllProperties');
    this.quota()?.take();
    this.data = {};
    return this;
  }
}
