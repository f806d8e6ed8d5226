/** Builds reading-order lines from positioned words, shared by the pdf.js text layer and OCR output. */

/** A positioned piece of text: a pdf.js text item or an OCR word. y is the baseline, top-down. */
export interface WordBox {
  text: string;
  x0: number;
  x1: number;
  y: number;
  height: number;
  /** True for a form field's value (form-fields.ts): a cell of its own, its box and not the gap saying where it ends. */
  formValue?: boolean;
  /** The words of that field's name, when its name says something ("policy number"). */
  field?: string;
}

/** A run of words on one line with no wide gap inside: a table cell or a label/value column. */
export interface Cell {
  x: number;
  text: string;
  /** The words of the form field's name, when the cell is a form field's value whose name says something (form-fields.ts). */
  field?: string;
}

/** One line of text; `text` joins the cells with CELL_GAP so regexes can tell columns apart. */
export interface Line {
  text: string;
  cells: Cell[];
  /** Page number (1-based), set by the pipeline. */
  page?: number;
  /** True when OCR read the line (a scanned page), set by the pipeline: look-alike repairs apply only then. */
  ocr?: boolean;
}

/** What separates cells in `Line.text`. */
export const CELL_GAP = '   ';

/**
 * Groups boxes into lines (baselines within 40% of the text height), orders them top-down and
 * left-right, and splits a line into cells where the gap exceeds 1.2 text heights (a tab stop or
 * column, wider than any word space).
 */
export function linesFromBoxes(boxes: WordBox[]): Line[] {
  const sorted = [...boxes].sort((a, b) => a.y - b.y || a.x0 - b.x0);
  const groups: WordBox[][] = [];
  let current: WordBox[] = [];
  let baseline = Number.NEGATIVE_INFINITY;
  for (const b of sorted) {
    if (current.length > 0 && Math.abs(b.y - baseline) <= 0.4 * Math.max(b.height, 1)) {
      current.push(b);
    } else {
      if (current.length > 0) groups.push(current);
      current = [b];
      baseline = b.y;
    }
  }
  if (current.length > 0) groups.push(current);

  return groups.map((group) => {
    group.sort((a, b) => a.x0 - b.x0);
    const cells: Cell[] = [];
    let cell: { x: number; parts: string[]; end: number; formValue?: boolean; field?: string } | null = null;
    const close = (c: NonNullable<typeof cell>): Cell => ({
      x: c.x,
      text: c.parts.join('').replace(/\s+/g, ' ').trim(),
      ...(c.field ? { field: c.field } : {}),
    });
    for (const b of group) {
      const gap = cell ? b.x0 - cell.end : 0;
      if (cell && gap <= 1.2 * b.height && !b.formValue && !cell.formValue) {
        // pdf.js often splits a word into items with no space between them; only add a space for a real gap.
        cell.parts.push(gap > 0.15 * b.height ? ' ' + b.text : b.text);
        cell.end = Math.max(cell.end, b.x1);
      } else {
        if (cell) cells.push(close(cell));
        cell = { x: b.x0, parts: [b.text], end: b.x1, ...(b.formValue ? { formValue: true } : {}), ...(b.field ? { field: b.field } : {}) };
      }
    }
    if (cell) cells.push(close(cell));
    const kept = cells.filter((c) => c.text.length > 0);
    return { text: kept.map((c) => c.text).join(CELL_GAP), cells: kept };
  });
}
