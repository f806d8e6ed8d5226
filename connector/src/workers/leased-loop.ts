/**
 * Polling loops over units leased from the store: each tick asks `leaseOne` for one due unit, runs it
 * with its lease renewed every third of its length (lease-renewal.ts), and a stop lets the unit in
 * hand finish. A lease expires, so a unit held by a process that died is taken again after one length.
 */
import type { Logger } from '../logger.js';
import { whileRenewing } from './lease-renewal.js';
import { PollingLoops } from './polling-loops.js';
import type { Worker } from './worker.js';

/** One tick's lease: taken at `now` (`at`, the same as an ISO string), running to `until`. */
export interface LeaseWindow {
  now: Date;
  at: string;
  until: string;
}

/** A leased unit of work. */
export interface LeasedUnit {
  /** Moves the lease's end to `until`; absent when the lease is long enough for the unit as taken. */
  renew?: (until: string) => Promise<unknown>;
  run: () => Promise<void>;
}

/** Runs a leased unit, renewing its lease while it runs. */
export type Hold = (unit: LeasedUnit) => Promise<void>;

/**
 * Leases one due unit in `window` and passes it to `hold`; false when nothing was due. Bookkeeping
 * that lasts as long as the unit (which key or owner is busy) wraps the `hold` call.
 */
export type LeaseOne = (window: LeaseWindow, hold: Hold) => Promise<boolean>;

export interface LeasedLoopOptions {
  /** Lease length; renewed every third of it while a unit runs. */
  leaseMs: number;
  pollMs: number;
  /** Loops leasing at once; default 1. */
  loops?: number;
  now: () => Date;
  logger: Logger;
}

export class LeasedLoop implements Worker {
  private readonly loops: PollingLoops;

  constructor(
    readonly name: string,
    private readonly leaseOne: LeaseOne,
    private readonly opts: LeasedLoopOptions,
  ) {
    this.loops = new PollingLoops(name, () => this.tick(), opts);
  }

  start(): void {
    this.loops.start();
  }

  /** Stops leasing and resolves once the units in hand have finished. */
  stop(): Promise<void> {
    return this.loops.stop();
  }

  notify(): void {
    this.loops.notify();
  }

  /** Leases and runs one unit; false when none was due (for tests and one-off runs). */
  tick(): Promise<boolean> {
    const now = this.opts.now();
    const window = { now, at: now.toISOString(), until: new Date(now.getTime() + this.opts.leaseMs).toISOString() };
    return this.leaseOne(window, (unit) => this.hold(unit));
  }

  private hold(unit: LeasedUnit): Promise<void> {
    const { renew } = unit;
    if (!renew) return unit.run();
    return whileRenewing({ ms: this.opts.leaseMs, now: this.opts.now, renew, logger: this.opts.logger }, unit.run);
  }
}
