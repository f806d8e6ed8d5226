/**
 * Scheduled dataset refreshes into sheets. A due schedule is leased (never run twice at once; the
 * lease is renewed while the run lasts), the series written into A:B by the schedule's output mode (series-modes.ts), the run recorded, and the next run set from
 * now: a connector that was down for a week runs a daily schedule once on start, not seven times.
 * A run first checks that the spreadsheet is still bound to the schedule's key; when it is not,
 * the run fails with NO_LONGER_BOUND before anything is read or written. After `pauseAfter` failed
 * runs in a row a schedule pauses itself (kept in the store, so it stays paused across restarts)
 * until its key resumes it (schedules.ts).
 */
import type { Logger } from '../logger.js';
import type { Mailer } from '../mailer.js';
import { LeasedLoop, type Hold, type LeaseWindow, type Worker } from '../workers/index.js';
import type { ScheduleRecord, Store } from '../store/types.js';
import { a1 } from './a1.js';
import type { SheetsApi } from './api.js';
import { NO_LONGER_BOUND, type SheetBindings } from './bindings.js';
import { alertFailedRun } from './schedule-alerts.js';
import { planSeriesWrite } from './series-modes.js';

export const SCHEDULE_PERIOD_MS: Record<ScheduleRecord['cadence'], number> = {
  hourly: 3600_000,
  daily: 86_400_000,
  weekly: 7 * 86_400_000,
};
/** After a failed run, try again this soon (or at the cadence, if sooner). */
export const SCHEDULE_RETRY_MS = 15 * 60_000;

export async function runSchedule(
  sheetsApi: SheetsApi,
  bindings: Pick<SheetBindings, 'isBound'>,
  store: Pick<Store, 'datasets'>,
  s: ScheduleRecord,
): Promise<number> {
  if (!(await bindings.isBound(s.key_id, s.spreadsheet_id))) throw new Error(NO_LONGER_BOUND);
  const api = sheetsApi.forKey(s.key_id);
  const dataset = await store.datasets.get(s.dataset);
  if (!dataset) throw new Error(`dataset ${s.dataset} no longer exists`);
  const titles = await api.sheetTitles(s.spreadsheet_id);
  // The other sheets' names are not listed: a message says no more than the caller asked about.
  if (!titles.includes(s.sheet_name)) throw new Error(`the spreadsheet has no sheet named "${s.sheet_name}"`);
  const points = await store.datasets.series(s.dataset, s.point_limit, 'latest');
  // Append and merge read the dates already there first; overwrite needs no read.
  const columnA = s.output_mode === 'overwrite' ? null : await api.readColumn(s.spreadsheet_id, s.sheet_name, 'A');
  const plan = planSeriesWrite(s.sheet_name, ['date', `${dataset.title} (${dataset.unit})`], points, s.output_mode, columnA);
  if (plan.clear) await api.clear(s.spreadsheet_id, a1(s.sheet_name, 'A:B'));
  await api.writeRanges(s.spreadsheet_id, plan.ranges);
  return plan.added + plan.updated;
}

/** What a paused schedule's view says. */
export function pauseReason(failures: number, lastError: string): string {
  return `Paused after ${failures} failed runs in a row. The last: ${lastError}`;
}

export class ScheduleRunner implements Worker {
  readonly name = 'sheet schedules';
  private readonly loops: LeasedLoop;

  constructor(
    /** mailer: alerts the key's owner of failures (schedule-alerts.ts); none, no alerts. */
    private readonly deps: {
      store: Pick<Store, 'schedules' | 'datasets' | 'keys'>;
      api: SheetsApi;
      bindings: Pick<SheetBindings, 'isBound'>;
      logger: Logger;
      now: () => Date;
      mailer?: Pick<Mailer, 'send'>;
    },
    /** pauseAfter: failed runs in a row after which a schedule pauses itself (config COVERCHECK_SCHEDULE_PAUSE_AFTER). */
    private readonly opts: { pollMs: number; leaseMs: number; concurrency: number; pauseAfter: number },
  ) {
    this.loops = new LeasedLoop(this.name, (w, hold) => this.leaseOne(w, hold), {
      leaseMs: opts.leaseMs,
      pollMs: opts.pollMs,
      loops: opts.concurrency,
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

  /** Runs one due schedule; false when none was due. */
  tick(): Promise<boolean> {
    return this.loops.tick();
  }

  /** A run is known by its start (`at`): the store renews and finishes only the run started then. */
  private async leaseOne({ now: started, at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const s = await this.deps.store.schedules.leaseDue(at, until);
    if (!s) return false;
    await hold({ renew: (u) => this.deps.store.schedules.renewRun(s.id, at, u), run: () => this.run(s, started) });
    return true;
  }

  private async run(s: ScheduleRecord, started: Date): Promise<void> {
    const period = SCHEDULE_PERIOD_MS[s.cadence];
    try {
      const rows = await runSchedule(this.deps.api, this.deps.bindings, this.deps.store, s);
      const done = this.deps.now();
      const recorded = await this.deps.store.schedules.finishRun(
        s.id,
        started.toISOString(),
        { finished_at: done.toISOString(), status: 'ok', rows, error: null },
        new Date(done.getTime() + period).toISOString(),
      );
      if (recorded === null) this.takenOver(s);
    } catch (err) {
      const done = this.deps.now();
      const message = (err as Error).message;
      const failures = await this.deps.store.schedules.finishRun(
        s.id,
        started.toISOString(),
        { finished_at: done.toISOString(), status: 'failed', rows: null, error: message },
        new Date(done.getTime() + Math.min(period, SCHEDULE_RETRY_MS)).toISOString(),
      );
      if (failures === null) return this.takenOver(s);
      this.deps.logger.warn({ schedule_id: s.id, error: message, failures_in_row: failures }, 'scheduled sheet refresh failed');
      // Paused after the run is recorded: a crash in between leaves the count, and the next failure pauses it.
      const paused = failures >= this.opts.pauseAfter;
      if (paused) await this.deps.store.schedules.pause(s.id, pauseReason(failures, message), done.toISOString());
      if (this.deps.mailer)
        await alertFailedRun(s, failures, paused, message, { store: this.deps.store, mailer: this.deps.mailer, logger: this.deps.logger });
    }
  }

  private takenOver(s: ScheduleRecord): void {
    this.deps.logger.warn({ schedule_id: s.id }, 'scheduled sheet refresh taken over by a later run (lease lost); outcome discarded');
  }
}
