/**
 * Formulas and when Sheets recalculates them, for custom functions (the add-on's =VERIFYPOLICY).
 * Rules, each from the document named:
 * - A formula is entered with Range.setFormula / setFormulas (reference/spreadsheet/range
 *   #setFormula, #setFormulas: the formula's text, "=" first; their dimensions must match the
 *   range's, as for setValues), read back with getFormula / getFormulas ("" where a cell holds
 *   no formula). A value written over the cell replaces the formula.
 * - A custom function runs when its formula is entered, and again only when the formula is
 *   entered again or a cell it references changes ("Custom Functions in Google Sheets",
 *   apps-script/guides/sheets/functions: arguments are the values of the cells referenced, and
 *   must be deterministic; nothing there recalculates a custom function on a timer, on reading
 *   the sheet or on reopening it, so the stand-in never does: the clock, getValues and onOpen
 *   leave its cell as it was).
 * - Each run is its own execution in AuthMode.CUSTOM_FUNCTION with its own 30 s (same guide;
 *   "Quotas for Google Services"), after the execution that edited has ended (the stand-in runs one
 *   execution at a time); an edit made by the test itself (a person typing) is recalculated
 *   before the sheet is next read or a script next runs.
 * - A range argument is a two-dimensional array of its values, a single cell its value (same
 *   guide, "Arguments"); a returned two-dimensional array fills the cells from the formula's
 *   down and right ("Return values"); a thrown error shows #ERROR! with its message ("Errors").
 * Not modelled: formulas other than one function call on literals and A1 references, whole-column
 * references, #REF! when a result would overwrite data, volatile built-ins.
 */
import type { FakeSheet, FakeSpreadsheet } from './spreadsheet.js';

function numToCol(n: number): string {
  let s = '';
  for (; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

type V = any;

interface Ref {
  sheet: FakeSheet;
  row: number;
  col: number;
  nr: number;
  nc: number;
}

interface Formula {
  sheet: FakeSheet;
  row: number;
  col: number;
  text: string;
  /** The cells its last result filled (cleared before the next result is written). */
  out: { nr: number; nc: number };
}

export interface FormulaHost {
  /** Who is running now (null: the test itself acts, as a person in Sheets). */
  currentUser(): string | null;
  /** The spreadsheet's owner, for edits the test makes. */
  owner: string;
  /** Runs the custom function `name` as `user`, in AuthMode.CUSTOM_FUNCTION (World.run). */
  runCustomFunction(user: string, name: string, args: V[]): V;
}

function colNum(letters: string): number {
  return letters
    .toUpperCase()
    .split('')
    .reduce((n, c) => n * 26 + (c.charCodeAt(0) - 64), 0);
}

/** Splits a function's argument text at top-level commas (commas inside "…" don't count). */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    if (ch === ',' && !quoted) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '' || out.length > 0) out.push(cur.trim());
  return out;
}

export class FormulaEngine {
  private formulas = new Map<string, Formula>();
  /** Formulas to run, with who caused it. */
  private dirty = new Map<Formula, string>();
  private writing = false;
  private draining = false;
  /** Messages of cells showing #ERROR! by "sheet!row,col" (tests read them). */
  readonly errors = new Map<string, string>();
  /** Custom-function runs so far, and the cell of each ("Sheet1!D2"; tests read them). */
  runs = 0;
  readonly ran: string[] = [];
  host: FormulaHost | null = null;

  constructor(private ss: FakeSpreadsheet) {}

  private key(sheet: FakeSheet, r: number, c: number): string {
    return `${sheet.name}!${r},${c}`;
  }

  formulaAt(sheet: FakeSheet, r: number, c: number): string {
    return this.formulas.get(this.key(sheet, r, c))?.text ?? '';
  }

  /** Range.setFormula(s) for one cell: "" clears the cell; text without "=" is entered as a value. */
  setFormula(sheet: FakeSheet, r: number, c: number, text: string): void {
    const t = String(text ?? '');
    if (!t.startsWith('=')) {
      sheet.set(r, c, t);
      return;
    }
    const k = this.key(sheet, r, c);
    const prev = this.formulas.get(k);
    const f: Formula = { sheet, row: r, col: c, text: t, out: prev?.out ?? { nr: 1, nc: 1 } };
    this.formulas.set(k, f);
    if (prev) this.dirty.delete(prev);
    this.dirty.set(f, this.host?.currentUser() ?? this.host?.owner ?? '');
  }

  /** A value entered into a cell (FakeSheet.set): it replaces a formula there, and formulas referencing it run again. */
  edited(sheet: FakeSheet, r: number, c: number): void {
    if (this.writing) return;
    const k = this.key(sheet, r, c);
    const f = this.formulas.get(k);
    if (f) {
      this.formulas.delete(k);
      this.dirty.delete(f);
      this.errors.delete(k);
    }
    this.markDependents(sheet, r, c, null);
  }

  /** Sheet.clear / clearContents: its formulas go. */
  clearSheet(sheet: FakeSheet): void {
    for (const [k, f] of this.formulas) if (f.sheet === sheet) this.formulas.delete(k);
  }

  private markDependents(sheet: FakeSheet, r: number, c: number, except: Formula | null): void {
    if (this.formulas.size === 0) return;
    const user = this.host?.currentUser() ?? this.host?.owner ?? '';
    for (const f of this.formulas.values()) {
      if (f === except || this.dirty.has(f)) continue;
      if (this.refs(f).some((x) => x.sheet === sheet && r >= x.row && r < x.row + x.nr && c >= x.col && c < x.col + x.nc))
        this.dirty.set(f, user);
    }
  }

  get pending(): boolean {
    return this.dirty.size > 0;
  }

  /** Runs every formula waiting for a recalculation, unless a script is running (it runs when that one ends). */
  drain(): void {
    if (this.draining || !this.host || this.host.currentUser() !== null) return;
    this.draining = true;
    try {
      // A formula run more than 100 times in one drain is a cycle (a column filled down is one run per formula).
      const runsOf = new Map<Formula, number>();
      while (this.dirty.size > 0) {
        const [f, user] = this.dirty.entries().next().value as [Formula, string];
        this.dirty.delete(f);
        runsOf.set(f, (runsOf.get(f) ?? 0) + 1);
        if (runsOf.get(f)! > 100) throw new Error('stand-in: formulas keep recalculating each other');
        if (this.formulas.get(this.key(f.sheet, f.row, f.col)) !== f) continue;
        this.evaluate(f, user);
      }
    } finally {
      this.draining = false;
    }
  }

  private parse(f: Formula): { name: string; args: string[] } {
    const m = /^=\s*([A-Za-z_][\w.]*)\s*\(([\s\S]*)\)\s*$/.exec(f.text);
    if (!m) throw new Error(`stand-in: formula ${f.text} is not modelled (one function call on literals and A1 references)`);
    return { name: m[1]!.toUpperCase(), args: splitArgs(m[2]!) };
  }

  private ref(f: Formula, a: string): Ref | null {
    const m = /^(?:(?:'([^']+)'|([^!'"]+))!)?\$?([A-Z]+)\$?(\d+)(?::\$?([A-Z]+)\$?(\d+))?$/i.exec(a);
    if (!m) return null;
    const name = m[1] ?? m[2];
    const sheet = name ? this.ss.sheets.find((s) => s.name === name) : f.sheet;
    if (!sheet) throw new Error(`stand-in: no sheet ${name} in ${f.text}`);
    const r1 = Number(m[4]);
    const c1 = colNum(m[3]!);
    const r2 = m[6] ? Number(m[6]) : r1;
    const c2 = m[5] ? colNum(m[5]) : c1;
    return { sheet, row: Math.min(r1, r2), col: Math.min(c1, c2), nr: Math.abs(r2 - r1) + 1, nc: Math.abs(c2 - c1) + 1 };
  }

  private refs(f: Formula): Ref[] {
    return this.parse(f)
      .args.map((a) => this.ref(f, a))
      .filter((x): x is Ref => x !== null);
  }

  private argValue(f: Formula, a: string): V {
    if (a === '') return undefined;
    if (/^".*"$/s.test(a)) return a.slice(1, -1).replace(/""/g, '"');
    if (/^-?\d+(\.\d+)?$/.test(a)) return Number(a);
    if (/^(TRUE|FALSE)$/i.test(a)) return a.toUpperCase() === 'TRUE';
    const r = this.ref(f, a);
    if (!r) throw new Error(`stand-in: argument ${a} of ${f.text} is not modelled`);
    const cell = (i: number, j: number) => {
      const v = r.sheet.get(r.row + i, r.col + j);
      return v instanceof Date ? this.ss.dateOf(v.getTime()) : v;
    };
    if (r.nr === 1 && r.nc === 1) return cell(0, 0);
    return Array.from({ length: r.nr }, (_, i) => Array.from({ length: r.nc }, (_, j) => cell(i, j)));
  }

  private evaluate(f: Formula, user: string): void {
    const { name, args } = this.parse(f);
    const values = args.map((a) => this.argValue(f, a));
    let grid: V[][];
    const k = this.key(f.sheet, f.row, f.col);
    this.runs++;
    this.ran.push(`${f.sheet.name}!${numToCol(f.col)}${f.row}`);
    try {
      const out = this.host!.runCustomFunction(user, name, values);
      grid = Array.isArray(out) ? out.map((row: V) => (Array.isArray(row) ? row : [row])) : [[out]];
      this.errors.delete(k);
    } catch (e) {
      grid = [['#ERROR!']];
      // The script's Error is of the vm's realm: read its message, not instanceof.
      const msg = (e as { message?: unknown } | null)?.message;
      this.errors.set(k, typeof msg === 'string' ? msg : String(e));
    }
    const nr = Math.max(1, grid.length);
    const nc = Math.max(1, ...grid.map((row) => row.length));
    const changed: [number, number][] = [];
    this.writing = true;
    try {
      for (let i = 0; i < Math.max(nr, f.out.nr); i++) {
        for (let j = 0; j < Math.max(nc, f.out.nc); j++) {
          const v = grid[i]?.[j];
          const cell = v === undefined || v === null ? '' : v;
          const was = f.sheet.get(f.row + i, f.col + j);
          if (was !== cell) changed.push([f.row + i, f.col + j]);
          f.sheet.set(f.row + i, f.col + j, cell);
        }
      }
    } finally {
      this.writing = false;
    }
    f.out = { nr, nc };
    for (const [r, c] of changed) this.markDependents(f.sheet, r, c, f);
  }
}
