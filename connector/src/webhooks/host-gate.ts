/**
 * Per-host admission of webhook attempts, in this process: at most `perHost` attempts in flight to
 * one host, a bounded line of deliveries waiting for one of its slots, and a circuit breaker that
 * postpones a failing host's deliveries for a cool-down. A slow or silent host so holds at most
 * `perHost` of the delivery loops; every other host's deliveries go on beside it.
 *
 * The gate only decides; what "wait" and "postpone" mean for a leased delivery is the outbox's.
 * State is per process (as the breaker of any one instance sees its own attempts); with Redis the
 * cross-instance limit stays bottleneck's (outbox.ts).
 */

export interface HostGateOptions {
  /** Attempts in flight to one host. */
  perHost: number;
  /** Deliveries waiting for a host's slot; more are postponed. */
  waitingPerHost: number;
  /** Deliveries waiting for any host's slot, all hosts together (bounds memory). */
  waitingTotal: number;
  /** Consecutive failed attempts to a host that open its breaker; 0 turns the breaker off. */
  breakerFailures: number;
  /** How long an open breaker postpones the host's deliveries before one probe is let through. */
  breakerCooldownMs: number;
  /** Monotonic ms. */
  now?: () => number;
}

/** run: the caller holds a slot and attempts now; wait: a running attempt hands it its slot later; postpone: not now. */
export type Admission = 'run' | 'wait' | 'postpone';

interface HostState<T> {
  inFlight: number;
  waiting: T[];
  /** Consecutive failures since the last healthy answer. */
  failures: number;
  /** While set and in the future the breaker is open; once past, one probe may go. */
  openUntil: number | null;
  probing: boolean;
}

/** Host entries kept at most; idle entries with a closed breaker are dropped first. */
const MAX_HOSTS = 10_000;

export class HostGate<T> {
  private readonly hosts = new Map<string, HostState<T>>();
  private waitingCount = 0;
  private readonly now: () => number;

  constructor(private readonly opts: HostGateOptions) {
    this.now = opts.now ?? (() => performance.now());
  }

  /** Asks for a slot for `item` at `host`. */
  admit(host: string, item: T): Admission {
    const s = this.state(host);
    if (s.openUntil !== null) {
      // Open: nothing goes. Cooled down: one probe, alone, decides whether it closes again.
      if (this.now() < s.openUntil || s.probing || s.inFlight > 0) return 'postpone';
      s.probing = true;
      s.inFlight++;
      return 'run';
    }
    if (s.inFlight < this.opts.perHost) {
      s.inFlight++;
      return 'run';
    }
    if (s.waiting.length < this.opts.waitingPerHost && this.waitingCount < this.opts.waitingTotal) {
      s.waiting.push(item);
      this.waitingCount++;
      return 'wait';
    }
    return 'postpone';
  }

  /**
   * Ends an attempt: `healthy` true when the host answered as a working host would, false when it
   * failed (counts toward the breaker), null when the attempt says nothing about the host. Returns
   * the next waiting item `usable` accepts, which takes over the slot, or null (slot released).
   * Items `usable` refuses, and every waiting item when the breaker opens, are forgotten.
   */
  release(host: string, healthy: boolean | null, usable: (item: T) => boolean = () => true): T | null {
    const s = this.state(host);
    s.inFlight--;
    if (healthy === true) {
      s.failures = 0;
      s.openUntil = null;
    } else if (healthy === false) {
      s.failures++;
      if (this.opts.breakerFailures > 0 && (s.probing || s.failures >= this.opts.breakerFailures)) {
        s.openUntil = this.now() + this.opts.breakerCooldownMs;
        this.drop(s, s.waiting.length);
      }
    }
    s.probing = false;
    let next: T | null = null;
    if (s.openUntil === null) {
      while (s.waiting.length && next === null) {
        const candidate = s.waiting.shift()!;
        this.waitingCount--;
        if (usable(candidate)) next = candidate;
      }
    }
    if (next !== null) s.inFlight++;
    else this.forgetIfIdle(host, s);
    return next;
  }

  /** Forgets every waiting item (stopping). */
  clearWaiting(): void {
    for (const s of this.hosts.values()) this.drop(s, s.waiting.length);
  }

  private drop(s: HostState<T>, n: number): void {
    s.waiting.splice(0, n);
    this.waitingCount -= n;
  }

  private state(host: string): HostState<T> {
    let s = this.hosts.get(host);
    if (!s) {
      if (this.hosts.size >= MAX_HOSTS) this.prune();
      s = { inFlight: 0, waiting: [], failures: 0, openUntil: null, probing: false };
      this.hosts.set(host, s);
    }
    return s;
  }

  private forgetIfIdle(host: string, s: HostState<T>): void {
    if (s.inFlight === 0 && s.waiting.length === 0 && s.failures === 0 && s.openUntil === null) this.hosts.delete(host);
  }

  /** Makes room among many failing hosts: idle ones first, then those whose cool-down has passed. */
  private prune(): void {
    const now = this.now();
    for (const [host, s] of this.hosts) {
      if (s.inFlight === 0 && s.waiting.length === 0 && (s.openUntil === null || s.openUntil <= now)) this.hosts.delete(host);
    }
  }
}
