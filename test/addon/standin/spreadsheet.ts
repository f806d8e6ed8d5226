/**
 * SpreadsheetApp's Spreadsheet, Sheet, Range and DeveloperMetadata, in memory. Every method runs
 * the guard (scopes from reference/spreadsheet/*, AuthMode: read only in custom functions). The
 * test's own helpers (get, set, row, cells) bypass it, as a person typing in Sheets would.
 */
import { checkTimeZone, displayValue, PLAIN_TEXT, typeValue } from './cell-values.js';
import { FormulaEngine } from './formulas.js';
import { GasError, type Guard } from './runtime.js';

type V = any;

export function colToNum(letters: string): number {
  return letters
    .toUpperCase()
    .split('')
    .reduce((n, c) => n * 26 + (c.charCodeAt(0) - 64), 0);
}
export function numToCol(n: number): string {
  let s = '';
  while (n > 0) {
    const m = (n - 1) % 26;
    s = String.fromCharCode(65 + m) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

const empty = (v: V) => v === '' || v === undefined || v === null;

/** reference/spreadsheet/boolean-criteria: the criteria the add-on's rules use. */
export const BooleanCriteria = {
  TEXT_EQUAL_TO: 'TEXT_EQUAL_TO',
  TEXT_STARTS_WITH: 'TEXT_STARTS_WITH',
  TEXT_CONTAINS: 'TEXT_CONTAINS',
} as const;

/** A built ConditionalFormatRule (reference/spreadsheet/conditional-format-rule): immutable; copy() gives a builder. */
export class FakeConditionalFormatRule {
  constructor(
    private guard: Guard,
    readonly criteria: { type: string; values: string[] },
    readonly format: { background: string | null; fontColor: string | null; bold: boolean | null },
    readonly ranges: FakeRange[],
  ) {}
  getRanges() {
    this.guard.call('ConditionalFormatRule.getRanges');
    return [...this.ranges];
  }
  getBooleanCondition() {
    this.guard.call('ConditionalFormatRule.getBooleanCondition');
    const c = this.criteria;
    const f = this.format;
    return {
      getCriteriaType: () => c.type,
      getCriteriaValues: () => [...c.values],
      getBackground: () => f.background,
      getFontColor: () => f.fontColor,
      getBold: () => f.bold,
    };
  }
  copy() {
    this.guard.call('ConditionalFormatRule.copy');
    return newConditionalFormatRule(this.guard, this);
  }
}

/**
 * SpreadsheetApp.newConditionalFormatRule() (reference/spreadsheet/conditional-format-rule-builder).
 * build() refuses ranges on more than one sheet: the Sheets API's ConditionalFormatRule says "All
 * the ranges must be on the same grid", and a rule belongs to one sheet.
 */
export function newConditionalFormatRule(guard: Guard, from?: FakeConditionalFormatRule) {
  const st = {
    criteria: from ? { ...from.criteria, values: [...from.criteria.values] } : (null as { type: string; values: string[] } | null),
    format: from
      ? { ...from.format }
      : { background: null as string | null, fontColor: null as string | null, bold: null as boolean | null },
    ranges: from ? [...from.ranges] : ([] as FakeRange[]),
  };
  const b: V = {
    whenTextEqualTo: (t: string) => ((st.criteria = { type: BooleanCriteria.TEXT_EQUAL_TO, values: [String(t)] }), b),
    whenTextStartsWith: (t: string) => ((st.criteria = { type: BooleanCriteria.TEXT_STARTS_WITH, values: [String(t)] }), b),
    whenTextContains: (t: string) => ((st.criteria = { type: BooleanCriteria.TEXT_CONTAINS, values: [String(t)] }), b),
    setBackground: (c: string | null) => ((st.format.background = c), b),
    setFontColor: (c: string | null) => ((st.format.fontColor = c), b),
    setBold: (x: boolean | null) => ((st.format.bold = x), b),
    setRanges: (rs: FakeRange[]) => {
      if (!Array.isArray(rs) || rs.some((r) => !(r instanceof FakeRange)))
        throw new GasError(
          "The parameters (String) don't match the method signature for SpreadsheetApp.ConditionalFormatRuleBuilder.setRanges.",
        );
      st.ranges = [...rs];
      return b;
    },
    build: () => {
      guard.call('ConditionalFormatRuleBuilder.build');
      if (!st.criteria) throw new GasError('Conditional format rule must have a condition.');
      if (new Set(st.ranges.map((r) => r.sheet)).size > 1)
        throw new GasError('All ranges of a conditional format rule must be on the same sheet.');
      return new FakeConditionalFormatRule(guard, st.criteria, { ...st.format }, [...st.ranges]);
    },
  };
  return b;
}

/**
 * A built RichTextValue (reference/spreadsheet/rich-text-value): its text and the link of the
 * whole value (getLinkUrl(): "null if there is no link"). Links on part of the text are not modelled.
 */
export class FakeRichTextValue {
  constructor(
    private guard: Guard,
    readonly text: string,
    readonly link: string | null,
  ) {}
  getText() {
    this.guard.call('RichTextValue.getText');
    return this.text;
  }
  getLinkUrl() {
    this.guard.call('RichTextValue.getLinkUrl');
    return this.link;
  }
}

/**
 * SpreadsheetApp.newRichTextValue() (reference/spreadsheet/rich-text-value-builder): setText "sets
 * the text for this value and clears any existing text style" (a link set before it goes too, so
 * the link is set after the text, as the reference's examples do); setLinkUrl(linkUrl) links the
 * entire value, null clears it. setLinkUrl(startOffset, endOffset, linkUrl) is not modelled.
 */
export function newRichTextValue(guard: Guard) {
  const st = { text: '', link: null as string | null };
  const b: V = {
    setText: (t: V) => {
      if (typeof t !== 'string')
        throw new GasError(
          `The parameters (${typeof t}) don't match the method signature for SpreadsheetApp.RichTextValueBuilder.setText.`,
        );
      st.text = t;
      st.link = null;
      return b;
    },
    setLinkUrl: (...a: V[]) => {
      if (a.length !== 1) throw new GasError('stand-in: RichTextValueBuilder.setLinkUrl(startOffset, endOffset, linkUrl) is not modelled');
      st.link = a[0] === null ? null : String(a[0]);
      return b;
    },
    build: () => {
      guard.call('RichTextValueBuilder.build');
      return new FakeRichTextValue(guard, st.text, st.link);
    },
  };
  return b;
}

/** Sheets' default grid: 1,000 rows (a new sheet), more when data goes further. */
const DEFAULT_MAX_ROWS = 1000;

export class FakeSheet {
  cells: V[][] = [];
  charts: V[] = [];
  /** Cell notes by "row,col" (1-based). */
  notes = new Map<string, string>();
  /** Links of whole cells (set with setRichTextValues) by "row,col" (1-based). */
  links = new Map<string, string>();
  hiddenColumns = new Set<number>();
  conditionalFormatRules: FakeConditionalFormatRule[] = [];
  /** Number formats by "row,col" (1-based): "@" (plain text), or the date format Sheets applied to a typed date. */
  formats = new Map<string, string>();
  constructor(
    public name: string,
    readonly parent: FakeSpreadsheet,
  ) {}
  private get g(): Guard {
    return this.parent.guard;
  }
  getName() {
    this.g.call('Sheet.getName');
    return this.name;
  }
  getParent() {
    this.g.call('Sheet.getParent');
    return this.parent;
  }
  getLastRow() {
    this.g.call('Sheet.getLastRow');
    return this.lastRow();
  }
  getLastColumn() {
    this.g.call('Sheet.getLastColumn');
    return this.lastColumn();
  }
  lastRow() {
    for (let r = this.cells.length; r >= 1; r--) if ((this.cells[r - 1] ?? []).some((v) => !empty(v))) return r;
    return 0;
  }
  lastColumn() {
    let max = 0;
    for (const row of this.cells)
      for (let c = row.length; c >= 1; c--)
        if (!empty(row[c - 1])) {
          max = Math.max(max, c);
          break;
        }
    return max;
  }
  get(r: number, c: number): V {
    // Edits are recalculated before anything reads the sheet (formulas.ts).
    if (this.parent.formulas.pending) this.parent.formulas.drain();
    return this.cells[r - 1]?.[c - 1] ?? '';
  }
  set(r: number, c: number, v: V) {
    while (this.cells.length < r) this.cells.push([]);
    const row = this.cells[r - 1]!;
    while (row.length < c) row.push('');
    row[c - 1] = v;
    this.parent.formulas.edited(this, r, c);
  }
  getRange(a: number | string, col?: number, nr = 1, nc = 1): FakeRange {
    this.g.call('Sheet.getRange');
    if (typeof a === 'string') {
      const m = /^([A-Z]+)(\d+)(?::([A-Z]+)(\d+))?$/i.exec(a.trim());
      if (!m) throw new GasError(`Range not found: ${a}`);
      const r1 = Number(m[2]);
      const c1 = colToNum(m[1]!);
      return new FakeRange(this, r1, c1, (m[4] ? Number(m[4]) : r1) - r1 + 1, (m[3] ? colToNum(m[3]) : c1) - c1 + 1);
    }
    if (!(a >= 1) || !(col! >= 1)) throw new GasError('The starting row and column of the range must be at least 1.');
    if (!(nr >= 1) || !(nc >= 1)) throw new GasError('The number of rows and columns in the range must be at least 1.');
    return new FakeRange(this, a, col!, nr, nc);
  }
  getDataRange() {
    this.g.call('Sheet.getDataRange');
    return new FakeRange(this, 1, 1, Math.max(1, this.lastRow()), Math.max(1, this.lastColumn()));
  }
  clearContents() {
    this.g.call('Sheet.clearContents');
    this.cells = [];
    this.parent.formulas.clearSheet(this);
    this.links.clear();
    return this;
  }
  /** reference/spreadsheet/sheet#clear: "Clears the sheet of content and formatting information." */
  clear() {
    this.g.call('Sheet.clear');
    this.cells = [];
    this.parent.formulas.clearSheet(this);
    this.links.clear();
    this.formats.clear();
    return this;
  }
  getCharts() {
    this.g.call('Sheet.getCharts');
    return [...this.charts];
  }
  insertChart(chart: V) {
    this.g.call('Sheet.insertChart');
    this.charts.push(chart);
  }
  removeChart(chart: V) {
    this.g.call('Sheet.removeChart');
    this.charts = this.charts.filter((c) => c !== chart);
  }
  newChart() {
    this.g.call('Sheet.newChart');
    const spec: V = { type: null, ranges: [] as string[], position: null, options: {} as Record<string, V> };
    const b: V = {
      setChartType: (t: V) => ((spec.type = t), b),
      addRange: (r: FakeRange) => (spec.ranges.push(`${numToCol(r.col)}${r.row}:${numToCol(r.col + r.nc - 1)}${r.row + r.nr - 1}`), b),
      setPosition: (...p: number[]) => ((spec.position = p), b),
      setOption: (k: string, v: V) => ((spec.options[k] = v), b),
      build: () => (this.g.call('EmbeddedChartBuilder.build'), { ...spec, getId: () => 'chart1' }),
    };
    return b;
  }
  getMaxRows() {
    this.g.call('Sheet.getMaxRows');
    return Math.max(DEFAULT_MAX_ROWS, this.cells.length);
  }
  /** reference/spreadsheet/sheet#hideColumns(columnIndex, numColumns). */
  hideColumns(index: number, num = 1) {
    this.g.call('Sheet.hideColumns');
    if (!(index >= 1) || !(num >= 1)) throw new GasError('Those columns are out of bounds.');
    for (let c = index; c < index + num; c++) this.hiddenColumns.add(c);
  }
  isColumnHiddenByUser(index: number) {
    this.g.call('Sheet.isColumnHiddenByUser');
    return this.hiddenColumns.has(index);
  }
  getConditionalFormatRules() {
    this.g.call('Sheet.getConditionalFormatRules');
    return [...this.conditionalFormatRules];
  }
  /**
   * reference/spreadsheet/sheet#setConditionalFormatRules: "Replaces all currently existing
   * conditional format rules in the sheet with the input rules." A rule whose ranges are on
   * another sheet is refused (a rule belongs to the sheet its ranges are on).
   */
  setConditionalFormatRules(rules: FakeConditionalFormatRule[]) {
    this.g.call('Sheet.setConditionalFormatRules');
    if (!Array.isArray(rules) || rules.some((r) => !(r instanceof FakeConditionalFormatRule)))
      throw new GasError('Invalid argument: rules');
    if (rules.some((r) => r.ranges.some((x) => x.sheet !== this)))
      throw new GasError('A conditional format rule cannot reference a different sheet.');
    this.conditionalFormatRules = [...rules];
  }
  /** Test helper: a cell's link (null when none). */
  link(r: number, c: number): string | null {
    return this.links.get(`${r},${c}`) ?? null;
  }
  /** Test helper: a cell's note ('' when none). */
  note(r: number, c: number): string {
    return this.notes.get(`${r},${c}`) ?? '';
  }
  /** Test helper: a whole row. */
  row(r: number): V[] {
    if (this.parent.formulas.pending) this.parent.formulas.drain();
    return [...(this.cells[r - 1] ?? [])];
  }
  /** Test helper: a cell's number format (null: Automatic). */
  format(r: number, c: number): string | null {
    return this.formats.get(`${r},${c}`) ?? null;
  }
  /** Test helper: the text a cell shows (what getDisplayValues reads). */
  display(r: number, c: number): string {
    const ss = this.parent;
    return displayValue(this.get(r, c), { locale: ss.locale, timeZone: ss.timeZone, format: this.format(r, c) });
  }
  /** Test helper: a person typing `v` into a cell: Sheets types it as setValue does (cell-values.ts). */
  type(r: number, c: number, v: V) {
    this.put(r, c, v);
  }
  /** A value entered into a cell (setValue(s), or typed): typed by cell-values.ts, its number format kept beside it. */
  put(r: number, c: number, v: V) {
    const ss = this.parent;
    const t = typeValue(v, { locale: ss.locale, timeZone: ss.timeZone, format: this.format(r, c) });
    this.set(r, c, t.value);
    if (t.format) this.formats.set(`${r},${c}`, t.format);
    else this.formats.delete(`${r},${c}`);
  }
}

export class FakeRange {
  constructor(
    readonly sheet: FakeSheet,
    readonly row: number,
    readonly col: number,
    readonly nr: number,
    readonly nc: number,
  ) {}
  private get g(): Guard {
    return this.sheet.parent.guard;
  }
  getSheet() {
    this.g.call('Range.getSheet');
    return this.sheet;
  }
  getRow() {
    this.g.call('Range.getRow');
    return this.row;
  }
  getColumn() {
    this.g.call('Range.getColumn');
    return this.col;
  }
  getLastRow() {
    this.g.call('Range.getLastRow');
    return this.row + this.nr - 1;
  }
  getLastColumn() {
    this.g.call('Range.getLastColumn');
    return this.col + this.nc - 1;
  }
  getNumRows() {
    this.g.call('Range.getNumRows');
    return this.nr;
  }
  getNumColumns() {
    this.g.call('Range.getNumColumns');
    return this.nc;
  }
  getA1Notation() {
    this.g.call('Range.getA1Notation');
    const a = `${numToCol(this.col)}${this.row}`;
    return this.nr === 1 && this.nc === 1 ? a : `${a}:${numToCol(this.col + this.nc - 1)}${this.row + this.nr - 1}`;
  }
  /** A cell's value as getValues returns it: a date as a Date of the running script's realm. */
  private valueAt(r: number, c: number): V {
    const v = this.sheet.get(r, c);
    return v instanceof Date ? this.sheet.parent.dateOf(v.getTime()) : v;
  }
  /** reference/spreadsheet/range#getValues: Number, Boolean, Date or String by the cell's value; '' when empty. */
  getValues(): V[][] {
    this.g.call('Range.getValues');
    return Array.from({ length: this.nr }, (_, i) => Array.from({ length: this.nc }, (_, j) => this.valueAt(this.row + i, this.col + j)));
  }
  getValue() {
    this.g.call('Range.getValue');
    return this.valueAt(this.row, this.col);
  }
  /** reference/spreadsheet/range#getDisplayValues: Strings, as the cells show them (formats, the spreadsheet's locale and time zone). */
  getDisplayValues(): string[][] {
    this.g.call('Range.getDisplayValues');
    return Array.from({ length: this.nr }, (_, i) =>
      Array.from({ length: this.nc }, (_, j) => this.sheet.display(this.row + i, this.col + j)),
    );
  }
  getDisplayValue(): string {
    this.g.call('Range.getDisplayValue');
    return this.sheet.display(this.row, this.col);
  }
  /**
   * reference/spreadsheet/range#setNumberFormat: the format of every cell of the range; "@" is
   * plain text (Format > Number > Plain text), after which typed text stays text. Only "@" and the
   * date patterns of cell-values.ts are modelled.
   */
  setNumberFormat(format: V) {
    this.g.call('Range.setNumberFormat');
    if (typeof format !== 'string')
      throw new GasError(`The parameters (${typeof format}) don't match the method signature for SpreadsheetApp.Range.setNumberFormat.`);
    if (format !== PLAIN_TEXT && !/^[yMdHms/.: -]+$/.test(format)) throw new Error(`stand-in: number format "${format}" is not modelled`);
    for (let i = 0; i < this.nr; i++) for (let j = 0; j < this.nc; j++) this.sheet.formats.set(`${this.row + i},${this.col + j}`, format);
    return this;
  }
  setValues(values: V[][]) {
    this.g.call('Range.setValues');
    // reference/spreadsheet/range#setValues: the data's dimensions must match the range's.
    if (!Array.isArray(values) || values.length !== this.nr || values.some((r) => !Array.isArray(r) || r.length !== this.nc)) {
      throw new GasError(
        `The number of rows in the data does not match the number of rows in the range. The data has ${values?.length} but the range has ${this.nr}.`,
      );
    }
    // Each value is entered as typed in the UI (cell-values.ts): numbers and dates become Number and Date.
    values.forEach((r, i) => r.forEach((v, j) => this.putValue(this.row + i, this.col + j, v, null, true)));
    this.sheet.parent.writes++;
    return this;
  }
  setValue(v: V) {
    this.g.call('Range.setValue');
    this.putValue(this.row, this.col, v, null, true);
    this.sheet.parent.writes++;
    return this;
  }
  /**
   * A written value replaces the cell's link: Sheets API CellData.textFormatRuns, "When writing a
   * new user_entered_value, previous runs are erased" (a RichTextValue's link is such a run).
   */
  private putValue(r: number, c: number, v: V, link: string | null, typed = false) {
    if (typed) this.sheet.put(r, c, v);
    else this.sheet.set(r, c, v);
    if (link) this.sheet.links.set(`${r},${c}`, link);
    else this.sheet.links.delete(`${r},${c}`);
  }
  /**
   * reference/spreadsheet/range#setRichTextValues(values): "Sets a rectangular grid of Rich Text
   * values"; its dimensions must match the range's, as for setValues (the same refusal), and each
   * must be a RichTextValue (the method's signature). A cell's value becomes the value's text, a
   * string, and its link the value's link.
   */
  setRichTextValues(values: V[][]) {
    this.g.call('Range.setRichTextValues');
    if (!Array.isArray(values) || values.length !== this.nr || values.some((r) => !Array.isArray(r) || r.length !== this.nc)) {
      throw new GasError(
        `The number of rows in the data does not match the number of rows in the range. The data has ${values?.length} but the range has ${this.nr}.`,
      );
    }
    if (values.some((r) => r.some((v) => !(v instanceof FakeRichTextValue))))
      throw new GasError("The parameters (Object[][]) don't match the method signature for SpreadsheetApp.Range.setRichTextValues.");
    values.forEach((r, i) => r.forEach((v: FakeRichTextValue, j) => this.putValue(this.row + i, this.col + j, v.text, v.link)));
    this.sheet.parent.writes++;
    this.sheet.parent.richTextWrites++;
    return this;
  }
  /** reference/spreadsheet/range#getRichTextValues: a RichTextValue per cell, null where the cell's value is not text (a number, a date, a boolean). */
  getRichTextValues(): (FakeRichTextValue | null)[][] {
    this.g.call('Range.getRichTextValues');
    return Array.from({ length: this.nr }, (_, i) =>
      Array.from({ length: this.nc }, (_, j) => {
        const v = this.sheet.get(this.row + i, this.col + j);
        return typeof v === 'string' ? new FakeRichTextValue(this.g, v, this.sheet.link(this.row + i, this.col + j)) : null;
      }),
    );
  }
  private putNote(r: number, c: number, n: V) {
    const text = n === null || n === undefined ? '' : String(n);
    if (text) this.sheet.notes.set(`${r},${c}`, text);
    else this.sheet.notes.delete(`${r},${c}`);
  }
  /** reference/spreadsheet/range#setNote: an empty string or null clears the note; the top-left cell of the range. */
  setNote(n: V) {
    this.g.call('Range.setNote');
    this.putNote(this.row, this.col, n);
    this.sheet.parent.noteWrites++;
    return this;
  }
  /** reference/spreadsheet/range#setNotes: "The dimensions of the notes must match the dimensions of the range" (as setValues). */
  setNotes(notes: V[][]) {
    this.g.call('Range.setNotes');
    if (!Array.isArray(notes) || notes.length !== this.nr || notes.some((r) => !Array.isArray(r) || r.length !== this.nc)) {
      throw new GasError(
        `The number of rows in the data does not match the number of rows in the range. The data has ${notes?.length} but the range has ${this.nr}.`,
      );
    }
    notes.forEach((r, i) => r.forEach((n, j) => this.putNote(this.row + i, this.col + j, n)));
    this.sheet.parent.noteWrites++;
    return this;
  }
  getNote() {
    this.g.call('Range.getNote');
    return this.sheet.note(this.row, this.col);
  }
  getNotes() {
    this.g.call('Range.getNotes');
    return Array.from({ length: this.nr }, (_, i) =>
      Array.from({ length: this.nc }, (_, j) => this.sheet.note(this.row + i, this.col + j)),
    );
  }
  /** reference/spreadsheet/range#getFormulas: each cell's formula, "" where it holds none (formulas.ts). */
  getFormulas(): string[][] {
    this.g.call('Range.getFormulas');
    const f = this.sheet.parent.formulas;
    return Array.from({ length: this.nr }, (_, i) =>
      Array.from({ length: this.nc }, (_, j) => f.formulaAt(this.sheet, this.row + i, this.col + j)),
    );
  }
  getFormula(): string {
    this.g.call('Range.getFormula');
    return this.sheet.parent.formulas.formulaAt(this.sheet, this.row, this.col);
  }
  /** reference/spreadsheet/range#setFormulas: dimensions must match the range's (as setValues); each formula is entered, so it is calculated (formulas.ts). */
  setFormulas(formulas: V[][]) {
    this.g.call('Range.setFormulas');
    if (!Array.isArray(formulas) || formulas.length !== this.nr || formulas.some((r) => !Array.isArray(r) || r.length !== this.nc)) {
      throw new GasError(
        `The number of rows in the data does not match the number of rows in the range. The data has ${formulas?.length} but the range has ${this.nr}.`,
      );
    }
    formulas.forEach((r, i) => r.forEach((t, j) => this.sheet.parent.formulas.setFormula(this.sheet, this.row + i, this.col + j, t)));
    this.sheet.parent.writes++;
    return this;
  }
  /** reference/spreadsheet/range#setFormula: the top-left cell's formula. */
  setFormula(formula: V) {
    this.g.call('Range.setFormula');
    this.sheet.parent.formulas.setFormula(this.sheet, this.row, this.col, formula);
    this.sheet.parent.writes++;
    return this;
  }
  /** reference/spreadsheet/range#activate: the range becomes the active range, its sheet the active sheet. */
  activate() {
    this.g.call('Range.activate');
    this.sheet.parent.active = this.sheet;
    this.sheet.parent.activeRange = this;
    return this;
  }
}

/** reference/spreadsheet/developer-metadata-visibility */
export const DeveloperMetadataVisibility = { DOCUMENT: 'DOCUMENT', PROJECT: 'PROJECT' } as const;
export type TVisibility = keyof typeof DeveloperMetadataVisibility;

export interface MetadataEvent {
  op: 'add' | 'remove';
  spreadsheetId: string;
  id: number;
  key: string;
  value: string | null;
  visibility: TVisibility;
}

export class FakeDeveloperMetadata {
  constructor(
    private ss: FakeSpreadsheet,
    readonly id: number,
    readonly key: string,
    readonly value: string | null,
    readonly visibility: TVisibility,
  ) {}
  getId() {
    this.ss.guard.call('DeveloperMetadata.getId');
    return this.id;
  }
  getKey() {
    this.ss.guard.call('DeveloperMetadata.getKey');
    return this.key;
  }
  getValue() {
    this.ss.guard.call('DeveloperMetadata.getValue');
    return this.value;
  }
  getVisibility() {
    this.ss.guard.call('DeveloperMetadata.getVisibility');
    return this.visibility;
  }
  remove() {
    this.ss.guard.call('DeveloperMetadata.remove');
    this.ss.removeMetadata(this.id);
  }
}

export class FakeSpreadsheet {
  sheets: FakeSheet[] = [];
  active: FakeSheet;
  activeRange: FakeRange | null = null;
  toasts: string[] = [];
  writes = 0;
  noteWrites = 0;
  /** setRichTextValues calls (also counted in writes). */
  richTextWrites = 0;
  /** reference/spreadsheet/spreadsheet#getSpreadsheetLocale: e.g. en_US, de_DE. */
  locale = 'en_US';
  /**
   * reference/spreadsheet/spreadsheet#getSpreadsheetTimeZone. The spreadsheet's own zone, not the
   * script's (the manifest's timeZone): by default London, ahead of UTC in summer, so code that
   * reads dates in the script's zone is caught.
   */
  timeZone = 'Europe/London';
  /** Makes the Date a script gets from getValues: World sets it to the execution's Date, so `instanceof Date` holds in the script. */
  dateOf: (ms: number) => Date = (ms) => new Date(ms);
  /** Developer metadata on the spreadsheet itself (location SPREADSHEET). */
  metadata: FakeDeveloperMetadata[] = [];
  /** Formulas and their recalculation (formulas.ts); World connects it to its executions. */
  readonly formulas = new FormulaEngine(this);
  private nextMetadataId = 1000;
  constructor(
    readonly id: string,
    readonly guard: Guard,
    /** Called on every metadata change, so a test can mirror it into the Sheets API stand-in the connector reads. */
    public onMetadata: ((e: MetadataEvent) => void) | null = null,
  ) {
    this.active = new FakeSheet('Sheet1', this);
    this.sheets.push(this.active);
  }
  getId() {
    this.guard.call('Spreadsheet.getId');
    return this.id;
  }
  getActiveSheet() {
    this.guard.call('Spreadsheet.getActiveSheet');
    return this.active;
  }
  setActiveSheet(s: FakeSheet) {
    this.guard.call('Spreadsheet.setActiveSheet');
    this.active = s;
    return s;
  }
  getActiveRange() {
    this.guard.call('Spreadsheet.getActiveRange');
    return this.activeRange;
  }
  getSheetByName(n: string) {
    this.guard.call('Spreadsheet.getSheetByName');
    return this.sheets.find((s) => s.name === n) ?? null;
  }
  getSheets() {
    this.guard.call('Spreadsheet.getSheets');
    return [...this.sheets];
  }
  insertSheet(n: string) {
    this.guard.call('Spreadsheet.insertSheet');
    if (this.sheets.some((s) => s.name === n))
      throw new GasError(`A sheet with the name "${n}" already exists. Please enter another name.`);
    const s = new FakeSheet(n, this);
    this.sheets.push(s);
    return s;
  }
  getSpreadsheetLocale() {
    this.guard.call('Spreadsheet.getSpreadsheetLocale');
    return this.locale;
  }
  getSpreadsheetTimeZone() {
    this.guard.call('Spreadsheet.getSpreadsheetTimeZone');
    return this.timeZone;
  }
  /** reference/spreadsheet/spreadsheet#setSpreadsheetTimeZone(timezone): a zone Apps Script knows, else it throws. */
  setSpreadsheetTimeZone(tz: V) {
    this.guard.call('Spreadsheet.setSpreadsheetTimeZone');
    this.timeZone = checkTimeZone(tz);
  }
  toast(msg: string) {
    this.guard.call('Spreadsheet.toast');
    this.toasts.push(msg);
  }
  /** reference/spreadsheet/spreadsheet#addDeveloperMetadata: (key), (key, value), (key, visibility), (key, value, visibility); returns the spreadsheet. */
  addDeveloperMetadata(key: string, a?: string, b?: string) {
    this.guard.call('Spreadsheet.addDeveloperMetadata');
    const isVis = (x: unknown) => x === 'DOCUMENT' || x === 'PROJECT';
    const value = a !== undefined && !isVis(a) ? String(a) : null;
    const visibility = (isVis(a) ? a : (b ?? 'PROJECT')) as string;
    if (typeof key !== 'string' || key === '') throw new GasError('Developer metadata must have a key.');
    if (!isVis(visibility)) throw new GasError(`Invalid argument: visibility ${visibility}`);
    const md = new FakeDeveloperMetadata(this, this.nextMetadataId++, key, value, visibility as TVisibility);
    this.metadata.push(md);
    this.onMetadata?.({ op: 'add', spreadsheetId: this.id, id: md.id, key, value, visibility: md.visibility });
    return this;
  }
  getDeveloperMetadata() {
    this.guard.call('Spreadsheet.getDeveloperMetadata');
    return [...this.metadata];
  }
  createDeveloperMetadataFinder() {
    this.guard.call('Spreadsheet.createDeveloperMetadataFinder');
    const f = { key: null as string | null, value: null as string | null, visibility: null as string | null, id: null as number | null };
    const finder: V = {
      withKey: (k: string) => ((f.key = k), finder),
      withValue: (v: string) => ((f.value = v), finder),
      withVisibility: (v: string) => ((f.visibility = v), finder),
      withId: (i: number) => ((f.id = i), finder),
      find: () => {
        this.guard.call('DeveloperMetadataFinder.find');
        return this.metadata.filter(
          (m) =>
            (f.key === null || m.key === f.key) &&
            (f.value === null || m.value === f.value) &&
            (f.visibility === null || m.visibility === f.visibility) &&
            (f.id === null || m.id === f.id),
        );
      },
    };
    return finder;
  }
  removeMetadata(id: number) {
    const md = this.metadata.find((m) => m.id === id);
    if (!md) return;
    this.metadata = this.metadata.filter((m) => m.id !== id);
    this.onMetadata?.({ op: 'remove', spreadsheetId: this.id, id, key: md.key, value: md.value, visibility: md.visibility });
  }
}
