/**
 * "Verify selected rows" (sidebar server side): detect the column mapping, submit the rows that
 * need a check (delta.ts) in batches of 100, and on each poll from the sidebar collect finished
 * batches, write their results (the insurer linked to its register page, insurer-links.ts), input
 * hashes and notes beside the data and report progress; the last poll adds the summary
 * (run-summary.ts). Run state lives in the user cache between calls, recorded before anything is
 * paid for (see "Run state" below).
 */
import type { TBatch } from '../../shared/batch.js';
import { columnLetter } from '../../shared/column-letters.js';
import { parsePolicyInput, type TPolicy } from '../../shared/policy.js';
import type { TVerificationResult } from '../../shared/verification.js';
import { MAX_BATCH_SIZE, POLL_BASE_MS, POLL_MS_PER_ROW, pollRound, submitChunks } from './batches.js';
import { ensureBound } from './bindings.js';
import { ConnectorError } from './connector.js';
import { inputHash, keyKind, recheckOptions, recheckReason, type RecheckOptions } from './delta.js';
import { identifierText } from './identifiers.js';
import { linkInsurers, linkWrittenInsurers } from './insurer-links.js';
import { expand, runs } from './row-runs.js';
import { detectColumns, FIELDS, RESULT_COL, RESULT_HEADERS, resultColumns, type TMapping } from './mapping.js';
import { resultNote, userLanguage } from './result-notes.js';
import { summarise, type RunSummary } from './run-summary.js';
import {
  cache,
  idempotencyKey,
  load,
  loadPieces,
  MAX_RUN_BATCHES,
  messageOf,
  pieceChunks,
  pieceKey,
  record,
  rowsOf,
  save,
  type RunBatch,
  type RunPiece,
  type RunState,
} from './run-state.js';
import { adoptUnfinished } from './unfinished-runs.js';
import { userConn } from './settings.js';
import { ensureStatusRules } from './status-format.js';

/** Seconds of long-poll per sidebar poll: short, so the progress bar keeps moving. */
const SIDEBAR_WAIT_SECONDS = 2;
const MAX_MISSING_KEPT = 50;

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

const LABELS: Record<string, string> = {
  policy_number: 'policy number',
  country: 'country',
  insurance_type: 'insurance type',
  provider: 'provider',
};

function headerRow(sheet: GoogleAppsScript.Spreadsheet.Sheet): string[] {
  const lastCol = Math.max(1, sheet.getLastColumn());
  return sheet
    .getRange(1, 1, 1, lastCol)
    .getValues()[0]!
    .map((v) => String(v ?? '').trim());
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

export interface RunRows {
  sheet: string;
  first: number;
  last: number;
  /** Data rows a run would read now. */
  rows: number;
  /** Data rows (below the header) the user's selection covers on this sheet. */
  selected: number;
}

/**
 * The rows a run would read now, beside the rows the user selected: with one cell selected a run takes
 * every row, so the sidebar asks before it spends credits on more rows than were selected.
 */
export function rowsToVerify(): RunRows {
  const sheet = SpreadsheetApp.getActiveSheet();
  const { first, last } = targetRows(sheet);
  const sel = SpreadsheetApp.getActiveRange();
  const selected =
    sel && sel.getSheet().getName() === sheet.getName() ? Math.max(0, Math.min(last, sel.getLastRow()) - Math.max(2, sel.getRow()) + 1) : 0;
  return { sheet: sheet.getName(), first, last, rows: Math.max(0, last - first + 1), selected };
}

export function detectRowMapping(): MappingView {
  const sheet = SpreadsheetApp.getActiveSheet();
  const headers = headerRow(sheet);
  const mapping = detectColumns(headers);
  const { first, last } = targetRows(sheet);
  const missing = (['policy_number', 'country', 'insurance_type'] as const).filter((f) => mapping[f] === null).map((f) => LABELS[f]!);
  return { sheet: sheet.getName(), headers, mapping, firstRow: first, lastRow: last, missing };
}

const stamp = () => new Date().toISOString().replace('T', ' ').slice(0, 19) + ' UTC';

/** The result columns' cells; an error gets no hash, so the next run sends the row again. */
function resultCells(r: TVerificationResult | undefined, error: string | undefined, at: string, hash = ''): (string | number)[] {
  if (r) return [r.status, r.confidence_score, r.insurer?.name ?? '', r.flags.join(', '), at, hash];
  return [`Error: ${error ?? 'no result'}`, '', '', '', at, ''];
}

/** Each row's insurer cell text, as resultCells made it. */
const insurerTexts = (cells: Map<number, (string | number)[]>) =>
  new Map([...cells].map(([r, c]) => [r, String(c[RESULT_COL.insurer] ?? '')]));

/**
 * Writes each row's cells into `cols`, grouping consecutive rows into one setValues per column
 * block; with `notes`, the first column's notes in one setNotes per block ('' clears an old note).
 */
function writeRows(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  cols: number[],
  rows: Map<number, (string | number)[]>,
  notes?: Map<number, string>,
): void {
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
function previousResults(
  sheet: GoogleAppsScript.Spreadsheet.Sheet,
  cols: number[],
  first: number,
  last: number,
): { status: unknown; checkedAt: unknown; hash: unknown }[] {
  const n = last - first + 1;
  const read = (c: number) =>
    sheet
      .getRange(first, c, n, 1)
      .getValues()
      .map((r) => r[0]);
  const contiguous = cols.every((c, i) => c === cols[0]! + i);
  if (contiguous) {
    return sheet
      .getRange(first, cols[0]!, n, cols.length)
      .getValues()
      .map((r) => ({ status: r[RESULT_COL.status], checkedAt: r[RESULT_COL.checkedAt], hash: r[RESULT_COL.hash] }));
  }
  const [st, at, h] = [read(cols[RESULT_COL.status]!), read(cols[RESULT_COL.checkedAt]!), read(cols[RESULT_COL.hash]!)];
  return st.map((v, i) => ({ status: v, checkedAt: at[i], hash: h[i] }));
}

/**
 * Sends the listed batches (their pieces) in one fetchAll, each with its Idempotency-Key, and
 * records what came back in the state: the batch id, or the rows as errors in `errorsNow`.
 */
function submitPieces(state: RunState, pieces: Map<number, RunPiece>, errorsNow: Map<number, (string | number)[]>, at: string): void {
  const ns = [...pieces.keys()];
  if (!ns.length) return;
  const submittedAt = Date.now();
  const submitted = submitChunks(
    userConn(),
    ns.map((n) => pieces.get(n)!.policies),
    { onRateLimited: (s) => state.notes.push(`Rate limited: waited ${s} s and retried.`) },
    state.target,
    ns.map((n) => state.batches[n]!.key ?? idempotencyKey(state.id, n)),
  );
  // A refusal that concerns the whole connection is thrown when no batch got through; otherwise
  // the batches that did are kept, and the others' rows get the error.
  const fatal = submitted.find(
    (s) => !s.ok && ['unauthorized', 'unreachable', 'no_key', 'no_url', 'forbidden', 'sheet_not_bound'].includes(s.error.kind),
  );
  if (fatal && !fatal.ok && !submitted.some((s) => s.ok)) throw new Error(fatal.error.message);
  submitted.forEach((s, i) => {
    const n = ns[i]!;
    const b = state.batches[n]!;
    if (s.ok) {
      b.id = s.batchId;
      b.due = submittedAt + POLL_BASE_MS + (i + 1) * b.n * POLL_MS_PER_ROW;
    } else {
      for (const r of rowsOf(pieces.get(n)!)) if (r > 0) errorsNow.set(r, resultCells(undefined, s.error.message, at));
      b.done = true;
      state.done += b.n;
      state.errors += b.n;
      if (!state.notes.includes(s.error.message)) state.notes.push(s.error.message);
    }
  });
}

function writeBackNote(s: RunState): string[] {
  const wb = s.writeBack;
  if (!wb) return [];
  const waiting = s.batches.filter((b) => !b.done && b.completed >= b.n).length;
  const out: string[] = [];
  if (wb.written) out.push(`The connector wrote ${wb.written} result${wb.written === 1 ? '' : 's'} into the sheet.`);
  if (wb.missing.length)
    out.push(
      `Not found in the sheet any more, nothing written for: ${wb.missing.join(', ')}${s.missingMore ? ` and ${s.missingMore} more` : ''}.`,
    );
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
 * A row's policy as its cells give it (the values only to tell a policy number Sheets typed as a number or
 * date): null for a blank row, else the policy or why the row is not one.
 */
export function rowPolicy(
  values: readonly unknown[],
  shown: readonly string[],
  mapping: TMapping,
): null | { ok: true; policy: TPolicy } | { ok: false; detail: string } {
  const get = (f: (typeof FIELDS)[number]) => (mapping[f] ? String(shown[mapping[f]! - 1] ?? '').trim() : '');
  const pc = mapping.policy_number! - 1;
  const id = identifierText(values[pc], shown[pc]);
  const raw = {
    policy_number: id.ok ? id.text : get('policy_number'),
    country: get('country'),
    insurance_type: get('insurance_type'),
    provider: get('provider'),
  };
  if (!raw.policy_number && !raw.country && !raw.insurance_type) return null;
  if (!id.ok) return { ok: false, detail: id.error };
  const p = parsePolicyInput(raw);
  return p.ok ? { ok: true, policy: p.policy } : { ok: false, detail: p.problem.detail };
}

/**
 * Validates every row, writes the result headers (found again on a re-run), writes row errors at
 * once, skips rows whose inputs and result are unchanged since their last check (delta.ts), and
 * submits the others as batches of 100 in one fetchAll.
 */
export function startRowsRun(mapping: TMapping, opts: RunOptions = {}): Progress {
  const sheet = SpreadsheetApp.getActiveSheet();
  const missing = (['policy_number', 'country', 'insurance_type'] as const).filter((f) => !mapping || !mapping[f]).map((f) => LABELS[f]!);
  if (missing.length)
    throw new Error(
      `The selection has no column for ${missing.join(', ')}. Pick the columns in the sidebar, or add headers such as "Policy number", "Country", "Insurance type".`,
    );
  const recheck = recheckOptions(opts.recheck);
  const headers = headerRow(sheet);
  const { cols, created } = resultColumns(headers, sheet.getLastColumn());
  const { first, last } = targetRows(sheet);
  if (last < first) throw new Error('No data rows to verify: put the policies below a header row.');
  const width = Math.max(...FIELDS.map((f) => mapping[f] ?? 0));
  // The inputs as the cells show them; the values only to tell a policy number Sheets typed as a number or date.
  const inputs = sheet.getRange(first, 1, last - first + 1, width);
  const values = inputs.getValues();
  const shown = inputs.getDisplayValues();
  if (created) {
    cols.forEach((c, i) => {
      if (String(headers[c - 1] ?? '').trim() !== RESULT_HEADERS[i]) sheet.getRange(1, c).setValue(RESULT_HEADERS[i]!);
    });
    // The hash column is the add-on's bookkeeping: hidden when it makes it (a user may show it again).
    if (String(headers[cols[RESULT_COL.hash]! - 1] ?? '').trim() !== RESULT_HEADERS[RESULT_COL.hash])
      sheet.hideColumns(cols[RESULT_COL.hash]!);
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
  shown.forEach((v, i) => {
    const p = rowPolicy(values[i]!, v, mapping);
    if (!p) {
      blanks++;
      return;
    }
    if (!p.ok) {
      errorsNow.set(first + i, resultCells(undefined, p.detail, at));
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
  const chunks = pieceChunks(valid);
  if (chunks.length > MAX_RUN_BATCHES) {
    throw new Error(
      `${valid.length} rows need a check, more than one run sends (${MAX_RUN_BATCHES * MAX_BATCH_SIZE}). Select fewer rows and verify them in parts; rows already checked are skipped.`,
    );
  }
  if (opts.writeBack && valid.length) {
    // The connector writes only into a spreadsheet bound to the key.
    ensureBound();
    state.target = {
      spreadsheet_id: SpreadsheetApp.getActive().getId(),
      sheet_name: sheet.getName(),
      key_column: columnLetter(mapping.policy_number!),
      header_rows: 1,
      columns: {
        status: columnLetter(cols[0]!),
        confidence_score: columnLetter(cols[1]!),
        insurer: columnLetter(cols[2]!),
        flags: columnLetter(cols[3]!),
        checked_at: columnLetter(cols[4]!),
      },
    };
    state.writeBack = { written: 0, missing: [], failed: null };
  }
  if (skipped) state.notes.push(`${skipped} row${skipped > 1 ? 's' : ''} unchanged since the last check: skipped, no credits spent.`);
  if (blanks) state.notes.push(`${blanks} blank row${blanks > 1 ? 's' : ''} skipped.`);
  // Rows an earlier run of this user's already paid for, whose results never came in (unfinished-runs.ts).
  const adopted = adoptUnfinished(state.id, state.sheet, valid, state.target);
  if (adopted.note) state.notes.push(adopted.note);
  const fresh = adopted.rows.size ? pieceChunks(valid.filter((v) => !adopted.rows.has(v.row))) : chunks;
  const pieces = [
    ...adopted.pieces,
    ...fresh.map((c): RunPiece => ({
      rows: runs(c.map((x) => x.row)),
      hashes: c.map((x) => x.hash).join(','),
      policies: c.map((x) => x.policy),
    })),
  ];
  state.batches = [...adopted.batches, ...fresh.map((c) => ({ id: null, n: c.length, due: 0, done: false, completed: 0 }))];
  try {
    record(state, pieces, adopted.items);
  } catch (e) {
    throw new Error(
      `Could not record the run before sending it (${messageOf(e)}): nothing was sent and no credits were spent. Try again in a moment.`,
    );
  }
  // Everything not yet sent; batches taken over with their ids are only collected.
  try {
    submitPieces(
      state,
      new Map(pieces.map((p, n): [number, RunPiece] => [n, p]).filter(([n]) => state.batches[n]!.id === null)),
      errorsNow,
      at,
    );
  } catch (e) {
    // Refused as a whole (no key, no connection, not bound): nothing was accepted, so nothing is left for a later run to take over.
    for (const b of state.batches) if (b.id === null) b.done = true;
    saveOrRepeat(state);
    throw e;
  }
  writeRows(sheet, cols, errorsNow, new Map([...errorsNow.keys()].map((r) => [r, ''])));
  finish(sheet, state);
  saveOrRepeat(state);
  return view(state);
}

/**
 * Saves the head after a call that changed it; false if it could not. Then the run goes on from the head
 * saved before: the next poll sends unrecorded batches again (same Idempotency-Keys: the same
 * batches, not charged again) and repeats the reads and writes of this one, which charge nothing.
 */
function saveOrRepeat(state: RunState): boolean {
  try {
    save(state);
    return true;
  } catch (e) {
    state.notes.push(`Progress not saved (${messageOf(e)}); the next update repeats this one, without charging again.`);
    return false;
  }
}

/**
 * One poll from the sidebar: waits until the oldest open batch is due, GETs (in one fetchAll)
 * the open batches that are due, writes the finished ones and returns the progress.
 */
export function pollRowsRun(runId: string): Progress {
  const state = load(runId);
  const sheet = SpreadsheetApp.getActiveSpreadsheet().getSheetByName(state.sheet);
  if (!sheet) throw new Error(`The sheet "${state.sheet}" is gone; results can't be written.`);
  const at = stamp();
  // Batches whose ids a failed save lost: sent again with their Idempotency-Keys, the connector
  // answers with the batches it made for them, and charges nothing more.
  const unsent = state.batches.map((b, n) => (!b.done && b.id === null ? n : -1)).filter((n) => n >= 0);
  if (unsent.length) {
    const pieces = loadPieces(state.id, unsent);
    loseMissing(
      state,
      unsent.filter((n) => !pieces.has(n)),
    );
    const errorsNow = new Map<number, (string | number)[]>();
    submitPieces(state, pieces, errorsNow, at);
    writeRows(sheet, state.cols, errorsNow, new Map([...errorsNow.keys()].map((r) => [r, ''])));
  }
  const open = state.batches.filter((b): b is RunBatch & { id: string } => !b.done && b.id !== null);
  if (open.length === 0) {
    if (unsent.length) {
      finish(sheet, state);
      saveOrRepeat(state);
    }
    return view(state);
  }
  const firstDue = Math.min(...open.map((b) => b.due));
  const wait = firstDue - Date.now();
  if (wait > 0) Utilities.sleep(Math.min(wait, 5000));
  const now = Date.now();
  const due = open.filter((b) => b.due <= now);
  const ask = due.length ? due : open.slice(0, 1);
  let got: Map<string, TBatch>;
  try {
    got = pollRound(
      userConn(),
      ask.map((b) => b.id),
      SIDEBAR_WAIT_SECONDS,
      { onRateLimited: (s) => state.notes.push(`Rate limited: waited ${s} s and retried.`) },
    ).got;
  } catch (e) {
    saveOrRepeat(state);
    throw new Error(e instanceof ConnectorError ? e.message : String(e));
  }
  const insurerCol = state.cols[RESULT_COL.insurer]!;
  const complete = ask.filter((b) => got.get(b.id)?.status === 'complete').map((b) => state.batches.indexOf(b));
  const pieces = loadPieces(state.id, complete);
  loseMissing(
    state,
    complete.filter((n) => !pieces.has(n)),
  );
  const written: number[] = [];
  for (const b of ask) {
    const batch = got.get(b.id);
    if (!batch) continue;
    if (batch.status !== 'complete') {
      const completed = Math.min(batch.completed_count, b.n);
      state.done += completed - b.completed;
      b.completed = completed;
      b.due = Date.now() + 500;
      continue;
    }
    const n = state.batches.indexOf(b);
    const piece = pieces.get(n);
    if (!piece) continue;
    const rows = rowsOf(piece);
    const wb = batch.sheet_writeback;
    if (state.writeBack && (!wb || wb.status === 'pending')) {
      // Verified; the connector has yet to write the results into the sheet.
      state.done += b.n - b.completed;
      b.completed = b.n;
      b.due = Date.now() + 500;
      continue;
    }
    const hashes = piece.hashes.split(',');
    const cells = new Map<number, (string | number)[]>();
    const notes = new Map<number, string>();
    // The register links come with the batch's results: no call, nothing kept in the run state.
    const links = new Map<number, string>();
    for (const item of batch.results) {
      const row = rows[item.index];
      // 0: a policy of a batch taken over from an earlier run whose row is gone.
      if (!row) continue;
      // Without its hash a row is written as not yet checked, so the next run sends it again.
      cells.set(row, resultCells(item.result, item.error?.message, at, hashes[item.index] ?? ''));
      notes.set(row, resultNote(item.result, state.lang));
      const url = item.result?.insurer?.register_url;
      if (url) links.set(row, url);
      if (!item.result) state.errors++;
      else state.credits += item.result.credits_charged;
    }
    if (state.writeBack && wb && wb.status === 'written') {
      state.writeBack.written += wb.written;
      for (const m of wb.missing) {
        if (state.writeBack.missing.includes(m)) continue;
        // Kept short: the head must stay small however many rows vanished.
        if (state.writeBack.missing.length < MAX_MISSING_KEPT) state.writeBack.missing.push(m);
        else state.missingMore = (state.missingMore ?? 0) + 1;
      }
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
    state.done += b.n - b.completed;
    b.completed = b.n;
    b.done = true;
    written.push(n);
  }
  finish(sheet, state);
  // A piece goes only once the head that marks its batch done is saved: if that save fails, the
  // next poll writes the batch again from its piece.
  if (saveOrRepeat(state) && written.length) cache().removeAll(written.map((n) => pieceKey(state.id, n)));
  return view(state);
}

/**
 * Batches whose pieces the cache no longer holds (evicted, or past 6 hours): their rows can't be
 * found, so they are counted as errors and the user is told; those rows have no new hash, so the
 * next run sends them again.
 */
function loseMissing(state: RunState, ns: number[]): void {
  if (!ns.length) return;
  let lost = 0;
  for (const n of ns) {
    const b = state.batches[n]!;
    lost += b.n - b.completed;
    state.done += b.n - b.completed;
    state.errors += b.n;
    b.completed = b.n;
    b.done = true;
  }
  state.notes.push(
    `The record of ${lost} row${lost === 1 ? '' : 's'} of this run was lost from the cache, so their results can't be written: run again to check them.`,
  );
}
