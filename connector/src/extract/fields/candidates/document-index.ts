/** The document as the candidate generators see it, built once: folded lines, cells, label hits, and each line's dates and plates. */
import type { TCountry } from '../../../../../shared/packs/index.js';
import { CELL_GAP, type Line } from '../../reading/lines.js';
import { findDates, type FoundDate } from '../dates.js';
import { LABELS, type LabelKind } from '../labels.js';
import { findPlates, type FoundPlate } from '../plates.js';
import type { FieldLine } from '../letter-spacing.js';
import { isPrintChrome } from '../print-chrome.js';
import { fold, spacesOptional } from '../text.js';
import { PERIOD_COLUMN, SECONDARY } from './vocabulary.js';

export interface LabelHit {
  kind: LabelKind;
  line: number;
  /** The cell the label starts in (the column a label row heads). */
  cell: number;
  /**
   * The cell it ends in, when a later one: a label whose words stand in cells of their own ("POLICY", "NUMBER",
   * letter-spaced words a column's width apart) is followed by its value there.
   */
  endCell?: number;
  start: number;
  end: number;
  x: number;
  fuzzy: boolean;
  secondary: boolean;
}

export interface Span {
  line: number;
  cell: number;
  start: number;
  end: number;
}

const GLOBAL_LABELS = Object.fromEntries(
  Object.entries(LABELS).map(([k, res]) => [k, res.map((r) => new RegExp(r.source, r.flags.includes('g') ? r.flags : `${r.flags}g`))]),
) as Record<LabelKind, RegExp[]>;

/** Any label of any kind (the same patterns and flags as one alternation): most lines hold none, and one scan says so. */
const ANY_LABEL = new RegExp(
  Object.values(LABELS)
    .flatMap((res) => res.map((r) => `(?:${r.source})`))
    .join('|'),
);

/** The label patterns with every space optional, for lines whose letter-spaced words lost their gaps. */
const GAPLESS_LABELS = Object.fromEntries(
  Object.entries(GLOBAL_LABELS).map(([k, res]) => [k, res.map((r) => new RegExp(spacesOptional(r.source), r.flags))]),
) as Record<LabelKind, RegExp[]>;
const ANY_GAPLESS = new RegExp(
  Object.values(GAPLESS_LABELS)
    .flatMap((res) => res.map((r) => `(?:${r.source})`))
    .join('|'),
);

/** Every match of every label pattern in `text`, kind by kind in LABELS' order. */
function* labelMatches(text: string, gapless = false): Generator<[LabelKind, RegExpExecArray]> {
  const [any, labels] = gapless ? [ANY_GAPLESS, GAPLESS_LABELS] : [ANY_LABEL, GLOBAL_LABELS];
  if (!any.test(text)) return;
  for (const kind of Object.keys(labels) as LabelKind[]) {
    for (const re of labels[kind]) for (const m of text.matchAll(re)) yield [kind, m];
  }
}

/**
 * The label kind a form field's name states ("policy number", "versicherungsbeginn", "numero contrat"): the longest
 * label match in its words, read with their spaces optional too ("policyno").
 */
function fieldNameLabel(name: string): LabelKind | null {
  let best: { kind: LabelKind; length: number } | null = null;
  for (const gapless of [false, true])
    for (const [kind, m] of labelMatches(name, gapless)) if (!best || m[0].length > best.length) best = { kind, length: m[0].length };
  return best?.kind ?? null;
}

/**
 * A word of ten or more capitals with no space in it ("NUMÉRODEPOLICE", "DATEOFEXPIRY"): a letter-spaced label the
 * reader closed up (text-layer.ts joins evenly spaced characters) without its word gaps, which letter-spacing.ts
 * never saw spaced. Its line is read with label spaces optional too.
 */
const CLOSED_RUN = /(?:^|\s)[\p{Lu}'’°]{10,}(?=[\s:]|$)/u;

/** Offsets of each cell in `line.text`. */
function cellSpans(line: Line): Array<{ start: number; end: number; x: number }> {
  const spans: Array<{ start: number; end: number; x: number }> = [];
  let pos = 0;
  for (const c of line.cells) {
    spans.push({ start: pos, end: pos + c.text.length, x: c.x });
    pos += c.text.length + CELL_GAP.length;
  }
  return spans;
}
/** The cell a label ends in, beside its value. */
export const lastCell = (h: LabelHit): number => h.endCell ?? h.cell;

const cellAt = (spans: Array<{ start: number; end: number }>, offset: number): number =>
  Math.max(
    0,
    spans.findIndex((s) => offset < s.end + CELL_GAP.length),
  );

/** OCR look-alike digits read back as the letters of a label ("P0licy", "Ablauf" as "AbIauf" folds to "ablauf"). */
const lettersOf = (s: string): string => s.replace(/0/g, 'o').replace(/1/g, 'l').replace(/5/g, 's');
/** A soft "w" OCR'd as "v" ("Undervritten by" on a phone photo), read back: a second look for labels with a "w". */
const wOf = (s: string): string => s.replace(/v/g, 'w');

/** The document as the candidate generators see it: folded lines, cells, label hits, distractor spans. */
export class DocumentIndex {
  readonly folded: string[];
  readonly spans: Array<Array<{ start: number; end: number; x: number }>>;
  readonly hits: LabelHit[][];
  /** Line index within its page, and the page's line count, print chrome not counted. */
  readonly pagePos: Array<[number, number]>;
  /** Lines a browser or mail client printed around the document (print-chrome.ts): no field is read from them. */
  readonly chrome: boolean[];
  /** Each cell's form field name, folded, where the reader found one that says something (reading/form-fields.ts). */
  readonly fieldNames: Array<Array<string | undefined>>;
  /** Lines whose letter-spaced words may have lost their gaps: labels and cues are also read there with spaces optional. */
  readonly gapless: boolean[];
  constructor(readonly lines: Line[]) {
    this.folded = lines.map((l) => fold(l.text));
    this.fieldNames = lines.map((l) => l.cells.map((c) => (c.field ? fold(c.field) : undefined)));
    this.gapless = lines.map((l) => !!(l as FieldLine).closedUp || CLOSED_RUN.test(l.text));
    this.spans = lines.map(cellSpans);
    this.chrome = lines.map((l) => isPrintChrome(l.text));
    const perPage = new Map<number, number>();
    this.pagePos = lines.map((l, i) => {
      const p = l.page ?? 1;
      const k = perPage.get(p) ?? 0;
      if (!this.chrome[i]) perPage.set(p, k + 1);
      return [k, 0];
    });
    this.pagePos.forEach((pp, i) => (pp[1] = perPage.get(this.lines[i]!.page ?? 1) ?? 1));
    this.hits = lines.map((l, i) => this.findHits(i));
  }

  private findHits(i: number): LabelHit[] {
    const line = this.lines[i]!;
    const texts: Array<[string, boolean, boolean]> = [[this.folded[i]!, false, false]];
    if (line.ocr) texts.push([lettersOf(this.folded[i]!), true, false], [wOf(this.folded[i]!), true, false]);
    if (this.gapless[i]) texts.push([this.folded[i]!, false, true]);
    const out: LabelHit[] = [];
    for (const [text, fuzzy, gapless] of texts) {
      for (const [kind, m] of labelMatches(text, gapless)) {
        const start = m.index;
        const end = start + m[0].length;
        if (out.some((h) => h.kind === kind && start < h.end && end > h.start)) continue;
        // Words of a name, not a label: "... Victoria Insurance Company Limited" (capitalised, after a capitalised word).
        if (
          kind === 'insurer' &&
          /^\p{Lu}/u.test(line.text.slice(start)) &&
          /\p{Lu}[\p{L}&+-]*\s$/u.test(line.text.slice(Math.max(0, start - 30), start))
        )
          continue;
        const cell = cellAt(this.spans[i]!, start);
        const endCell = cellAt(this.spans[i]!, end - 1);
        const cellText = this.folded[i]!.slice(this.spans[i]![cell]?.start ?? 0, end);
        out.push({
          kind,
          line: i,
          cell,
          ...(endCell > cell ? { endCell } : {}),
          start,
          end,
          x: this.spans[i]![cell]?.x ?? 0,
          fuzzy,
          secondary: SECONDARY.test(cellText),
        });
      }
    }
    // A label broken across lines ("... titulaire du contrat d'assurance voyage" / "n° 230949515 ..."): the previous
    // line's last words joined to this line's start; a match that ends in this line is a label at its start.
    if (i > 0 && (this.lines[i - 1]!.page ?? 1) === (line.page ?? 1)) {
      const tail = `${this.folded[i - 1]!.split(/\s+/).slice(-4).join(' ')} `;
      const joined = tail + this.folded[i]!;
      for (const [kind, m] of labelMatches(joined)) {
        const end = m.index + m[0].length - tail.length;
        if (m.index >= tail.length || end <= 0 || out.some((h) => h.start < end)) continue;
        out.push({
          kind,
          line: i,
          cell: 0,
          start: 0,
          end,
          x: this.spans[i]![0]?.x ?? 0,
          fuzzy: false,
          secondary: SECONDARY.test(joined.slice(0, m.index + m[0].length)),
        });
      }
    }
    // Sub-headers of a period column ("vom" / "bis" under "Versicherungszeitraum"): a row of cells, each a heading.
    if (line.cells.length >= 2)
      this.spans[i]!.forEach((s, cell) => {
        const text = this.folded[i]!.slice(s.start, s.end).trim();
        const kind = PERIOD_COLUMN.start.test(text) ? 'start' : PERIOD_COLUMN.end.test(text) ? 'end' : null;
        if (kind && !out.some((h) => h.cell === cell))
          out.push({ kind, line: i, cell, start: s.start, end: s.end, x: s.x, fuzzy: false, secondary: false });
      });
    // A form field named for what it holds labels its value as a label printed right before it would, whether or not
    // the page prints one: a form filled on screen often has none beside the box.
    this.fieldNames[i]!.forEach((name, cell) => {
      const kind = name ? fieldNameLabel(name) : null;
      if (!kind || out.some((h) => h.cell === cell && h.kind === kind)) return;
      const at = this.spans[i]![cell]!.start;
      out.push({ kind, line: i, cell, start: at, end: at, x: this.spans[i]![cell]!.x, fuzzy: false, secondary: SECONDARY.test(name!) });
    });
    return out.sort((a, b) => a.start - b.start);
  }

  /** The form field name of a span's cell, folded, when it says something. */
  fieldOf(span: Span): string | undefined {
    return this.fieldNames[span.line]![span.cell];
  }

  cellOf(line: number, offset: number): number {
    return cellAt(this.spans[line]!, offset);
  }

  private readonly datesCache: Array<FoundDate[] | undefined> = [];
  /** findDates of a line, read once for the policy-number and the date generators alike. */
  datesOf(line: number): FoundDate[] {
    return (this.datesCache[line] ??= findDates(this.lines[line]!.text));
  }

  private readonly platesCache = new Map<TCountry, Array<FoundPlate[] | undefined>>();
  /** findPlates of a line, per country read once: the plates are read before the country is known and again after. */
  platesOf(line: number, countries: readonly TCountry[]): FoundPlate[] {
    return countries.flatMap((c) => {
      const perLine = this.platesCache.get(c) ?? this.platesCache.set(c, []).get(c)!;
      return (perLine[line] ??= findPlates(this.lines[line]!.text, [c]));
    });
  }
}
