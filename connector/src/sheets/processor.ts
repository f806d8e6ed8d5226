/**
 * Drains pending write-backs: leases all due ones of one spreadsheet at a time (so they share one
 * key-column read and one batchUpdate), writes them, and records written / retry / failed with the
 * reason. Transient failures (quota, outage) are retried with backoff; permission or not-found
 * errors fail at once, with advice (share the sheet with the service account).
 */
import type { Logger } from '../logger.js';
import { PollingLoops } from '../jobs/polling.js';
import type { Store } from '../store/types.js';
import type { SheetsApi } from './api.js';
import { SheetsError } from './errors.js';
import { applyWritebacks } from './writeback.js';

export const MAX_WRITEBACK_ATTEMPTS = 6;

export class WritebackProcessor {
  private readonly loops: PollingLoops;

  constructor(
    private readonly deps: { store: Pick<Store, 'writebacks'>; api: SheetsApi; logger: Logger; now: () => Date },
    private readonly opts: { pollMs: number; retryBaseMs: number; leaseMs: number },
  ) {
    this.loops = new PollingLoops('sheet write-back', () => this.tick(), { pollMs: opts.pollMs, logger: deps.logger });
  }

  start(): void {
    this.loops.start(1);
  }

  stop(): Promise<void> {
    return this.loops.stop();
  }

  notify(): void {
    this.loops.notify();
  }

  async tick(): Promise<boolean> {
    const now = this.deps.now();
    const records = await this.deps.store.writebacks.leaseSpreadsheet(now.toISOString(), new Date(now.getTime() + this.opts.leaseMs).toISOString());
    if (records.length === 0) return false;
    const spreadsheetId = records[0]!.spreadsheet_id;
    try {
      const outcomes = await applyWritebacks(this.deps.api, spreadsheetId, records);
      const at = this.deps.now().toISOString();
      for (const r of records) {
        const o = outcomes.get(r.id)!;
        await this.deps.store.writebacks.finish(r.id, { status: 'written', written: o.written, missing: o.missing, error: null, next_attempt_at: null }, at);
      }
    } catch (err) {
      const e = err instanceof SheetsError ? err : new SheetsError((err as Error).message, null, true);
      const at = this.deps.now();
      for (const r of records) {
        const giveUp = !e.transient || r.attempts >= MAX_WRITEBACK_ATTEMPTS;
        const next = new Date(at.getTime() + this.opts.retryBaseMs * 2 ** (r.attempts - 1)).toISOString();
        await this.deps.store.writebacks.finish(r.id, { status: giveUp ? 'failed' : 'pending', written: 0, missing: [], error: e.message, next_attempt_at: giveUp ? null : next }, at.toISOString());
      }
      this.deps.logger.warn({ spreadsheet_id: spreadsheetId, error: e.message, transient: e.transient }, 'sheet write-back failed');
    }
    return true;
  }
}
