/**
 * Sends the e-mail digests watch runs enqueued (store watch_mails): leased one at a time, sent through
 * the mailer with the digest's own Message-ID, retried with backoff when the server refuses or can't be
 * reached, given up after MAX_MAIL_ATTEMPTS. At least once: a process that dies between the server's
 * acceptance and the record sends that digest again, with the same Message-ID.
 */
import type { Logger } from '../logger.js';
import type { Mailer } from '../mailer.js';
import type { Store, WatchMailRecord } from '../store/types.js';
import { LeasedLoop, type Hold, type LeaseWindow, type Worker } from '../workers/index.js';

export const MAX_MAIL_ATTEMPTS = 8;
/** The first retry's delay; each next one is four times longer, up to MAX_MAIL_RETRY_MS. */
const FIRST_RETRY_MS = 60_000;
const MAX_MAIL_RETRY_MS = 6 * 3_600_000;

export class WatchMailSender implements Worker {
  readonly name = 'watch mail';
  private readonly loops: LeasedLoop;

  constructor(
    private readonly deps: { store: Pick<Store, 'watches'>; mailer: Pick<Mailer, 'send'>; logger: Logger; now: () => Date },
    /** leaseMs: one sending attempt's time, with room (the lease is not renewed). */
    opts: { pollMs: number; leaseMs: number },
  ) {
    this.loops = new LeasedLoop(this.name, (w, hold) => this.leaseOne(w, hold), {
      leaseMs: opts.leaseMs,
      pollMs: opts.pollMs,
      now: deps.now,
      logger: deps.logger,
    });
  }

  start(): void {
    this.loops.start();
  }

  stop(): Promise<void> {
    return this.loops.stop();
  }

  notify(): void {
    this.loops.notify();
  }

  tick(): Promise<boolean> {
    return this.loops.tick();
  }

  private async leaseOne({ at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const mail = await this.deps.store.watches.leaseMail(at, until);
    if (!mail) return false;
    await hold({ run: () => this.send(mail) });
    return true;
  }

  private async send(mail: WatchMailRecord): Promise<void> {
    try {
      await this.deps.mailer.send({
        to: mail.to_address,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        messageId: `<${mail.id}@covercheck.watches>`,
      });
      await this.deps.store.watches.finishMail(
        mail.id,
        { status: 'sent', error: null, next_attempt_at: null },
        this.deps.now().toISOString(),
      );
    } catch (err) {
      const error = (err as Error).message;
      const giveUp = mail.attempts >= MAX_MAIL_ATTEMPTS;
      const now = this.deps.now();
      const next = new Date(now.getTime() + Math.min(MAX_MAIL_RETRY_MS, FIRST_RETRY_MS * 4 ** (mail.attempts - 1))).toISOString();
      this.deps.logger.warn(
        { mail_id: mail.id, watch_id: mail.watch_id, attempt: mail.attempts, error, give_up: giveUp },
        'watch digest not sent',
      );
      await this.deps.store.watches.finishMail(
        mail.id,
        { status: giveUp ? 'failed' : 'pending', error, next_attempt_at: giveUp ? null : next },
        now.toISOString(),
      );
    }
  }
}
