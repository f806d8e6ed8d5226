/**
 * "Verify selected rows" (sidebar server side): detect the column mapping, submit the rows in
 * batches of 100, and on each poll from the sidebar collect finished batches, write their results
 * beside the data and report progress. Run state lives in the user cache between calls.
 */
import type { TBatch } from '../../shared/batch.js';
import { parsePolicyInput, type TPolicy } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import type { TVerificationResult } from '../../shared/verification.js';
import { chunk, POLL_BASE_MS, POLL_MS_PER_ROW, pollRound, submitChunks } from './batches.js';
import { ensureBound } from './bindings.js';
import { ConnectorError } from './connector.js';
import { detectColumns, FIELDS, RESULT_HEADERS, resultColumns, type TMapping } from './mapping.js';
import { userConn } from './settings.js';

const RUN_TTL_SECONDS = 6 * 60 * 60;
/** Seconds of long-poll per sidebar poll: short, so the progress bar keeps moving. */
const SIDEBAR_WAIT_SECONDS = 2;

export interface MappingView {
  sheet: string;
  headers: string[];
  mapping: TMapping;
  firstRow: number;
  lastRow: number;
  missing: string[];
}

export interface Progress {
  runId: string;
  total: number;
  done: number;
  errors: number;
  finished: boolean;
  message: string;
  resultColumns: number[];
  /** With "write results back when done": what the connector wrote so far; null otherwise. */
  writeBack: { written: number; missing: string[]; failed: string | null } | null;
}

export interface RunOptions {
  /**
   * Submit the batches with a sheet_target, so the connector writes the results into this sheet
   * itself (as its service account) when each batch completes, even if the sidebar is closed.
   */
  writeBack?: boolean;
}

interface RunBatch {
  id: string;
  /** Sheet rows as [start, length] runs, in submission order. */
  rows: number[][];
  /** Epoch ms before which polling this batch is probably wasted. */
  due: number;
  done: boolean;
  completed: number;
}

interface RunState {
  id: string;
  sheet: string;
  cols: number[];
  total: number;
  done: number;
  errors: number;
  batches: RunBatch[];
  notes: string[];
  writeBack?: { written: number; missing: string[]; failed: string | null };
}

const LABELS: Record<string, string> = { policy_number: 'policy number', country: 'country', insurance_type: 'insurance type', provider: 'provider' };

function headerRow(sheet: GoogleAppsScript.Spreadsheet.Sheet): string[] {
  const lastCol = Math.max(1, sheet.getLastColumn());
  return sheet.getRange(1, 1, 1, lastCol).getValues()[0]!.map((v) => String(v ?? '').trim());
}

/** The rows to verify: the selection below the header, or every data row when the selection is one cell or the header. */
function targetRows(sheet: GoogleAppsScript.Spreadsheet.Sheet): { first: number; last: number } {
  const last = sheet.getLastRow();
  const sel = SpreadsheetApp.getActiveRange();
  if (sel && sel.getSheet().getName() === sheet.getName() && (sel.getNumRows() > 1 || sel.getNumColumns() > 1) && sel.getLastRow() >= 2) {
    return { first: Math.max(2, sel.getRow()), last: Math.min(last, sel.getLastRow()) };
  }
  return { first: 2, last };
}

export function detectRowMapping(): MappingView {
  const sheet = SpreadsheetApp.getActiveSheet();
  const headers = headerRow(sheet);
  const mapping = detectColumns(headers);
  const { first, last } = targetRows(sheet);
  const missing = (['policy_number', 'country', 'insurance_type'] as const).filter((f) => mapping[f] === null).map((f) => LABELS[f]!);
  return { sheet: sheet.getName(), headers, mapping, firstRow: first, lastRow: last, missing };
}

const runs = (rows: number[]): number[][] => {
  const out: number[][] = [];
  for (const r of rows) {
    const lastRun = out[out.length - 1];
    if (lastRun && lastRun[0]! + lastRun[1]! === r) lastRun[1]! += 1;
    else out.push([r, 1]);
  }
  return out;
};
const expand = (rs: number[][]): number[] => rs.flatMap(([s, n]) => Array.from({ length: n! }, (_, i) => s! + i));

const stamp = () => new Date().toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

function resultCells(r: TVerificationResult | undefined, error: string | undefined, at: string): (string | number)[] {
  if (r) return [r.status, r.confidence_score, r.insurer?.name ?? '', r.flags.join(', '), at];
  return [`Error: ${error ?? 'no result'}`, '', '', '', at];
}

/** Writes one row's cells into the result columns, grouping consecutive rows into one setValues per column block. */
function writeRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, cols: number[], rows: Map<number, (string | number)[]>): void {
  const sorted = [...rows.keys()].sort((a, b) => a - b);
  const contiguous = cols.every((c, i) => c === cols[0]! + i);
  for (const [start, len] of runs(sorted)) {
    const block = expand([[start!, len!]]).map((r) => rows.get(r)!);
    if (contiguous) sheet.getRange(start!, cols[0]!, len!, cols.length).setValues(block);
    else cols.forEach((c, ci) => sheet.getRange(start!, c, len!, 1).setValues(block.map((b) => [b[ci]!])));
  }
}

const cache = () => CacheService.getUserCache()!;
function save(state: RunState): void {
  cache().put(`run:${state.id}`, JSON.stringify(state), RUN_TTL_SECONDS);
}
function load(runId: string): RunState {
  const raw = cache().get(`run:${runId}`);
  if (!raw) throw new Error('This run is no longer known (it ran more than 6 hours ago). Start it again.');
  return JSON.parse(raw) as RunState;
}

/** Column letters (1 -> A, 27 -> AA) for sheet targets. */
export function columnLetter(n: number): string {
  let out = '';
  for (let x = n; x > 0; x = Math.floor((x - 1) / 26)) out = String.fromCharCode(65 + ((x - 1) % 26)) + out;
  return out;
}

function writeBackNote(s: RunState): string[] {
  const wb = s.writeBack;
  if (!wb) return [];
  const waiting = s.batches.filter((b) => !b.done && b.completed >= expand(b.rows).length).length;
  const out: string[] = [];
  if (wb.written) out.push(`The connector wrote ${wb.written} result${wb.written === 1 ? '' : 's'} into the sheet.`);
  if (wb.missing.length) out.push(`Not found in the sheet any more, nothing written for: ${wb.missing.join(', ')}.`);
  if (wb.failed) out.push(`Write-back failed: ${wb.failed} This sidebar wrote those results instead.`);
  if (waiting) out.push(`Waiting for the connector to write ${waiting} batch${waiting === 1 ? '' : 'es'} into the sheet…`);
  return out;
}

const view = (s: RunState): Progress => ({
  runId: s.id,
  total: s.total,
  done: s.done,
  errors: s.errors,
  finished: s.done >= s.total && s.batches.every((b) => b.done),
  message: [...s.notes, ...writeBackNote(s)].join(' '),
  resultColumns: s.cols,
  writeBack: s.writeBack ? { ...s.writeBack, missing: [...s.writeBack.missing] } : null,
});

/**
 * Validates every row, writes the result headers (found again on a re-run), writes row errors at
 * once, and submits the valid rows as batches of 100 in one fetchAll.
 */
export function startRowsRun(mapping: TMapping, opts: RunOptions = {}): Progress {
  const sheet = SpreadsheetApp.getActiveSheet();
  const missing = (['policy_number', 'country', 'insurance_type'] as const).filter((f) => !mapping || !mapping[f]).map((f) => LABELS[f]!);
  if (missing.length) throw new Error(`The selection has no column for ${missing.join(', ')}. Pick the columns in the sidebar, or add headers such as "Policy number", "Country", "Insurance type".`);
  const headers = headerRow(sheet);
  const { cols, created } = resultColumns(headers, sheet.getLastColumn());
  const { first, last } = targetRows(sheet);
  if (last < first) throw new Error('No data rows to verify: put the policies below a header row.');
  const width = Math.max(...FIELDS.map((f) => mapping[f] ?? 0));
  const values = sheet.getRange(first, 1, last - first + 1, width).getValues();
  if (created) cols.forEach((c, i) => sheet.getRange(1, c).setValue(RESULT_HEADERS[i]!));

  const at = stamp();
  const errorsNow = new Map<number, (string | number)[]>();
  const valid: { row: number; policy: TPolicy }[] = [];
  let blanks = 0;
  values.forEach((v, i) => {
    const get = (f: (typeof FIELDS)[number]) => (mapping[f] ? String(v[mapping[f]! - 1] ?? '').trim() : '');
    const raw = { policy_number: get('policy_number'), country: get('country'), insurance_type: get('insurance_type'), provider: get('provider') };
    if (!raw.policy_number && !raw.country && !raw.insurance_type) {
      blanks++;
      return;
    }
    const p = parsePolicyInput(raw);
    if (p.ok) valid.push({ row: first + i, policy: p.policy });
    else errorsNow.set(first + i, resultCells(undefined, p.problem.detail, at));
  });

  const state: RunState = { id: Utilities.getUuid(), sheet: sheet.getName(), cols, total: valid.length + errorsNow.size, done: errorsNow.size, errors: errorsNow.size, batches: [], notes: [] };
  let target: TSheetTarget | undefined;
  if (opts.writeBack) {
    // The connector writes only into a spreadsheet bound to the key.
    ensureBound();
    target = {
      spreadsheet_id: SpreadsheetApp.getActive().getId(),
      sheet_name: sheet.getName(),
      key_column: columnLetter(mapping.policy_number!),
      header_rows: 1,
      columns: { status: columnLetter(cols[0]!), confidence_score: columnLetter(cols[1]!), insurer: columnLetter(cols[2]!), flags: columnLetter(cols[3]!), checked_at: columnLetter(cols[4]!) },
    };
    state.writeBack = { written: 0, missing: [], failed: null };
  }
  const chunks = chunk(valid);
  const submittedAt = Date.now();
  const submitted = chunks.length
    ? submitChunks(userConn(), chunks.map((c) => c.map((x) => x.policy)), { onRateLimited: (s) => state.notes.push(`Rate limited: waited ${s} s and retried.`) }, target)
    : [];
  const fatal = submitted.find((s) => !s.ok && ['unauthorized', 'unreachable', 'no_key', 'no_url', 'forbidden', 'sheet_not_bound'].includes(s.error.kind));
  if (fatal && !fatal.ok) throw new Error(fatal.error.message);
  submitted.forEach((s, ci) => {
    const rows = chunks[ci]!.map((x) => x.row);
    if (s.ok) {
      state.batches.push({ id: s.batchId, rows: runs(rows), due: submittedAt + POLL_BASE_MS + (ci + 1) * chunks[ci]!.length * POLL_MS_PER_ROW, done: false, completed: 0 });
    } else {
      for (const r of rows) errorsNow.set(r, resultCells(undefined, s.error.message, at));
      state.done += rows.length;
      state.errors += rows.length;
      if (!state.notes.includes(s.error.message)) state.notes.push(s.error.message);
    }
  });
  writeRows(sheet, cols, errorsNow);
  if (blanks) state.notes.push(`${blanks} blank row${blanks > 1 ? 's' : ''} skipped.`);
  save(state);
  return view(state);
}

/**
 * One poll from the sidebar: waits until the oldest open batch is due, GETs (in one fetchAll)
 * the open batches that are due, writes the finished ones and returns the progress.
 */
export function pollRowsRun(runId: string): Progress {
  const state = load(runId);
  const open = state.batches.filter((b) => !b.done);
  if (open.length === 0) return view(state);
  const firstDue = Math.min(...open.map((b) => b.due));
  const wait = firstDue - Date.now();
  if (wait > 0) Utilities.sleep(Math.min(wait, 5000));
  const now = Date.now();
  const due = open.filter((b) => b.due <= now);
  const ask = due.length ? due : open.slice(0, 1);
  let got: Map<string, TBatch>;
  try {
    got = pollRound(userConn(), ask.map((b) => b.id), SIDEBAR_WAIT_SECONDS, { onRateLimited: (s) => state.notes.push(`Rate limited: waited ${s} s and retried.`) }).got;
  } catch (e) {
    save(state);
    throw new Error(e instanceof ConnectorError ? e.message : String(e));
  }
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(state.sheet);
  if (!sheet) throw new Error(`The sheet "${state.sheet}" is gone; results can't be written.`);
  const at = stamp();
  for (const b of ask) {
    const batch = got.get(b.id);
    if (!batch) continue;
    if (batch.status !== 'complete') {
      state.done += batch.completed_count - b.completed;
      b.completed = batch.completed_count;
      b.due = Date.now() + 500;
      continue;
    }
    const rows = expand(b.rows);
    const wb = batch.sheet_writeback;
    if (state.writeBack && (!wb || wb.status === 'pending')) {
      // Verified; the connector has yet to write the results into the sheet.
      state.done += rows.length - b.completed;
      b.completed = rows.length;
      b.due = Date.now() + 500;
      continue;
    }
    const cells = new Map<number, (string | number)[]>();
    for (const item of batch.results) {
      const row = rows[item.index];
      if (row === undefined) continue;
      cells.set(row, resultCells(item.result, item.error?.message, at));
      if (!item.result) state.errors++;
    }
    if (state.writeBack && wb && wb.status === 'written') {
      state.writeBack.written += wb.written;
      for (const m of wb.missing) if (!state.writeBack.missing.includes(m)) state.writeBack.missing.push(m);
    } else {
      // No write-back asked for, or it failed (the sheet isn't shared with the service account...): write here.
      if (state.writeBack && wb) state.writeBack.failed = wb.error ?? 'unknown error.';
      writeRows(sheet, state.cols, cells);
    }
    state.done += rows.length - b.completed;
    b.completed = rows.length;
    b.done = true;
  }
  save(state);
  return view(state);
}
