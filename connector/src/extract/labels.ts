/** Label vocabularies (every language pack's) and how to find the value that belongs to a label. */
import { ALL_LANGUAGE_PACKS, LABEL_KINDS, type TLabelKind } from '../../../shared/packs/index.js';
import { CELL_GAP, type Line } from './lines.js';
import { fold } from './text.js';

export type LabelKind = TLabelKind;

/**
 * Label patterns, matched on folded text (lower case, no accents): every language pack's, in registry
 * order. One list for all languages: a German document may say "Policen-Nr." and an English one from a
 * French insurer "N° de police". The packs include OCR variants of "N°" ("N*", "Nº", "No").
 */
export const LABELS: Record<LabelKind, RegExp[]> = Object.fromEntries(LABEL_KINDS.map((k) => [k, ALL_LANGUAGE_PACKS.flatMap((p) => p.labels[k])])) as Record<LabelKind, RegExp[]>;

/** Words around a number that say it is not the policy number (customer ids, phone, company register...), from every pack. */
export const NOT_POLICY_CONTEXT = new RegExp(`\\b(?:${[...new Set(ALL_LANGUAGE_PACKS.flatMap((p) => p.notPolicyContext))].join('|')})\\b`);

/** A value found for a label, and how sure its position makes us (same line beats the line below). */
export interface LabelledValue {
  text: string;
  line: number;
  position: number;
}

/** Label match inside a line, as offsets in the line's text. */
interface LabelHit {
  start: number;
  end: number;
}

function findLabel(line: Line, patterns: RegExp[]): LabelHit | null {
  const folded = fold(line.text);
  for (const re of patterns) {
    const m = re.exec(folded);
    if (m) return { start: m.index, end: m.index + m[0].length };
  }
  return null;
}

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

/** Filler between a label and its value: punctuation and each pack's copulas ("is", "lautet", "est"). */
const FILLER = new RegExp(`^[\\s:;.,|\\-–—=]*(?:(?:${ALL_LANGUAGE_PACKS.flatMap((p) => p.copulas).join('|')}|:)\\s+)?[\\s:;|]*`, 'i');

/**
 * Values for a label, best first: the rest of the label's cell, the next cell on the line, the
 * cell under the label in the next line (tables), the whole next line.
 */
export function labelledValues(lines: Line[], kind: LabelKind): LabelledValue[] {
  const out: LabelledValue[] = [];
  lines.forEach((line, i) => {
    const hit = findLabel(line, LABELS[kind]);
    if (!hit) return;
    const spans = cellSpans(line);
    const cellIdx = Math.max(0, spans.findIndex((s) => hit.start >= s.start && hit.start < s.end + CELL_GAP.length));
    const cell = spans[cellIdx];
    const restOfCell = line.text.slice(hit.end, cell ? cell.end : undefined).replace(FILLER, '').trim();
    if (restOfCell.length > 0) out.push({ text: restOfCell, line: i, position: 1 });
    // Every cell to the right: OCR leaves specks (":", "ee") between a label and its value.
    const nextCell = line.cells[cellIdx + 1];
    line.cells.slice(cellIdx + 1).forEach((c, k) => out.push({ text: c.text, line: i, position: 0.95 - 0.02 * k }));
    const below = lines[i + 1];
    if (below && cell) {
      const labelX = cell.x;
      const nearest = [...below.cells].sort((a, b) => Math.abs(a.x - labelX) - Math.abs(b.x - labelX))[0];
      if (nearest && below.cells.length > 1) out.push({ text: nearest.text, line: i + 1, position: 0.9 });
      else if (nearest && restOfCell.length === 0 && !nextCell) out.push({ text: below.text, line: i + 1, position: 0.8 });
    }
  });
  return out;
}
