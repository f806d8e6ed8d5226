/**
 * Turns at the Sheets quota, shared between API keys. Each key's calls wait in the key's own queue;
 * the quota limiter behind is handed at most `inFlight` calls at once, at most `inFlightPerKey` of
 * one key, taken from the keys in turn. A key's backlog therefore waits in its own queue and never
 * in front of another key's calls: a call waits for at most one turn of each other key that has
 * calls waiting, and for the few calls already handed on.
 *
 * Waiting is bounded: a key with `waitingPerKey` calls waiting has its next one refused, and when
 * `waitingTotal` calls wait in all, so is the next one of a key that already has one waiting. A key
 * with none waiting always gets a place, so a tenant that makes one call at a time (a write-back, a
 * schedule run) is never refused because of the others. Refusals are SheetsBusyError, at once.
 */
import { SheetsBusyError } from './errors.js';

export interface FairShareLimits {
  waitingPerKey: number;
  waitingTotal: number;
  inFlight: number;
  inFlightPerKey: number;
}

interface Waiter {
  start(): Promise<void>;
  cancel(err: Error): void;
}

export class FairShare {
  /** Keys with calls waiting, in turn order: a key served goes to the back. */
  private readonly lanes = new Map<string, Waiter[]>();
  private readonly running = new Map<string, number>();
  private inFlight = 0;
  private waiting = 0;
  private stopped = false;

  constructor(
    private readonly limits: FairShareLimits,
    /** How long the quota needs for one call: what a refusal's Retry-After is reckoned in. */
    private readonly spacingMs: number,
  ) {}

  /** Runs `work` when it is `key`'s turn; refuses at once (SheetsBusyError) when too many wait. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (this.stopped) return Promise.reject(new Error('the Sheets limiter is stopped'));
    const mine = this.lanes.get(key)?.length ?? 0;
    if (mine >= this.limits.waitingPerKey) return Promise.reject(new SheetsBusyError('key', this.retryAfter()));
    if (mine > 0 && this.waiting >= this.limits.waitingTotal) return Promise.reject(new SheetsBusyError('all', this.retryAfter()));
    return new Promise<T>((resolve, reject) => {
      const lane = this.lanes.get(key) ?? [];
      lane.push({ start: () => Promise.resolve().then(work).then(resolve, reject), cancel: reject });
      this.lanes.set(key, lane);
      this.waiting++;
      this.pump();
    });
  }

  /** Calls waiting for their turn, of one key or of all. */
  waitingCount(key?: string): number {
    return key === undefined ? this.waiting : (this.lanes.get(key)?.length ?? 0);
  }

  /** Refuses every call still waiting; calls handed on finish as the limiter behind decides. */
  stop(): void {
    this.stopped = true;
    for (const lane of this.lanes.values()) for (const w of lane) w.cancel(new Error('the Sheets limiter is stopped'));
    this.lanes.clear();
    this.waiting = 0;
  }

  private pump(): void {
    while (this.inFlight < this.limits.inFlight) {
      const key = this.nextKey();
      if (key === undefined) return;
      const lane = this.lanes.get(key)!;
      const waiter = lane.shift()!;
      this.waiting--;
      this.lanes.delete(key);
      if (lane.length > 0) this.lanes.set(key, lane);
      this.inFlight++;
      this.running.set(key, (this.running.get(key) ?? 0) + 1);
      void waiter.start().finally(() => {
        this.inFlight--;
        const n = this.running.get(key)! - 1;
        if (n > 0) this.running.set(key, n);
        else this.running.delete(key);
        this.pump();
      });
    }
  }

  /** The first key in turn order with a call waiting and room in its share of calls handed on. */
  private nextKey(): string | undefined {
    for (const key of this.lanes.keys()) if ((this.running.get(key) ?? 0) < this.limits.inFlightPerKey) return key;
    return undefined;
  }

  /** Seconds for the quota to work through what waits and runs now. */
  private retryAfter(): number {
    return Math.max(1, Math.ceil(((this.waiting + this.inFlight) * this.spacingMs) / 1000));
  }
}
