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
 */
import type Bottleneck from 'bottleneck';
import { createLimiters, type Limiters } from '../redis/limiters.js';

export interface SheetsLimits {
  perProject: number;
  perSpreadsheet: number;
  windowMs: number;
}

/**
 * Sheets calls have no deadline of their own; when clustered, a call still running after this long
 * is failed (and retried by the caller) so an instance that died mid-call can't hold a slot forever.
 */
const SHEETS_CALL_DEADLINE_MS = 120_000;

export class SheetsLimiter {
  private readonly project: Bottleneck;
  private readonly sheets: Bottleneck.Group;
  private readonly jobOptions: Bottleneck.JobOptions;

  constructor(limits: SheetsLimits, limiters: Limiters = createLimiters(null)) {
    this.project = limiters.limiter('sheets-project', { maxConcurrent: 4, minTime: Math.ceil(limits.windowMs / limits.perProject) });
    this.sheets = limiters.group('sheets-spreadsheet', { maxConcurrent: 1, minTime: Math.ceil(limits.windowMs / limits.perSpreadsheet) });
    this.sheets.on('created', (limiter) => limiter.chain(this.project));
    this.jobOptions = limiters.job(SHEETS_CALL_DEADLINE_MS);
  }

  schedule<T>(spreadsheetId: string, fn: () => Promise<T>): Promise<T> {
    return this.sheets.key(spreadsheetId).schedule(this.jobOptions, fn);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sheets.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true })));
    await this.project.stop({ dropWaitingJobs: true });
  }
}
