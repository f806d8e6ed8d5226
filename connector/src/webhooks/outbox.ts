/**
 * Delivers the webhook outbox: leases due deliveries, signs and POSTs them through a bottleneck
 * limiter per destination host, and records every attempt. At least once: a delivery leaves
 * `pending` only on a 2xx (delivered) or when the retry schedule is exhausted (failed); the same
 * webhook-id goes out on every attempt. A process that dies mid-attempt loses only its lease.
 * With Redis the per-host limits hold across every instance (redis/limiters.ts).
 *
 * A host never holds more than its share of the delivery loops (host-gate.ts): a loop attempts a
 * leased delivery only when its host has a free slot in this process. Otherwise the delivery waits
 * in memory for the slot (the loop that frees it takes it next) or, when the host's line is full or
 * its breaker is open, is left leased without an attempt: it is due again when the lease ends, its
 * attempt count and retry schedule untouched. Either way the loop goes on to the next due delivery.
 */
import type Bottleneck from 'bottleneck';
import { generateWebhookSecret } from '../../../shared/webhooks.js';
import type { Logger } from '../logger.js';
import type { MetricsSink } from '../metrics/sink.js';
import { createLimiters, type Limiters } from '../redis/limiters.js';
import type { OutboxRecord, Store } from '../store/types.js';
import { nextRetryDelayMs } from './backoff.js';
import { deliverWebhook, type DeliverOptions, type DeliveryAttempt } from './deliver.js';
import { HostGate } from './host-gate.js';
import { LeasedLoop, type Hold, type LeaseWindow, type Worker } from '../workers/index.js';

export interface OutboxOptions {
  /** Deliveries in flight at once, across hosts. */
  concurrency: number;
  /** Attempts in flight to one host: in this process (host-gate.ts) and, with Redis, across instances (bottleneck). */
  perHostConcurrency: number;
  perHostMinTimeMs: number;
  timeoutMs: number;
  /** Multiplies the retry schedule (1 in production). */
  retryScale: number;
  pollMs: number;
  allowPrivate: boolean;
  ca?: string | Buffer;
  /** Leased deliveries waiting in memory for a host's slot; more are postponed to their lease's end. */
  perHostQueue?: number;
  /** Consecutive failed attempts (no answer, 5xx, 429) that open a host's breaker; 0: no breaker. */
  breakerFailures?: number;
  /** How long an open breaker postpones the host's deliveries before one probe attempt. */
  breakerCooldownMs?: number;
}

/** A delivery leased by this process and waiting for its host's slot: its id, re-read when its turn comes. */
interface Waiting {
  id: string;
  leaseUntilMs: number;
}

/** The lease covers one attempt, queueing at the host limiter and waiting in memory, with room to spare. */
const LEASE_TIMEOUTS = 6;
/** A waiting delivery starts only while this many attempt timeouts of its lease remain. */
const START_MARGIN_TIMEOUTS = 2;
/** Waiting deliveries of all hosts together (each an id and a time: a few MB at most). */
const WAITING_TOTAL = 20_000;

export interface OutboxDeps {
  store: Pick<Store, 'outbox' | 'keys'>;
  logger: Logger;
  now: () => Date;
  deliver?: typeof deliverWebhook;
  /** In-process limiters when absent. */
  limiters?: Limiters;
  /** Where each attempt's outcome is counted. */
  metrics?: MetricsSink;
}

export class OutboxProcessor implements Worker {
  readonly name = 'webhook outbox';
  private readonly hosts: Bottleneck.Group;
  private readonly jobOptions: Bottleneck.JobOptions;
  private readonly loops: LeasedLoop;
  private readonly gate: HostGate<Waiting>;
  private stopping = false;

  constructor(
    private readonly deps: OutboxDeps,
    private readonly opts: OutboxOptions,
  ) {
    const limiters = deps.limiters ?? createLimiters(null);
    this.hosts = limiters.group('webhook-hosts', { maxConcurrent: opts.perHostConcurrency, minTime: opts.perHostMinTimeMs });
    this.jobOptions = limiters.job(opts.timeoutMs);
    this.gate = new HostGate({
      perHost: opts.perHostConcurrency,
      waitingPerHost: opts.perHostQueue ?? 1_000,
      waitingTotal: WAITING_TOTAL,
      breakerFailures: opts.breakerFailures ?? 5,
      breakerCooldownMs: opts.breakerCooldownMs ?? 60_000,
      now: () => deps.now().getTime(),
    });
    // No renewal: the lease is long enough for the unit as taken (LEASE_TIMEOUTS).
    this.loops = new LeasedLoop(this.name, (w, hold) => this.leaseOne(w, hold), {
      leaseMs: opts.timeoutMs * LEASE_TIMEOUTS,
      pollMs: opts.pollMs,
      loops: opts.concurrency,
      now: deps.now,
      logger: deps.logger,
    });
  }

  start(): void {
    this.stopping = false;
    this.loops.start();
  }

  async stop(): Promise<void> {
    // Waiting deliveries stay leased in the store and are due again when their leases end.
    this.stopping = true;
    this.gate.clearWaiting();
    await this.loops.stop();
    // A clustered limiter needs Redis to stop cleanly; if Redis is gone, nothing local is left to wait for.
    await Promise.all(this.hosts.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: false }).catch(() => undefined)));
  }

  notify(): void {
    this.loops.notify();
  }

  /** Leases one due delivery and attempts it, or leaves it waiting or postponed; false when none was due. */
  tick(): Promise<boolean> {
    return this.loops.tick();
  }

  private async leaseOne({ at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const delivery = await this.deps.store.outbox.lease(at, until);
    if (!delivery) return false;
    await hold({ run: () => this.dispatch(delivery, Date.parse(until)) });
    return true;
  }

  /** Attempts `first` if its host has a free slot, then, in the same slot, the host's waiting deliveries. */
  private async dispatch(first: OutboxRecord, leaseUntilMs: number): Promise<void> {
    const host = new URL(first.url).host;
    const admission = this.gate.admit(host, { id: first.id, leaseUntilMs });
    if (admission !== 'run') {
      this.deps.logger.debug({ webhook_id: first.id, host, admission }, 'webhook delivery not attempted now');
      return;
    }
    const startable = (w: Waiting) =>
      !this.stopping && w.leaseUntilMs - this.deps.now().getTime() >= this.opts.timeoutMs * START_MARGIN_TIMEOUTS;
    let current: OutboxRecord | null = first;
    while (current) {
      let healthy: boolean | null;
      try {
        healthy = await this.attempt(current);
      } catch (err) {
        // The waiting ones are forgotten with the slot; their leases end and they are due again.
        this.gate.release(host, null, () => false);
        throw err;
      }
      let next = this.gate.release(host, healthy, startable);
      current = null;
      while (next && !current) {
        const stored = await this.deps.store.outbox.get(next.id).catch((err: unknown) => {
          this.gate.release(host, null, () => false);
          throw err;
        });
        if (stored?.status === 'pending') current = stored;
        else next = this.gate.release(host, null, startable);
      }
    }
  }

  private async secretFor(keyId: string): Promise<string> {
    const key = await this.deps.store.keys.get(keyId);
    if (key?.webhook_secret) return key.webhook_secret;
    // Keys made before webhook secrets existed get one on first use; the operator reads it with
    // `npm run keys -- webhook-secret --id ...` (deliveries are never sent unsigned).
    const secret = generateWebhookSecret();
    await this.deps.store.keys.setWebhookSecret(keyId, secret);
    return secret;
  }

  /** One attempt, recorded; returns whether the host answered as a working host does (for its breaker). */
  private async attempt(d: OutboxRecord): Promise<boolean> {
    const host = new URL(d.url).host;
    const secret = await this.secretFor(d.key_id);
    const deliver = this.deps.deliver ?? deliverWebhook;
    const options: DeliverOptions = {
      timeoutMs: this.opts.timeoutMs,
      allowPrivate: this.opts.allowPrivate,
      ca: this.opts.ca,
    };
    const result = await this.hosts
      .key(host)
      .schedule(this.jobOptions, () =>
        deliver({ url: d.url, id: d.id, timestampS: Math.floor(this.deps.now().getTime() / 1000), body: d.body, secret }, options),
      );
    const attempt = d.attempts + 1;
    const at = this.deps.now();
    let next: { status: OutboxRecord['status']; next_attempt_at: string | null };
    if (result.ok) {
      next = { status: 'delivered', next_attempt_at: null };
    } else {
      const delay = nextRetryDelayMs(attempt, { scale: this.opts.retryScale });
      next =
        delay === null
          ? { status: 'failed', next_attempt_at: null }
          : { status: 'pending', next_attempt_at: new Date(at.getTime() + delay).toISOString() };
    }
    await this.deps.store.outbox.recordAttempt(
      d.id,
      { attempt, at: at.toISOString(), status: result.status, error: result.error, duration_ms: Math.round(result.durationMs) },
      next,
    );
    this.deps.logger.info(
      { webhook_id: d.id, event: d.event_type, attempt, status: result.status, outcome: next.status },
      'webhook attempt',
    );
    this.deps.metrics?.webhookAttempt(next.status === 'pending' ? 'retrying' : next.status, result.status, result.durationMs);
    if (next.status === 'pending' && next.next_attempt_at) {
      const wait = Date.parse(next.next_attempt_at) - this.deps.now().getTime();
      // Short retry delays (tests, tiny scales) would otherwise wait for the poll interval.
      if (wait < this.opts.pollMs) setTimeout(() => this.notify(), Math.max(0, wait)).unref();
    }
    return hostHealthy(result);
  }
}

/**
 * Any answer but a 5xx or a 429 shows the host working: a 4xx is about one URL or one key's secret,
 * and must not postpone the other keys' deliveries to the same host. No answer at all (timeout,
 * refused, reset, TLS, an address the guard refuses), a 5xx or a 429 counts toward its breaker.
 */
function hostHealthy(result: DeliveryAttempt): boolean {
  return result.status !== null && result.status < 500 && result.status !== 429;
}
