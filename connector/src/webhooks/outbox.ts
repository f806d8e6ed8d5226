/**
 * Delivers the webhook outbox: leases due deliveries, signs and POSTs them through a bottleneck
 * limiter per destination host, and records every attempt. At least once: a delivery leaves
 * `pending` only on a 2xx (delivered) or when the retry schedule is exhausted (failed); the same
 * webhook-id goes out on every attempt. A process that dies mid-attempt loses only its lease.
 * With Redis the per-host limits hold across every instance (redis/limiters.ts).
 */
import type Bottleneck from 'bottleneck';
import { generateWebhookSecret } from '../../../shared/webhooks.js';
import type { Logger } from '../logger.js';
import { createLimiters, type Limiters } from '../redis/limiters.js';
import type { OutboxRecord, Store } from '../store/types.js';
import { nextRetryDelayMs } from './backoff.js';
import { deliverWebhook, type DeliverOptions } from './deliver.js';
import { PollingLoops } from '../polling-loops.js';

export interface OutboxOptions {
  /** Deliveries in flight at once, across hosts. */
  concurrency: number;
  perHostConcurrency: number;
  perHostMinTimeMs: number;
  timeoutMs: number;
  /** Multiplies the retry schedule (1 in production). */
  retryScale: number;
  pollMs: number;
  allowPrivate: boolean;
  ca?: string | Buffer;
}

export interface OutboxDeps {
  store: Pick<Store, 'outbox' | 'keys'>;
  logger: Logger;
  now: () => Date;
  deliver?: typeof deliverWebhook;
  /** In-process limiters when absent. */
  limiters?: Limiters;
}

export class OutboxProcessor {
  private readonly hosts: Bottleneck.Group;
  private readonly jobOptions: Bottleneck.JobOptions;
  private readonly loops: PollingLoops;

  constructor(
    private readonly deps: OutboxDeps,
    private readonly opts: OutboxOptions,
  ) {
    const limiters = deps.limiters ?? createLimiters(null);
    this.hosts = limiters.group('webhook-hosts', { maxConcurrent: opts.perHostConcurrency, minTime: opts.perHostMinTimeMs });
    this.jobOptions = limiters.job(opts.timeoutMs);
    this.loops = new PollingLoops('webhook outbox', () => this.tick(), { pollMs: opts.pollMs, logger: deps.logger });
  }

  start(): void {
    this.loops.start(this.opts.concurrency);
  }

  async stop(): Promise<void> {
    await this.loops.stop();
    // A clustered limiter needs Redis to stop cleanly; if Redis is gone, nothing local is left to wait for.
    await Promise.all(this.hosts.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: false }).catch(() => undefined)));
  }

  notify(): void {
    this.loops.notify();
  }

  /** Attempts one due delivery; false when none was due. */
  async tick(): Promise<boolean> {
    const now = this.deps.now();
    // The lease outlives one attempt (timeout plus queueing at the host limiter) with room to spare.
    const leaseUntil = new Date(now.getTime() + this.opts.timeoutMs * 6).toISOString();
    const delivery = await this.deps.store.outbox.lease(now.toISOString(), leaseUntil);
    if (!delivery) return false;
    await this.attempt(delivery);
    return true;
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

  private async attempt(d: OutboxRecord): Promise<void> {
    const host = new URL(d.url).host;
    const secret = await this.secretFor(d.key_id);
    const deliver = this.deps.deliver ?? deliverWebhook;
    const options: DeliverOptions = { timeoutMs: this.opts.timeoutMs, allowPrivate: this.opts.allowPrivate, ...(this.opts.ca ? { ca: this.opts.ca } : {}) };
    const result = await this.hosts.key(host).schedule(this.jobOptions, () =>
      deliver({ url: d.url, id: d.id, timestampS: Math.floor(this.deps.now().getTime() / 1000), body: d.body, secret }, options),
    );
    const attempt = d.attempts + 1;
    const at = this.deps.now();
    let next: { status: OutboxRecord['status']; next_attempt_at: string | null };
    if (result.ok) {
      next = { status: 'delivered', next_attempt_at: null };
    } else {
      const delay = nextRetryDelayMs(attempt, { scale: this.opts.retryScale });
      next = delay === null ? { status: 'failed', next_attempt_at: null } : { status: 'pending', next_attempt_at: new Date(at.getTime() + delay).toISOString() };
    }
    await this.deps.store.outbox.recordAttempt(d.id, { attempt, at: at.toISOString(), status: result.status, error: result.error, duration_ms: Math.round(result.durationMs) }, next);
    this.deps.logger.info({ webhook_id: d.id, event: d.event_type, attempt, status: result.status, outcome: next.status }, 'webhook attempt');
    if (next.status === 'pending' && next.next_attempt_at) {
      const wait = Date.parse(next.next_attempt_at) - this.deps.now().getTime();
      // Short retry delays (tests, tiny scales) would otherwise wait for the poll interval.
      if (wait < this.opts.pollMs) setTimeout(() => this.notify(), Math.max(0, wait)).unref();
    }
  }
}
