/**
 * Drains pending write-backs: leases all due ones of one spreadsheet at a time (so they share one
 * key-column read and one batchUpdate), writes them, and records written / retry / failed with the
 * reason. Transient failures (quota, outage) are retried with backoff; permission or not-found
 * errors fail at once, with advice (share the sheet with the service account). The lease is renewed
 * while the write runs (rate-limited calls and retries can outlast it), so another instance never
 * writes the same rows at the same time; only the lease's holder records the outcome.
 *
 * Before anything is read or written, each key's binding to the spreadsheet is checked (again
 * through the API when stale): write-backs of a key no longer bound fail with NO_LONGER_BOUND and
 * nothing read from the spreadsheet, so `missing` can't probe a key column the key may not use.
 */
import crypto from 'node:crypto';
import { whileRenewing } from '../lease-renewal.js';
import type { Logger } from '../logger.js';
import { PollingLoops } from '../polling-loops.js';
import type { Store, WritebackRecord } from '../store/types.js';
import type { SheetsApi } from './api.js';
import { NO_LONGER_BOUND, type SheetBindings } from './bindings.js';
import { SheetsError } from './errors.js';
import { applyWritebacks } from './writeback.js';

export const MAX_WRITEBACK_ATTEMPTS = 6;

export class WritebackProcessor {
  readonly owner = `writeback-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  private readonly loops: PollingLoops;

  constructor(
    private readonly deps: { store: Pick<Store, 'writebacks'>; api: SheetsApi; bindings: Pick<SheetBindings, 'isBound'>; logger: Logger; now: () => Date },
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
    const records = await this.deps.store.writebacks.leaseSpreadsheet(this.owner, now.toISOString(), new Date(now.getTime() + this.opts.leaseMs).toISOString());
    if (records.length === 0) return false;
    const lease = { ms: this.opts.leaseMs, now: this.deps.now, renew: (until: string) => this.deps.store.writebacks.renew(this.owner, until), logger: this.deps.logger };
    await whileRenewing(lease, () => this.write(records[0]!.spreadsheet_id, records));
    return true;
  }

  private async write(spreadsheetId: string, records: WritebackRecord[]): Promise<void> {
    // Records not finished yet: what a failure below has to settle.
    let open: WritebackRecord[] = records;
    try {
      open = await this.dropUnbound(spreadsheetId, records);
      if (open.length === 0) return;
      // Several keys' write-backs into one spreadsheet share its reads and writes: they count to the first one's key.
      const outcomes = await applyWritebacks(this.deps.api.forKey(open[0]!.key_id), spreadsheetId, open);
      const at = this.deps.now().toISOString();
      for (const r of open) {
        const o = outcomes.get(r.id)!;
        await this.finish(r, { status: 'written', written: o.written, missing: o.missing, error: null, next_attempt_at: null }, at);
      }
    } catch (err) {
      const e = err instanceof SheetsError ? err : new SheetsError((err as Error).message, null, true);
      const at = this.deps.now();
      for (const r of open) {
        const giveUp = !e.transient || r.attempts >= MAX_WRITEBACK_ATTEMPTS;
        const next = new Date(at.getTime() + this.opts.retryBaseMs * 2 ** (r.attempts - 1)).toISOString();
        await this.finish(r, { status: giveUp ? 'failed' : 'pending', written: 0, missing: [], error: e.message, next_attempt_at: giveUp ? null : next }, at.toISOString());
      }
      this.deps.logger.warn({ spreadsheet_id: spreadsheetId, error: e.message, transient: e.transient }, 'sheet write-back failed');
    }
  }

  private async finish(r: WritebackRecord, outcome: Parameters<Store['writebacks']['finish']>[2], at: string): Promise<void> {
    if (!(await this.deps.store.writebacks.finish(r.id, this.owner, outcome, at))) {
      this.deps.logger.warn({ writeback_id: r.id, spreadsheet_id: r.spreadsheet_id }, 'sheet write-back finished elsewhere (lease lost); outcome discarded');
    }
  }

  /** Fails the write-backs of keys not bound to the spreadsheet; returns the others. */
  private async dropUnbound(spreadsheetId: string, records: WritebackRecord[]): Promise<WritebackRecord[]> {
    const bound = new Map<string, boolean>();
    for (const keyId of new Set(records.map((r) => r.key_id))) bound.set(keyId, await this.deps.bindings.isBound(keyId, spreadsheetId));
    const at = this.deps.now().toISOString();
    for (const r of records.filter((x) => !bound.get(x.key_id))) {
      await this.finish(r, { status: 'failed', written: 0, missing: [], error: NO_LONGER_BOUND, next_attempt_at: null }, at);
      this.deps.logger.warn({ writeback_id: r.id, key_id: r.key_id, spreadsheet_id: spreadsheetId }, 'sheet write-back refused: spreadsheet not bound to the key');
    }
    return records.filter((x) => bound.get(x.key_id));
  }
}
