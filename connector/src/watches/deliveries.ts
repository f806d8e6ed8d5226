/**
 * What a closed run sends, built to be enqueued in the transaction that closes it (store closeRun): one
 * signed watch.run.changed webhook event, one e-mail digest, and in a bound sheet the changed rows' status
 * cells and the lines of the change log. A run with no change sends nothing, unless the watch asks
 * (notify_unchanged); the sheet then has nothing to write.
 */
import crypto from 'node:crypto';
import type { TSheetTarget } from '../../../shared/sheets.js';
import { WATCH_CHANGES_SHEET, type TWatchRunEvent } from '../../../shared/watches.js';
import type { ChangeLine, ChangeLogTarget } from '../sheets/change-log.js';
import { newWriteback, verificationCells } from '../sheets/writeback.js';
import type { NewOutbox, NewWatchMail, NewWriteback, WatchChangeRecord, WatchRecord, WatchRunRecord } from '../store/types.js';
import { outboxEvent } from '../webhooks/events.js';
import type { ItemState } from './compare.js';
import { digestMail } from './digest.js';
import { changeView, runView } from './views.js';

export interface RunDeliveries {
  outbox: NewOutbox | null;
  mail: NewWatchMail | null;
  writebacks: NewWriteback[];
}

function sheetWritebacks(watch: WatchRecord, run: WatchRunRecord, changes: WatchChangeRecord[], at: string): NewWriteback[] {
  if (!watch.sheet_target || changes.length === 0) return [];
  const target = JSON.parse(watch.sheet_target) as TSheetTarget;
  const subject = { type: 'watch_run' as const, id: run.id, key_id: watch.key_id };
  const status = changes.map((c) => {
    const after = JSON.parse(c.after) as ItemState;
    const result = after.status === 'error' ? undefined : { ...after, status: after.status, confidence_score: after.confidence_score ?? 0 };
    return {
      policy_number: c.policy_number,
      cells: verificationCells(target, result, after.error ? { error: after.error } : undefined, after.checked_at),
      append_if_missing: false,
    };
  });
  const log: ChangeLogTarget = {
    spreadsheet_id: target.spreadsheet_id,
    sheet_name: WATCH_CHANGES_SHEET,
    source: { sheet_name: target.sheet_name, key_column: target.key_column, header_rows: target.header_rows },
  };
  const lines: ChangeLine[] = changes.map((c) => ({
    id: `${run.id}:${c.idx}`,
    at,
    policy_number: c.policy_number,
    change: `${(JSON.parse(c.before) as ItemState).status} -> ${(JSON.parse(c.after) as ItemState).status}`,
    why: c.why,
  }));
  return [
    newWriteback('verification', subject, target, status, at),
    { ...newWriteback('changes', subject, log, [], at), rows: JSON.stringify(lines) },
  ];
}

/** `run` as it closes (status, stop reason, finished_at set); `changes` every change it found, by policy order. */
export function runDeliveries(watch: WatchRecord, run: WatchRunRecord, changes: WatchChangeRecord[], at: string): RunDeliveries {
  if (changes.length === 0 && !watch.notify_unchanged) return { outbox: null, mail: null, writebacks: [] };
  const event: TWatchRunEvent = { watch_id: watch.id, run: runView(run), changes: changes.map(changeView) };
  return {
    outbox: watch.webhook_url ? outboxEvent('watch.run.changed', watch.key_id, watch.webhook_url, run.id, event, at) : null,
    mail: watch.email_to
      ? digestMail({ ...watch, email_to: watch.email_to }, event.run, event.changes, `wml_${crypto.randomUUID().replace(/-/g, '')}`, at)
      : null,
    writebacks: sheetWritebacks(watch, run, changes, at),
  };
}
