/**
 * "Verify selected rows" (sidebar server side): detect the column mapping, submit the rows that
 * need a check (delta.ts) in batches of 100, and on each poll from the sidebar collect finished
 * batches, write their results (the insurer linked to its register page, insurer-links.ts), input
 * hashes and notes beside the data and report progress; the last poll adds the summary
 * (run-summary.ts). Run state lives in the user cache between calls.
 */
import type { TBatch } from '../../shared/batch.js';
import { parsePolicyInput, type TPolicy } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import type { TVerificationResult } from '../../shared/verification.js';
import { chunk, POLL_BASE_MS, POLL_MS_PER_ROW, pollRound, submitChunks } from './batches.js';
import { ensureBound } from './bindings.js';
import { ConnectorError } from './connector.js';
import { inputHash, keyKind, recheckOptions, recheckReason, type RecheckOptions } from './delta.js';
import { linkInsurers, linkWrittenInsurers } from './insurer-links.js';
import { detectColumns, FIELDS, RESULT_COL, RESULT_HEADERS, resultColumns, type TMapping } from './mapping.js';
import { resultNote, userLanguage } from './result-notes.js';
import { summarise, type RunSummary } from './run-summary.js';
import { userConn } from './settings.js';
import { ensureStatusRules } from './status-format.js';
import type { TLanguage } from '../../shared/packs/index.js';

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
  /** Rows left alone: unchanged since their last check (delta re-check). */
  skipped: number;
  /** With "write results back when done": what the connector wrote so far; null otherwise. */
  writeBack: { written: number; missing: string[]; failed: string | null } | null;
  /** Once finished: counts, credits and the rows that need a look. */
  summary: RunSummary | null;
}

export interface RunOptions {
  /**
   * Submit the batches with a sheet_target, so the connector writes the results into this sheet
   * itself (as its service account) when each batch completes, even if the sidebar is closed.
   */
  writeBack?: boolean;
  /** Which rows to send again: only changed, failed or old ones (default), or all. */
  recheck?: Partial<RecheckOptions>;
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
  first: number;
  last: number;
  policyCol: number;
  skipped: number;
  credits: number;
  lang: TLanguage;
  summary: RunSummary | null;
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

/** The result columns' cells; an error gets no hash, so the next run sends the row again. */
function resultCells(r: TVerificationResult | undefined, error: string | undefined, at: string, hash = ''): (string | number)[] {
  if (r) return [r.status, r.confidence_score, r.insurer?.name ?? '', r.flags.join(', '), at, hash];
  return [`Error: ${error ?? 'no result'}`, '', '', '', at, ''];
}

/** Each row's insurer cell text, as resultCells made it. */
const insurerTexts = (cells: Map<number, (string | number)[]>) => new Map([...cells].map(([r, c]) => [r, String(c[RESULT_COL.insurer] ?? '')]));

/**
 * Writes each row's cells into `cols`, grouping consecutive rows into one setValues per column
 * block; with `notes`, the first column's notes in one setNotes per block ('' clears an old note).
 */
function writeRows(sheet: GoogleAppsScript.Spreadsheet.Sheet, cols: number[], rows: Map<number, (string | number)[]>, notes?: Map<number, string>): void {
  const sorted = [...rows.keys()].sort((a, b) => a - b);
  const contiguous = cols.every((c, i) => c === cols[0]! + i);
  for (const [start, len] of runs(sorted)) {
    const block = expand([[start!, len!]]).map((r) => rows.get(r)!);
    if (contiguous) sheet.getRange(start!, cols[0]!, len!, cols.length).setValues(block);
    else cols.forEach((c, ci) => sheet.getRange(start!, c, len!, 1).setValues(block.map((b) => [b[ci]!])));
    if (notes) sheet.getRange(start!, cols[0]!, len!, 1).setNotes(expand([[start!, len!]]).map((r) => [notes.get(r) ?? '']));
  }
}

/** What was in the status, checked-at and hash columns for rows first..last, before this run. */
function previousResults(sheet: GoogleAppsScript.Spreadsheet.Sheet, cols: number[], first: number, last: number): { status: unknown; checkedAt: unknown; hash: unknown }[] {
  const n = last - first + 1;
  const read = (c: number) => sheet.getRange(first, c, n, 1).getValues().map((r) => r[0]);
  const contiguous = cols.every((c, i) => c === cols[0]! + i);
  if (contiguous) {
    return sheet.getRange(first, cols[0]!, n, cols.length).getValues().map((r) => ({ status: r[RESULT_COL.status], checkedAt: r[RESULT_COL.checkedAt], hash: r[RESULT_COL.hash] }));
  }
  const [st, at, h] = [read(cols[RESULT_COL.status]!), read(cols[RESULT_COL.checkedAt]!), read(cols[RESULT_COL.hash]!)];
  return st.map((v, i) => ({ status: v, checkedAt: at[i], hash: h[i] }));
}

/** Each batch's input hashes, in its row order, kept beside the run state (one cache item per batch keeps every item well under 100 KB). */
const hashKey = (runId: string, batchId: string) => `run:${runId}:h:${batchId}`;

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

const isFinished = (s: RunState) => s.done >= s.total && s.batches.every((b) => b.done);

const view = (s: RunState): Progress => ({
  runId: s.id,
  total: s.total,
  done: s.done,
  errors: s.errors,
  finished: isFinished(s),
  message: [...s.notes, ...writeBackNote(s)].join(' '),
  resultColumns: s.cols,
  skipped: s.skipped,
  writeBack: s.writeBack ? { ...s.writeBack, missing: [...s.writeBack.missing] } : null,
  summary: s.summary,
});

/** Once every row is in: the summary (read once, kept in the state so later polls don't ask again). */
function finish(sheet: GoogleAppsScript.Spreadsheet.Sheet, s: RunState): void {
  if (s.summary || !isFinished(s)) return;
  s.summary = summarise({
    sheet,
    first: s.first,
    last: s.last,
    policyCol: s.policyCol,
    statusCol: s.cols[RESULT_COL.status]!,
    flagsCol: s.cols[RESULT_COL.flags]!,
    checked: s.total,
    skipped: s.skipped,
    creditsSpent: s.credits,
    at: stamp(),
  });
}

/**
 * Validates every row, writes the result headers (found again on a re-run), writes row errors at
 * once, skips rows whose inputs and result are unchanged since their last check (delta.ts), and
 * submits the others as batches of 100 in one fetchAll.
 */
export function startRowsRun(mapping: TMapping, opts: RunOptions = {}): Progress {
  const sheet = SpreadsheetApp.getActiveSheet();
  const missing = (['policy_number', 'country', 'insurance_type'] as const).filter((f) => !mapping || !mapping[f]).map((f) => LABELS[f]!);
  if (missing.length) throw new Error(`The selection has no column for ${missing.join(', ')}. Pick the columns in the sidebar, or add headers such as "Policy number", "Country", "Insurance type".`);
  const recheck = recheckOptions(opts.recheck);
  const headers = headerRow(sheet);
  const { cols, created } = resultColumns(headers, sheet.getLastColumn());
  const { first, last } = targetRows(sheet);
  if (last < first) throw new Error('No data rows to verify: put the policies below a header row.');
  const width = Math.max(...FIELDS.map((f) => mapping[f] ?? 0));
  const values = sheet.getRange(first, 1, last - first + 1, width).getValues();
  if (created) {
    cols.forEach((c, i) => {
      if (String(headers[c - 1] ?? '').trim() !== RESULT_HEADERS[i]) sheet.getRange(1, c).setValue(RESULT_HEADERS[i]!);
    });
    // The hash column is the add-on's bookkeeping: hidden when it makes it (a user may show it again).
    if (String(headers[cols[RESULT_COL.hash]! - 1] ?? '').trim() !== RESULT_HEADERS[RESULT_COL.hash]) sheet.hideColumns(cols[RESULT_COL.hash]!);
  }
  const previous = previousResults(sheet, cols, first, last);
  ensureStatusRules(sheet, cols[RESULT_COL.status]!);

  const conn = userConn();
  const kind = keyKind(conn.key);
  const now = Date.now();
  const at = stamp();
  const errorsNow = new Map<number, (string | number)[]>();
  const valid: { row: number; policy: TPolicy; hash: string }[] = [];
  let blanks = 0;
  let skipped = 0;
  values.forEach((v, i) => {
    const get = (f: (typeof FIELDS)[number]) => (mapping[f] ? String(v[mapping[f]! - 1] ?? '').trim() : '');
    const raw = { policy_number: get('policy_number'), country: get('country'), insurance_type: get('insurance_type'), provider: get('provider') };
    if (!raw.policy_number && !raw.country && !raw.insurance_type) {
      blanks++;
      return;
    }
    const p = parsePolicyInput(raw);
    if (!p.ok) {
      errorsNow.set(first + i, resultCells(undefined, p.problem.detail, at));
      return;
    }
    const hash = inputHash(p.policy, kind);
    if (recheckReason(previous[i]!, hash, now, recheck) === null) skipped++;
    else valid.push({ row: first + i, policy: p.policy, hash });
  });

  const state: RunState = {
    id: Utilities.getUuid(),
    sheet: sheet.getName(),
    cols,
    total: valid.length + errorsNow.size,
    done: errorsNow.size,
    errors: errorsNow.size,
    batches: [],
    notes: [],
    first,
    last,
    policyCol: mapping.policy_number!,
    skipped,
    credits: 0,
    lang: userLanguage(),
    summary: null,
  };
  let target: TSheetTarget | undefined;
  if (opts.writeBack && valid.length) {
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
    ? submitChunks(conn, chunks.map((c) => c.map((x) => x.policy)), { onRateLimited: (s) => state.notes.push(`Rate limited: waited ${s} s and retried.`) }, target)
    : [];
  const fatal = submitted.find((s) => !s.ok && ['unauthorized', 'unreachable', 'no_key', 'no_url', 'forbidden', 'sheet_not_bound'].includes(s.error.kind));
  if (fatal && !fatal.ok) throw new Error(fatal.error.message);
  const hashes: Record<string, string> = {};
  submitted.forEach((s, ci) => {
    const rows = chunks[ci]!.map((x) => x.row);
    if (s.ok) {
      state.batches.push({ id: s.batchId, rows: runs(rows), due: submittedAt + POLL_BASE_MS + (ci + 1) * chunks[ci]!.length * POLL_MS_PER_ROW, done: false, completed: 0 });
      hashes[hashKey(state.id, s.batchId)] = chunks[ci]!.map((x) => x.hash).join(',');
    } else {
      for (const r of rows) errorsNow.set(r, resultCells(undefined, s.error.message, at));
      state.done += rows.length;
      state.errors += rows.length;
      if (!state.notes.includes(s.error.message)) state.notes.push(s.error.message);
    }
  });
  if (Object.keys(hashes).length) cache().putAll(hashes, RUN_TTL_SECONDS);
  writeRows(sheet, cols, errorsNow, new Map([...errorsNow.keys()].map((r) => [r, ''])));
  if (skipped) state.notes.push(`${skipped} row${skipped > 1 ? 's' : ''} unchanged since the last check: skipped, no credits spent.`);
  if (blanks) state.notes.push(`${blanks} blank row${blanks > 1 ? 's' : ''} skipped.`);
  finish(sheet, state);
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
  const insurerCol = state.cols[RESULT_COL.insurer]!;
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
    const hashes = (cache().get(hashKey(state.id, b.id)) ?? '').split(',');
    const cells = new Map<number, (string | number)[]>();
    const notes = new Map<number, string>();
    // The register links come with the batch's results: no call, nothing kept in the run state.
    const links = new Map<number, string>();
    for (const item of batch.results) {
      const row = rows[item.index];
      if (row === undefined) continue;
      // Without its hash (the cache lost it) a row is written as not yet checked, so the next run sends it again.
      cells.set(row, resultCells(item.result, item.error?.message, at, hashes[item.index] ?? ''));
      notes.set(row, resultNote(item.result, state.lang));
      const url = item.result?.insurer?.register_url;
      if (url) links.set(row, url);
      if (!item.result) state.errors++;
      else state.credits += item.result.credits_charged;
    }
    if (state.writeBack && wb && wb.status === 'written') {
      state.writeBack.written += wb.written;
      for (const m of wb.missing) if (!state.writeBack.missing.includes(m)) state.writeBack.missing.push(m);
      // The connector wrote the five visible columns; the hash and the notes are the add-on's.
      const hashCol = state.cols[RESULT_COL.hash]!;
      const statusCol = state.cols[RESULT_COL.status]!;
      writeRows(sheet, [hashCol], new Map([...cells].map(([r, c]) => [r, [c[RESULT_COL.hash]!]])));
      for (const [start, len] of runs([...notes.keys()].sort((x, y) => x - y))) {
        sheet.getRange(start!, statusCol, len!, 1).setNotes(expand([[start!, len!]]).map((r) => [notes.get(r) ?? '']));
      }
      // The insurer names are the connector's: links are added only to cells that hold them (insurer-links.ts).
      if (links.size) linkWrittenInsurers(sheet, insurerCol, insurerTexts(cells), links);
    } else {
      // No write-back asked for, or it failed (the sheet isn't shared with the service account...): write here.
      if (state.writeBack && wb) state.writeBack.failed = wb.error ?? 'unknown error.';
      writeRows(sheet, state.cols, cells, notes);
      // At most one more call per block written, and only for blocks with a link.
      if (links.size) linkInsurers(sheet, insurerCol, insurerTexts(cells), links);
    }
    state.done += rows.length - b.completed;
    b.completed = rows.length;
    b.done = true;
    cache().remove(hashKey(state.id, b.id));
  }
  finish(sheet, state);
  save(state);
  return view(state);
}
