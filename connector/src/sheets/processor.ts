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
 *
 * Keys take turns: among the keys with write-backs due, the one served longest ago goes next, with
 * its first-due spreadsheet. Several loops write at once (`workers`), each as its own lease owner,
 * but a key holds at most one of them: its Sheets calls go to the quota one at a time anyway
 * (fair-share.ts), so a second loop would only wait in its queue while another key could use it.
 * One key's backlog across fifty spreadsheets then delays another key's write-back by about one of
 * its calls at the quota, not by the fifty spreadsheets. Turns are kept per process, like the
 * document lane's (jobs/lanes.ts).
 */
import crypto from 'node:crypto';
import type { Logger } from '../logger.js';
import { KeyTurns, LeasedLoop, type Hold, type LeaseWindow, type Worker } from '../workers/index.js';
import type { Store, WritebackRecord } from '../store/types.js';
import type { SheetsApi } from './api.js';
import { NO_LONGER_BOUND, type SheetBindings } from './bindings.js';
import { SheetsError } from './errors.js';
import { applyWritebacks } from './writeback.js';

export const MAX_WRITEBACK_ATTEMPTS = 6;

export class WritebackProcessor implements Worker {
  readonly name = 'sheet write-back';
  private readonly id = `writeback-${process.pid}-${crypto.randomUUID().slice(0, 8)}`;
  /** Lease owners not in use: each tick writes as its own, so one loop's renewals and outcomes never touch another's. */
  private readonly owners: string[] = [];
  private ownersMade = 0;
  private readonly turns = new KeyTurns();
  /** Keys a loop is writing for now. */
  private readonly busy = new Set<string>();
  private readonly loops: LeasedLoop;

  constructor(
    private readonly deps: {
      store: Pick<Store, 'writebacks'>;
      api: SheetsApi;
      bindings: Pick<SheetBindings, 'isBound'>;
      logger: Logger;
      now: () => Date;
    },
    /** workers: loops writing at once (default 1). */
    private readonly opts: { pollMs: number; retryBaseMs: number; leaseMs: number; workers?: number },
  ) {
    this.loops = new LeasedLoop(this.name, (w, hold) => this.leaseOne(w, hold), {
      leaseMs: opts.leaseMs,
      pollMs: opts.pollMs,
      loops: opts.workers ?? 1,
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

  /** Writes one spreadsheet's due write-backs, of the next key in turn; false when there was nothing to lease. */
  tick(): Promise<boolean> {
    return this.loops.tick();
  }

  private async leaseOne({ at, until }: LeaseWindow, hold: Hold): Promise<boolean> {
    const owner = this.owners.pop() ?? `${this.id}-${++this.ownersMade}`;
    try {
      for (const keyId of this.turns.order(await this.deps.store.writebacks.dueKeys(at))) {
        // Checked and taken with no await between, so two loops never take the same key.
        if (this.busy.has(keyId)) continue;
        this.busy.add(keyId);
        try {
          // Another loop or instance may have taken that key's last one meanwhile: then the next key.
          const records = await this.deps.store.writebacks.leaseSpreadsheet(owner, at, until, keyId);
          if (records.length === 0) continue;
          this.turns.took(keyId);
          await hold({
            renew: (u) => this.deps.store.writebacks.renew(owner, u),
            run: () => this.write(owner, keyId, records[0]!.spreadsheet_id, records),
          });
          return true;
        } finally {
          this.busy.delete(keyId);
        }
      }
      return false;
    } finally {
      this.owners.push(owner);
    }
  }

  private async write(owner: string, keyId: string, spreadsheetId: string, records: WritebackRecord[]): Promise<void> {
    // Records not finished yet: what a failure below has to settle.
    let open: WritebackRecord[] = records;
    try {
      open = await this.dropUnbound(owner, spreadsheetId, records);
      if (open.length === 0) return;
      // Several keys' write-backs into one spreadsheet share its reads and writes: they count to the key whose turn it is (else the first one's).
      const payer = open.some((r) => r.key_id === keyId) ? keyId : open[0]!.key_id;
      const outcomes = await applyWritebacks(this.deps.api.forKey(payer), spreadsheetId, open);
      const at = this.deps.now().toISOString();
      for (const r of open) {
        const o = outcomes.get(r.id)!;
        await this.finish(owner, r, { status: 'written', written: o.written, missing: o.missing, error: null, next_attempt_at: null }, at);
      }
    } catch (err) {
      const e = err instanceof SheetsError ? err : new SheetsError((err as Error).message, null, true);
      const at = this.deps.now();
      for (const r of open) {
        const giveUp = !e.transient || r.attempts >= MAX_WRITEBACK_ATTEMPTS;
        const next = new Date(at.getTime() + this.opts.retryBaseMs * 2 ** (r.attempts - 1)).toISOString();
        await this.finish(
          owner,
          r,
          { status: giveUp ? 'failed' : 'pending', written: 0, missing: [], error: e.message, next_attempt_at: giveUp ? null : next },
          at.toISOString(),
        );
      }
      this.deps.logger.warn({ spreadsheet_id: spreadsheetId, error: e.message, transient: e.transient }, 'sheet write-back failed');
    }
  }

  private async finish(
    owner: string,
    r: WritebackRecord,
    outcome: Parameters<Store['writebacks']['finish']>[2],
    at: string,
  ): Promise<void> {
    if (!(await this.deps.store.writebacks.finish(r.id, owner, outcome, at))) {
      this.deps.logger.warn(
        { writeback_id: r.id, spreadsheet_id: r.spreadsheet_id },
        'sheet write-back finished elsewhere (lease lost); outcome discarded',
      );
    }
  }

  /** Fails the write-backs of keys not bound to the spreadsheet; returns the others. */
  private async dropUnbound(owner: string, spreadsheetId: string, records: WritebackRecord[]): Promise<WritebackRecord[]> {
    const bound = new Map<string, boolean>();
    for (const keyId of new Set(records.map((r) => r.key_id))) bound.set(keyId, await this.deps.bindings.isBound(keyId, spreadsheetId));
    const at = this.deps.now().toISOString();
    for (const r of records.filter((x) => !bound.get(x.key_id))) {
      await this.finish(owner, r, { status: 'failed', written: 0, missing: [], error: NO_LONGER_BOUND, next_attempt_at: null }, at);
      this.deps.logger.warn(
        { writeback_id: r.id, key_id: r.key_id, spreadsheet_id: spreadsheetId },
        'sheet write-back refused: spreadsheet not bound to the key',
      );
    }
    return records.filter((x) => bound.get(x.key_id));
  }
}
