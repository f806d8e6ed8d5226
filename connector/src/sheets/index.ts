/**
 * The Sheets integration, built from config when a service account is configured. googleapis is
 * loaded only then (dynamic import): it adds about 100 MB to a process that never uses it.
 */
import type { Mailer } from '../mailer.js';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import type { Limiters } from '../redis/limiters.js';
import type { Store } from '../store/types.js';
import type { SheetsApi } from './api.js';
import { SheetBindings } from './bindings.js';
import { SheetsLimiter } from './limiter.js';
import { WritebackProcessor } from './processor.js';
import { ScheduleRunner } from './scheduler.js';

export type { SheetsApi } from './api.js';
export { SheetsError } from './errors.js';
export { SheetsLimiter } from './limiter.js';
export { SheetBindings, NO_LONGER_BOUND } from './bindings.js';
export { applyWritebacks, newWriteback, verificationCells, extractionCells } from './writeback.js';
export { WritebackProcessor } from './processor.js';
export { ScheduleRunner, runSchedule, SCHEDULE_PERIOD_MS } from './scheduler.js';

export interface SheetsIntegration {
  serviceEmail: string;
  api: SheetsApi;
  limiter: SheetsLimiter;
  /** Which key may write into which spreadsheet; every write path asks it first. */
  bindings: SheetBindings;
  writebacks: WritebackProcessor;
  schedules: ScheduleRunner;
}

/** `limiters`: where the Sheets quotas are kept (in process when absent; Redis shares them across instances). */
/** `mailer`: alerts keys' owners of failing schedules (none: no alerts). */
export async function createSheets(
  config: Config,
  store: Store,
  logger: Logger,
  now: () => Date,
  limiters?: Limiters,
  mailer?: Mailer,
): Promise<SheetsIntegration | null> {
  if (!config.sheets.credentialsFile) return null;
  const [{ SheetsApi }, { readServiceAccount, serviceAccountAuth }] = await Promise.all([import('./api.js'), import('./auth.js')]);
  const account = readServiceAccount(config.sheets.credentialsFile);
  const limiter = new SheetsLimiter(config.sheets.limits, limiters);
  const api = new SheetsApi(
    {
      auth: serviceAccountAuth(account, config.sheets.timeoutMs),
      limiter,
      rootUrl: config.sheets.rootUrl,
      backoffMs: config.sheets.retryBaseMs,
      timeoutMs: config.sheets.timeoutMs,
    },
    account.client_email,
  );
  const bindings = new SheetBindings(
    { store, api, now },
    { recheckMs: config.sheets.bindingRecheckMs, checksPerMinute: config.sheets.bindingChecksPerMinute },
  );
  return {
    serviceEmail: account.client_email,
    api,
    limiter,
    bindings,
    writebacks: new WritebackProcessor(
      { store, api, bindings, logger, now },
      {
        pollMs: config.queue.pollMs,
        retryBaseMs: config.sheets.retryBaseMs,
        leaseMs: config.sheets.writebackLeaseMs,
        workers: config.sheets.writebackWorkers,
      },
    ),
    schedules: new ScheduleRunner(
      { store, api, bindings, logger, now, mailer },
      {
        pollMs: config.queue.pollMs,
        leaseMs: config.sheets.scheduleLeaseMs,
        concurrency: config.sheets.scheduleWorkers,
        pauseAfter: config.sheets.schedulePauseAfter,
      },
    ),
  };
}
