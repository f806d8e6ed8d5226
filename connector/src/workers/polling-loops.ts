/**
 * N loops that each call `tick` until it reports no work, then sleep `pollMs` or until `notify()`.
 * Every background worker runs on it (leased-loop.ts for the ones that lease units from the store):
 * each polls for due work and is woken at once when something new is written in this process.
 */
import type { Logger } from '../logger.js';
import type { Worker } from './worker.js';

export interface LoopOptions {
  /** How long an idle loop sleeps before it looks again. */
  pollMs: number;
  /** Loops run at once; default 1. */
  loops?: number;
  logger: Logger;
}

export class PollingLoops implements Worker {
  private running = false;
  private loops: Promise<void>[] = [];
  private wakers: (() => void)[] = [];

  constructor(
    readonly name: string,
    private readonly tick: () => Promise<boolean>,
    private readonly opts: LoopOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    for (let i = 0; i < (this.opts.loops ?? 1); i++) this.loops.push(this.loop());
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

/** A worker that runs `run` at start and then every `intervalMs` after the last run ended, or at once on `notify()`. */
export function periodic(name: string, run: () => Promise<void>, opts: { intervalMs: number; logger: Logger }): PollingLoops {
  return new PollingLoops(
    name,
    async () => {
      await run();
      return false; // always sleep a full interval
    },
    { pollMs: opts.intervalMs, logger: opts.logger },
  );
}
