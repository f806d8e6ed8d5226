/**
 * The watch runner: leased loops that take due watches (their cadence or a re-check due, or a run left
 * open by a process that died) and run them (run.ts), the lease renewed while a run lasts. Each unit is
 * leased under an owner of its own, so two loops of one process never take each other's watch for theirs.
 */
import crypto from 'node:crypto';
import { LeasedLoop, type Hold, type LeaseWindow, type Worker } from '../workers/index.js';
import { runWatch, type RunDeps } from './run.js';

export interface WatchRunnerOptions {
  /** Watches run at once by this instance. */
  loops: number;
  leaseMs: number;
  pollMs: number;
  chunkSize: number;
  concurrency: number;
}

export class WatchRunner implements Worker {
  readonly name = 'watches';
  private readonly id = `watch-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private units = 0;
  private stopping = false;
  private readonly loops: LeasedLoop;

  constructor(
    private readonly deps: Omit<RunDeps, 'chunkSize' | 'concurrency' | 'stopping'>,
    private readonly opts: WatchRunnerOptions,
  ) {
    this.loops = new LeasedLoop(this.name, (w, hold) => this.leaseOne(w, hold), {
      leaseMs: opts.leaseMs,
      pollMs: opts.pollMs,
      loops: opts.loops,
      now: deps.now,
      logger: deps.logger,
    });
  }

  start(): void {
    this.stopping = false;
    this.loops.start();
  }

  /** Stops taking watches; a run in hand hands its watch back after its current chunk. */
  stop(): Promise<void> {
    this.stopping = true;
    return this.loops.stop();
  }

  notify(): void {
    this.loops.notify();
  }

  /** Leases and runs one due watch; false when none was due (for tests). */
  tick(): Promise<boolean> {
    return this.loops.tick();
  }

  private async leaseOne({ at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const owner = `${this.id}-${++this.units}`;
    const watch = await this.deps.store.watches.lease(owner, at, until);
    if (!watch) return false;
    await hold({
      renew: (u) => this.deps.store.watches.renew(watch.id, owner, u),
      run: () =>
        runWatch(watch, owner, {
          ...this.deps,
          chunkSize: this.opts.chunkSize,
          concurrency: this.opts.concurrency,
          stopping: () => this.stopping,
        }),
    });
    return true;
  }
}
