/** Label vocabularies (English, German, French) and how to find the value that belongs to a label. */
import { CELL_GAP, type Line } from './lines.js';
import { fold } from './text.js';

export type LabelKind = 'policy' | 'insurer' | 'start' | 'end' | 'period' | 'registration';

/**
 * Label patterns, matched on folded text (lower case, no accents). One list for all languages: a
 * German document may say "Policen-Nr." and an English one from a French insurer "N° de police".
 * OCR variants of "N°" ("N*", "Nº", "No") are included.
 */
export const LABELS: Record<LabelKind, RegExp[]> = {
  policy: [
    /\b(?:policy|certificate|membership|member|contract|agreement)\s*(?:number|no\b\.?|n[o°º*]\.?|ref(?:erence)?\b\.?|#)/,
    /(?:versicherungsschein|versicherungs|vertrags|polic[ee]n?|mitglieds)\s*-?\s*(?:nummer|nr\b\.?)/,
    /\b(?:numero|n\s?[°º*o]\.?)\s*(?:de\s+|d')?\s*(?:police|contrat|adherent|d'adherent|souscription)/,
    /\bcontrat\s*n\s?[°º*®o]/,
  ],
  insurer: [
    /\b(?:insurer|insurance company|underwritten by|insured by)\b/,
    /\b(?:ihr\s+)?versicherer\b(?:\s+ist(?:\s+die)?)?/,
    /\b(?:votre\s+)?(?:assureur|compagnie d'assurance|compagnie)\b/,
  ],
  start: [
    /\b(?:start date|effective date|effective from|cover starts|date of commencement|commencement date|inception date|valid from)\b/,
    /\b(?:versicherungsbeginn|vertragsbeginn|beginn|g\w{3,5} ab)\b/,
    /\b(?:date d'effet|date de debut|prise d'effet|debut)\b/,
  ],
  end: [
    /\b(?:end date|expiry date|cover ends|date of expiry|expiry|expires|valid until|valid to)\b/,
    /\b(?:versicherungsende|vertragsende|ablauf|g\w{3,5} bis)\b/,
    /\b(?:date d'echeance|echeance|date de fin|date d'expiration|expiration)\b/,
  ],
  period: [
    /\b(?:period of (?:cover|insurance)|cover period|insurance period|cover runs|period)\b/,
    /\b(?:versicherungsdauer|laufzeit|vertragsdauer|versicherungszeitraum|versicherungsschutz besteht)\b/,
    /\b(?:periode de (?:validite|garantie)|periode|valables?)\b/,
  ],
  registration: [
    /\b(?:vehicle registration|registration(?: mark| number| no\b\.?)?|reg\.? no\b\.?|number plate)\b/,
    /\b(?:amtliches?\s+kennzeichen|kfz-kennzeichen|kennzeichen)\b/,
    /\b(?:n[°º*o]?\s*d'immatriculation|immatriculation|immatricule)\b/,
  ],
};

/** Words around a number that say it is not the policy number (customer ids, phone, company register...). */
export const NOT_POLICY_CONTEXT =
  /\b(?:customer|client|account|kunden|partner|identifiant|reference client|tel|tél|phone|telefon|fax|registered|hrb|hra|rcs|siren|amtsgericht|premium|beitrag|cotisation|prime|birth|geburt|naissance|geboren|ne\(e\)|iban|bic)\b/;

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

/** Filler between a label and its value: punctuation and "is", "lautet", "est". */
const FILLER = /^[\s:;.,|\-–—=]*(?:(?:is|are|lautet|ist|est|:)\s+)?[\s:;|]*/i;

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

/** True when any label of `kind` occurs in the line. */
export function hasLabel(line: Line, kind: LabelKind): boolean {
  return findLabel(line, LABELS[kind]) !== null;
}
