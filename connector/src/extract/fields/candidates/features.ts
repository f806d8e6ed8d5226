/** Features every generator gives its candidates: how labels point at the value, distractor words near it, its position, its repeats. */
import type { LabelKind } from '../labels.js';
import type { FieldCandidate } from './candidate.js';
import { lastCell, type DocumentIndex, type LabelHit, type Span } from './document-index.js';
import { COPULAS } from './vocabulary.js';

export type Relations = Record<string, number>;

/** How much nearer (in page units) a header two rows up must sit over a value than the row right above, to be its column's. */
const COLUMN_SLACK = 30;

/**
 * How labels point at a value: the nearest label before it on its line (in its cell: right after it or
 * within a sentence; or in a cell to its left), and a label in the same column on the line above.
 */
export function labelRelations(doc: DocumentIndex, span: Span, own: readonly LabelKind[], leadIn?: RegExp): Relations {
  const f: Relations = {};
  const before = doc.hits[span.line]!.filter((h) => h.end <= span.start);
  const nearest = before[before.length - 1];
  const tag = (h: LabelHit): string => (own.includes(h.kind) ? `lab_${h.kind === own[0] ? 'own' : 'alt'}` : 'lab_other');
  if (nearest) {
    const t = tag(nearest);
    const text = doc.lines[span.line]!.text;
    const labelEnd = lastCell(nearest);
    if (labelEnd === span.cell) {
      const gap = text.slice(nearest.end, span.start);
      let rest = gap.replace(COPULAS, '');
      if (leadIn) rest = rest.replace(leadIn, '');
      if (rest.trim() === '') f[`${t}_adj`] = 1;
      else {
        const n = rest.trim().split(/\s+/).length;
        if (n <= 14) f[`${t}_sent`] = 1 - n / 16;
      }
    } else if (labelEnd < span.cell) {
      // Only the cell right after the label is its value; further right is another column's.
      if (labelEnd === span.cell - 1) f[`${t}_left`] = 1;
      else f[`${t}_left_far`] = 1;
    }
    if (nearest.fuzzy) f.lab_fuzzy = 1;
    if (nearest.secondary && t !== 'lab_other') f.lab_secondary = 1;
  }
  // A label ending the line before ("... pour la période du" / "01/03/2026 au ..."): the first value of this line.
  const prev = span.line > 0 ? doc.hits[span.line - 1]!.at(-1) : undefined;
  if (prev && !nearest) {
    const after = doc.folded[span.line - 1]!.slice(prev.end).replace(/\b(?:du|vom|from|le|am|den)\b/g, '');
    const beforeValue = doc.lines[span.line]!.text.slice(0, span.start);
    if (after.replace(/[\s:.,]/g, '').length === 0 && !/[A-Za-z]{3}/.test(beforeValue)) f[`${tag(prev)}_wrap`] = 1;
  }
  // Column above: the label line's hit whose x is nearest this value's cell (tables, label rows). A row of
  // sub-headers ("vom" "bis" under "Versicherungszeitraum") may have nothing over this column while the header
  // row above it has: then the header row is the one above.
  const x = doc.spans[span.line]![span.cell]?.x ?? 0;
  const dx = (i: number): number => (i < 0 ? Infinity : Math.min(...doc.spans[i]!.map((c) => Math.abs(c.x - x))));
  const skipsRow = dx(span.line - 2) + COLUMN_SLACK < dx(span.line - 1);
  for (const back of [1, 2]) {
    const i = span.line - back;
    if (i < 0) break;
    if (back === 1 && skipsRow) continue;
    if (back === 2 && doc.hits[span.line - 1]!.length > 0 && !skipsRow) break;
    const above = doc.hits[i]!;
    if (above.length === 0) continue;
    const aboveCells = doc.spans[i]!;
    let bestCell = 0;
    aboveCells.forEach((c, k) => {
      if (Math.abs(c.x - x) < Math.abs(aboveCells[bestCell]!.x - x)) bestCell = k;
    });
    const h = above.filter((a) => a.cell === bestCell).pop();
    if (!h) continue;
    // The label's own cell holds nothing after it (a header), and the value is in that column or the line is one cell.
    const cellEnd = aboveCells[h.cell]!.end;
    const after = doc.lines[i]!.text.slice(h.end, cellEnd).replace(/[\s:.]/g, '');
    if (after.length > 2) continue;
    // A label whose value stands in the cell to its right (a key-value row, not a header row) heads no column.
    const right = aboveCells[h.cell + 1];
    if (right && /\d/.test(doc.lines[i]!.text.slice(right.start, right.end)) && !above.some((a) => a.cell === h.cell + 1)) continue;
    f[`${tag(h)}_above`] = back === 1 ? 1 : 0.7;
    if (h.secondary && tag(h) !== 'lab_other') f.lab_secondary = 1;
    break;
  }
  return f;
}

/** Distractor words near a span: before it in its cell or in the cell to its left, and anywhere on its line. */
export function distractors(doc: DocumentIndex, span: Span, re: RegExp): Relations {
  const f: Relations = {};
  const folded = doc.folded[span.line]!;
  const spans = doc.spans[span.line]!;
  const from = spans[Math.max(0, span.cell - 1)]?.start ?? 0;
  const near = folded.slice(from, span.start);
  const hit = (s: string): boolean => re.test(s);
  // A form field's name says what its value is as its label would ("customer number", "telefon").
  const field = doc.fieldOf(span);
  if (hit(near) || (field !== undefined && hit(field))) f.distract_near = 1;
  else if (hit(folded)) f.distract_line = 1;
  if (span.line > 0 && hit(doc.folded[span.line - 1]!) && (doc.spans[span.line - 1]?.length ?? 0) > 1) f.distract_above = 0.5;
  return f;
}

export function positionFeatures(doc: DocumentIndex, line: number): Relations {
  const f: Relations = {};
  const l = doc.lines[line]!;
  if (l.ocr) f.ocr = 1;
  if ((l.page ?? 1) > 1) f.page2 = 1;
  const [k, n] = doc.pagePos[line]!;
  if (k < Math.max(3, n * 0.15)) f.top = 1;
  if (k >= n - Math.max(3, n * 0.15)) f.bottom = 1;
  return f;
}

/** Adds the "how often does this value occur" feature and returns the candidates. */
export function withRepeats(cands: FieldCandidate[]): FieldCandidate[] {
  const lines = new Map<string, Set<number>>();
  for (const c of cands) (lines.get(c.key) ?? lines.set(c.key, new Set()).get(c.key)!).add(c.line);
  for (const c of cands) c.features.repeat = Math.min(3, Math.log2(lines.get(c.key)!.size));
  return cands;
}
