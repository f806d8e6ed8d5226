/**
 * N loops that each call `tick` until it reports no work, then sleep `pollMs` or until `notify()`.
 * Every background loop runs on it (job queue, webhook outbox, Sheets write-backs and schedules, the
 * unused-key sweep): each polls the store for due rows and is woken at once when something new is
 * written in this process. It sits below all of them so none imports another's folder for it.
 */
import type { Logger } from './logger.js';

export class PollingLoops {
  private running = false;
  private loops: Promise<void>[] = [];
  private wakers: (() => void)[] = [];

  constructor(
    private readonly name: string,
    private readonly tick: () => Promise<boolean>,
    private readonly opts: { pollMs: number; logger: Logger },
  ) {}

  start(count: number): void {
    if (this.running) return;
    this.running = true;
    for (let i = 0; i < count; i++) this.loops.push(this.loop());
  }

  /** Stops the loops after the tick each is in finishes. */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await Promise.all(this.loops);
    this.loops = [];
  }

  notify(): void {
    for (const wake of this.wakers.splice(0)) wake();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      let worked = false;
      try {
        worked = await this.tick();
      } catch (err) {
        this.opts.logger.error({ err }, `${this.name} tick failed`);
      }
      if (!worked && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs);
          this.wakers.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    }
  }
}
