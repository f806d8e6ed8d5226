/**
 * Puts job and batch results into their sheets. For one spreadsheet at a time: read each target's
 * key column once, find the row that still holds each policy number (sorting or editing the
 * sheet meanwhile moves the result with its row), then write every result of every pending
 * write-back in as few values.batchUpdate calls as possible. Numbers no longer in the sheet are
 * reported as missing; extraction results may append a row instead.
 */
import crypto from 'node:crypto';
import type { TSheetTarget } from '../../../shared/sheets.js';
import type { TExtractedFields } from '../../../shared/job.js';
import { reviewItems } from '../../../shared/review.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import type { TErrorBody } from '../../../shared/errors.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { BatchItemRecord, BatchRecord, JobRecord, NewWriteback, WritebackRecord, WritebackRow } from '../store/types.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { a1, columnIndex, columnLetters } from './a1.js';
import type { CellValue, SheetsApi } from './api.js';
import { applyChangeLogs } from './change-log.js';

/** Ranges per values.batchUpdate call: well under the API's request size limit for result rows. */
export const RANGES_PER_CALL = 1000;

/** What the status cells show of a result: a full one, or the state a watch keeps of its last check. */
export type ResultCells = Pick<TVerificationResult, 'status' | 'confidence_score' | 'flags'> & { insurer: { name: string } | null };

export function verificationCells(
  target: TSheetTarget,
  result: ResultCells | undefined,
  error: { error: string } | undefined,
  checkedAt: string,
): Record<string, string | number> {
  const values: Record<string, string | number> = {
    status: result ? result.status : `error: ${error?.error ?? 'unknown'}`,
    confidence_score: result ? result.confidence_score : '',
    insurer: result?.insurer?.name ?? '',
    flags: result ? result.flags.join(', ') : '',
    checked_at: checkedAt,
  };
  return mapCells(target, values);
}

/**
 * An extraction's cells: each field and coverage detail read (a detail under its own name, with its
 * normalised value; the plan as printed), only those with a value, and `needs_review`, the labels of the
 * values below REVIEW_CONFIDENCE. The add-on asks a person before writing those; the connector has no one
 * to ask, and leaving them out would leave no trace of what was read, so it writes them and names them
 * (empty when none, which also clears the mark of an earlier extraction into the same row).
 */
export function extractionCells(target: TSheetTarget, fields: TExtractedFields): Record<string, string | number> {
  const items = reviewItems(fields);
  const values: Record<string, string> = Object.fromEntries(items.map((i) => [i.key.replace(/^coverage\./, ''), i.value]));
  values.needs_review = items
    .filter((i) => i.needsReview)
    .map((i) => i.label)
    .join(', ');
  return mapCells(target, values);
}

function mapCells(target: TSheetTarget, values: Record<string, string | number | undefined>): Record<string, string | number> {
  const cells: Record<string, string | number> = {};
  for (const [field, column] of Object.entries(target.columns)) {
    const v = values[field];
    if (v !== undefined) cells[column] = v;
  }
  return cells;
}

export function newWriteback(
  kind: NewWriteback['kind'],
  subject: { type: NewWriteback['subject_type']; id: string; key_id: string },
  target: Pick<TSheetTarget, 'spreadsheet_id'>,
  rows: WritebackRow[],
  at: string,
): NewWriteback {
  return {
    id: `wb_${crypto.randomUUID().replace(/-/g, '')}`,
    key_id: subject.key_id,
    subject_type: subject.type,
    subject_id: subject.id,
    kind,
    spreadsheet_id: target.spreadsheet_id,
    target: JSON.stringify(target),
    rows: JSON.stringify(rows),
    created_at: at,
  };
}

/** The write-back a finished job queues, or null when it has no sheet target (or nothing to key a row on). */
export function jobWriteback(job: JobRecord, outcome: { result?: unknown; error?: TErrorBody }, at: string): NewWriteback | null {
  if (!job.sheet_target) return null;
  const target = JSON.parse(job.sheet_target) as TSheetTarget;
  let rows: WritebackRow[] = [];
  if (job.kind === 'verification') {
    const { policy } = JSON.parse(job.payload) as { policy: TPolicy };
    rows = [
      {
        policy_number: policy.policy_number,
        cells: verificationCells(target, outcome.result as TVerificationResult | undefined, outcome.error, at),
        append_if_missing: false,
      },
    ];
  } else if (outcome.result) {
    const fields = outcome.result as TExtractedFields;
    if (fields.policy_number)
      rows = [{ policy_number: fields.policy_number, cells: extractionCells(target, fields), append_if_missing: true }];
  }
  return rows.length ? newWriteback(job.kind, { type: 'job', id: job.id, key_id: job.key_id }, target, rows, at) : null;
}

/** The write-back a completed batch queues: one row per item that had a policy number. */
export function batchWriteback(batch: BatchRecord, items: BatchItemRecord[], at: string): NewWriteback | null {
  if (!batch.sheet_target) return null;
  const target = JSON.parse(batch.sheet_target) as TSheetTarget;
  const rows: WritebackRow[] = items
    .filter((i) => i.policy_number)
    .map((i) => ({
      policy_number: i.policy_number!,
      cells: verificationCells(
        target,
        i.result ? (JSON.parse(i.result) as TVerificationResult) : undefined,
        i.error ? (JSON.parse(i.error) as TErrorBody) : undefined,
        at,
      ),
      append_if_missing: false,
    }));
  return rows.length ? newWriteback('verification', { type: 'batch', id: batch.id, key_id: batch.key_id }, target, rows, at) : null;
}

export interface WritebackOutcome {
  written: number;
  missing: string[];
}

/** Writes every record (all of one spreadsheet) and returns what happened to each; throws SheetsError if the spreadsheet can't be written. */
export async function applyWritebacks(
  api: SheetsApi,
  spreadsheetId: string,
  all: WritebackRecord[],
): Promise<Map<string, WritebackOutcome>> {
  // A watch run's change log is appended to its own sheet (change-log.ts); every other write-back places rows by policy number.
  const records = all.filter((r) => r.kind !== 'changes');
  const outcomes = await applyChangeLogs(
    api,
    spreadsheetId,
    all.filter((r) => r.kind === 'changes'),
  );
  for (const r of records) outcomes.set(r.id, { written: 0, missing: [] });
  const data: { range: string; values: CellValue[][] }[] = [];
  const groups = new Map<string, { target: TSheetTarget; records: WritebackRecord[] }>();
  for (const r of records) {
    const target = JSON.parse(r.target) as TSheetTarget;
    const k = `${target.sheet_name}\u0000${target.key_column}\u0000${target.header_rows}`;
    const g = groups.get(k) ?? { target, records: [] };
    g.records.push(r);
    groups.set(k, g);
  }
  for (const { target, records: group } of groups.values()) {
    const column = await api.readColumn(spreadsheetId, target.sheet_name, target.key_column);
    const rowsByNumber = new Map<string, number[]>();
    column.forEach((value, i) => {
      const row = i + 1;
      if (row <= target.header_rows || !value.trim()) return;
      const key = normalisePolicyNumber(value);
      rowsByNumber.set(key, [...(rowsByNumber.get(key) ?? []), row]);
    });
    let nextFree = Math.max(column.length, target.header_rows) + 1;
    for (const record of group) {
      const outcome = outcomes.get(record.id)!;
      for (const item of JSON.parse(record.rows) as WritebackRow[]) {
        const key = normalisePolicyNumber(item.policy_number);
        let rows = rowsByNumber.get(key);
        const cells = { ...item.cells };
        if (!rows && item.append_if_missing && key) {
          rows = [nextFree++];
          rowsByNumber.set(key, rows);
          cells[target.key_column] = item.policy_number;
        }
        if (!rows) {
          outcome.missing.push(item.policy_number);
          continue;
        }
        for (const row of rows) data.push(rowRange(target.sheet_name, row, cells));
        outcome.written++;
      }
    }
  }
  for (let i = 0; i < data.length; i += RANGES_PER_CALL) await api.writeRanges(spreadsheetId, data.slice(i, i + RANGES_PER_CALL));
  return outcomes;
}

/** One range per row from its first to its last written column; cells in between stay as they are (null). */
function rowRange(sheet: string, row: number, cells: Record<string, string | number>): { range: string; values: CellValue[][] } {
  const indexes = Object.keys(cells).map(columnIndex);
  const first = Math.min(...indexes);
  const last = Math.max(...indexes);
  const values: CellValue[] = Array.from({ length: last - first + 1 }, () => null);
  for (const [col, v] of Object.entries(cells)) values[columnIndex(col) - first] = v;
  return { range: a1(sheet, `${columnLetters(first)}${row}:${columnLetters(last)}${row}`), values: [values] };
}
