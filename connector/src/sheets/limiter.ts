/**
 * Every Sheets API call goes through two bottleneck limiters: one per spreadsheet, chained to one
 * for the whole project. Both space calls evenly (minTime = window / calls), so no window of that
 * length ever holds more than the configured number, bursts included.
 *
 * Defaults sit below Google's published quotas: 300 read and 300 write requests per minute per
 * project, and 60 per minute per user per project. All our calls come from one service account
 * (one user), so 60/min binds: 50/min in all, 20/min per spreadsheet.
 *
 * With Redis both limiters are clustered (redis/limiters.ts): the spacing holds for the whole
 * deployment, which is what Google counts, not for each instance.
 *
 * In front of them each API key waits its turn (fair-share.ts): the limiters are first come, first
 * served, so without turns one key's backlog (binding checks, say) would stall every other key's
 * write-backs for as long as it takes the quota to work through it. Waiting is bounded per key and
 * in all; past the bounds a call is refused at once (SheetsBusyError) instead of waiting minutes.
 */
import type Bottleneck from 'bottleneck';
import { createLimiters, type Limiters } from '../redis/limiters.js';
import { FairShare } from './fair-share.js';

export interface SheetsLimits {
  perProject: number;
  perSpreadsheet: number;
  windowMs: number;
  /** Calls of one key waiting for their turn; past it the key's next call is refused. */
  waitingPerKey?: number;
  /** Calls of all keys waiting; past it a key that already has a call waiting is refused. */
  waitingTotal?: number;
}

/** Who a call is made for, and on which spreadsheet. `keyId` null: no key's (tools and tests). */
export interface SheetsCall {
  keyId: string | null;
  spreadsheetId: string;
}

export const DEFAULT_WAITING_PER_KEY = 10;
export const DEFAULT_WAITING_TOTAL = 100;
/**
 * Calls handed to the limiters at once, and of one key. Few, so a call that has its turn waits
 * behind at most these (the limiters' queues are first come, first served): as many as the project
 * limiter runs at once (4). One per key: a key's call waiting for its spreadsheet's spacing holds one
 * place, not the others', and one key's calls can fill a shared spreadsheet's queue with one call only.
 */
const IN_FLIGHT = 4;
const IN_FLIGHT_PER_KEY = 1;

/**
 * Sheets calls have no deadline of their own; when clustered, a call still running after this long
 * is failed (and retried by the caller) so an instance that died mid-call can't hold a slot forever.
 */
const SHEETS_CALL_DEADLINE_MS = 120_000;

export class SheetsLimiter {
  private readonly project: Bottleneck;
  private readonly sheets: Bottleneck.Group;
  private readonly jobOptions: Bottleneck.JobOptions;
  private readonly turns: FairShare;

  constructor(limits: SheetsLimits, limiters: Limiters = createLimiters(null)) {
    const spacingMs = Math.ceil(limits.windowMs / limits.perProject);
    this.project = limiters.limiter('sheets-project', { maxConcurrent: 4, minTime: spacingMs });
    this.sheets = limiters.group('sheets-spreadsheet', { maxConcurrent: 1, minTime: Math.ceil(limits.windowMs / limits.perSpreadsheet) });
    this.sheets.on('created', (limiter) => limiter.chain(this.project));
    this.jobOptions = limiters.job(SHEETS_CALL_DEADLINE_MS);
    this.turns = new FairShare(
      {
        waitingPerKey: limits.waitingPerKey ?? DEFAULT_WAITING_PER_KEY,
        waitingTotal: limits.waitingTotal ?? DEFAULT_WAITING_TOTAL,
        inFlight: IN_FLIGHT,
        inFlightPerKey: IN_FLIGHT_PER_KEY,
      },
      spacingMs,
    );
  }

  /** Runs `fn` in `call.keyId`'s turn, within the quotas; SheetsBusyError at once when too many wait. */
  schedule<T>(call: SheetsCall, fn: () => Promise<T>): Promise<T> {
    return this.turns.run(call.keyId ?? '', () => this.sheets.key(call.spreadsheetId).schedule(this.jobOptions, fn));
  }

  /** Calls waiting for their turn, of one key or of all. */
  waiting(keyId?: string): number {
    return this.turns.waitingCount(keyId);
  }

  async stop(): Promise<void> {
    this.turns.stop();
    await Promise.all(this.sheets.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true })));
    await this.project.stop({ dropWaitingJobs: true });
  }
}
