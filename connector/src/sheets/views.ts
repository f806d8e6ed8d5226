/** Store records -> the contract's Sheets bodies: a binding, a schedule, a write-back's state. */
import {
  BINDING_METADATA_KEY,
  type TSchedule,
  type TSheetBinding,
  type TSheetBindingIssued,
  type TSheetWriteback,
} from '../../../shared/sheets.js';
import type { ScheduleRecord, ScheduleRunRecord, SheetBindingRecord, WritebackRecord } from '../store/types.js';

export function bindingView(b: SheetBindingRecord): TSheetBinding {
  return {
    binding_id: b.id,
    spreadsheet_id: b.spreadsheet_id,
    status: b.status,
    metadata_key: BINDING_METADATA_KEY,
    created_at: b.created_at,
    verified_at: b.verified_at,
  };
}

/** A binding just issued: its view with the token, shown this once (the store keeps only its hash). */
export function issuedBindingView(b: SheetBindingRecord, token: string): TSheetBindingIssued {
  const { created_at, verified_at, ...head } = bindingView(b);
  return { ...head, metadata_value: token, created_at, verified_at };
}

/** `runs`: the latest first, as the store lists them. */
export function scheduleView(s: ScheduleRecord, runs: ScheduleRunRecord[]): TSchedule {
  return {
    schedule_id: s.id,
    dataset: s.dataset,
    spreadsheet_id: s.spreadsheet_id,
    sheet_name: s.sheet_name,
    cadence: s.cadence,
    limit: s.point_limit,
    mode: s.output_mode,
    next_run_at: s.next_run_at,
    created_at: s.created_at,
    paused: s.paused_at !== null,
    paused_reason: s.paused_reason,
    failures_in_row: s.failures_in_row,
    runs,
  };
}

export function writebackView(wb: WritebackRecord): TSheetWriteback {
  const target = JSON.parse(wb.target) as { sheet_name: string };
  return {
    status: wb.status,
    spreadsheet_id: wb.spreadsheet_id,
    sheet_name: target.sheet_name,
    written: wb.written,
    missing: wb.missing,
    error: wb.last_error,
    attempts: wb.attempts,
    updated_at: wb.updated_at,
  };
}
