/**
 * Every Sheets API call goes through two bottleneck limiters: one per spreadsheet, chained to one
 * for the whole project. Both space calls evenly (minTime = window / calls), so no window of that
 * length ever holds more than the configured number, bursts included.
 *
 * Defaults sit below Google's published quotas: 300 read and 300 write requests per minute per
 * project, and 60 per minute per user per project. All our calls come from one service account
 * (one user), so 60/min binds: 50/min in all, 20/min per spreadsheet.
 */
import Bottleneck from 'bottleneck';

export interface SheetsLimits {
  perProject: number;
  perSpreadsheet: number;
  windowMs: number;
}

export class SheetsLimiter {
  private readonly project: Bottleneck;
  private readonly sheets: Bottleneck.Group;

  constructor(limits: SheetsLimits) {
    this.project = new Bottleneck({ maxConcurrent: 4, minTime: Math.ceil(limits.windowMs / limits.perProject), id: 'sheets-project' });
    this.sheets = new Bottleneck.Group({ maxConcurrent: 1, minTime: Math.ceil(limits.windowMs / limits.perSpreadsheet) });
    this.sheets.on('created', (limiter) => limiter.chain(this.project));
  }

  schedule<T>(spreadsheetId: string, fn: () => Promise<T>): Promise<T> {
    return this.sheets.key(spreadsheetId).schedule(fn);
  }

  async stop(): Promise<void> {
    await Promise.all(this.sheets.limiters().map(({ limiter }) => limiter.stop({ dropWaitingJobs: true })));
    await this.project.stop({ dropWaitingJobs: true });
  }
}
