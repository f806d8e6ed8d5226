/**
 * "Update pending results": brings =VERIFYPOLICY cells that show a pending text up to date. Sheets
 * recalculates a custom function only when its formula or a cell it references is edited (custom
 * functions guide), not by itself nor on reopening, so this finds, on every sheet, the
 * =VERIFYPOLICY formulas whose results name this action and enters each formula again
 * (setFormulas with its own text, per run of adjacent cells): Sheets then runs it, and the run
 * collects the recorded batches without paying again. Formulas with final answers are left alone.
 */
import { expand, runs } from './row-runs.js';
import { UPDATE_PENDING_ACTION } from './verifypolicy.js';

const VERIFYPOLICY_CALL = /\bVERIFYPOLICY\s*\(/i;

export interface PendingUpdate {
  /** Formulas entered again. */
  formulas: number;
  message: string;
}

/** Whether a cell's value is one of the texts that send the user to this action. */
const isPending = (v: unknown) => typeof v === 'string' && v.includes(UPDATE_PENDING_ACTION);

/**
 * The =VERIFYPOLICY formula cells of one sheet whose results are pending. A formula's results
 * start in its own cell and go down its column (a pending text is always in a result row's first
 * cell), until the next formula in that column.
 */
function pendingFormulaCells(formulas: string[][], values: unknown[][]): { row: number; col: number }[] {
  const out: { row: number; col: number }[] = [];
  const rows = formulas.length;
  for (let c = 0; c < (formulas[0]?.length ?? 0); c++) {
    for (let r = 0; r < rows; r++) {
      if (!VERIFYPOLICY_CALL.test(formulas[r]![c]!)) continue;
      let end = r + 1;
      while (end < rows && !formulas[end]![c]) end++;
      for (let i = r; i < end; i++) {
        if (isPending(values[i]![c])) {
          out.push({ row: r, col: c });
          break;
        }
      }
    }
  }
  return out;
}

/** Menu item and sidebar button: enters every pending =VERIFYPOLICY formula again, so Sheets recalculates it. */
export function updatePendingResults(): PendingUpdate {
  const ss = SpreadsheetApp.getActiveSpreadsheet();
  let count = 0;
  for (const sheet of ss.getSheets()) {
    const range = sheet.getDataRange();
    const formulas = range.getFormulas();
    if (!formulas.some((row) => row.some((f) => VERIFYPOLICY_CALL.test(f)))) continue;
    // Adjacent cells of a column (a formula filled down) are entered again in one call.
    const rowsByCol = new Map<number, number[]>();
    for (const { row, col } of pendingFormulaCells(formulas, range.getValues())) rowsByCol.set(col, [...(rowsByCol.get(col) ?? []), row]);
    for (const [col, rows] of rowsByCol) {
      for (const run of runs(rows)) {
        const texts = expand([run]).map((r) => [formulas[r]![col]!]);
        sheet.getRange(run[0] + 1, col + 1, texts.length, 1).setFormulas(texts);
        count += texts.length;
      }
    }
  }
  const message =
    count === 0
      ? 'No =VERIFYPOLICY cell is waiting for a result.'
      : `Recalculating ${count} =VERIFYPOLICY formula${count === 1 ? '' : 's'} with pending results.`;
  ss.toast(message);
  return { formulas: count, message };
}
