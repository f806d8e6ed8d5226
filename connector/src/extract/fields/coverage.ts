/** Coverage details (spec 4.4): motor cover level, travel trip type and area, health plan, read with the language packs' coverage wording. */
import {
  MOTOR_COVER_LEVELS,
  TRAVEL_REGIONS,
  TRIP_TYPES,
  type TCoverageField,
  type TMotorCoverLevel,
  type TTravelRegion,
  type TTripType,
} from '../../../../shared/coverage-terms.js';
import type { TDocumentCoverage } from '../../../../shared/job.js';
import { packAlternation, type CoverageVocabulary, type TInsuranceType } from '../../../../shared/packs/index.js';
import type { Line } from '../reading/lines.js';
import { fold } from './text.js';

export interface CoverageInput {
  lines: Line[];
  /** The document's insurance type: each detail is only read from documents of its type. */
  type?: TInsuranceType;
  /** The cover period (ISO dates), for a travel policy's trip type when no wording states it. */
  start?: string;
  end?: string;
  /** Mean OCR word confidence (0..1) when the text came from OCR; lowers every confidence as document-fields.ts does. */
  ocrConfidence?: number;
}

/**
 * How the wording was found, and how sure that makes us: in the value of a label ("Type of cover:
 * Comprehensive"), at the start of a table cell or a short title line ("Teilkasko   SB 300 EUR"), or
 * inside a sentence, where it is as often about something else.
 */
type Evidence = 'labelled' | 'cell' | 'prose';
const EVIDENCE_CONFIDENCE: Record<Evidence, number> = { labelled: 0.95, cell: 0.85, prose: 0.65 };
const EVIDENCE_RANK: Record<Evidence, number> = { labelled: 3, cell: 2, prose: 1 };

/** One cell of one line, folded (lower case, no accents) with each folded character's offset in the original. */
interface FoldedCell {
  line: number;
  cell: number;
  x: number;
  text: string;
  folded: string;
  at: number[];
}

interface Hit<V extends string> {
  value: V;
  evidence: Evidence;
  printed: string;
  order: number;
}

const merged = (pick: (v: CoverageVocabulary) => readonly string[]) => packAlternation((p) => pick(p.coverage));
/** A whole-word pattern over every pack's fragments for one key. */
const wordsRe = (pick: (v: CoverageVocabulary) => readonly string[], flags = 'g') =>
  new RegExp(`(?<![\\w-])(?:${merged(pick)})(?![\\w])`, flags);

function valuePatterns<V extends string>(
  values: readonly V[],
  pick: (v: CoverageVocabulary) => Record<V, readonly string[]>,
): Array<[V, RegExp]> {
  return values.map((v) => [v, wordsRe((c) => pick(c)[v])]);
}
const MOTOR = valuePatterns(MOTOR_COVER_LEVELS, (c) => c.motorCover);
const TRIPS = valuePatterns(TRIP_TYPES, (c) => c.tripTypes);
const REGIONS = valuePatterns(TRAVEL_REGIONS, (c) => c.regions);
const LABELS = Object.fromEntries(
  (['motor_cover', 'trip_type', 'region', 'health_plan'] as const).map((f) => [f, wordsRe((c) => c.labels[f], '')]),
) as Record<TCoverageField, RegExp>;
const NEGATED = new RegExp(`^[\\s:;.,()\\-–—=]*(?:${merged((c) => c.negations)})(?![\\w])`);
const ELSEWHERE = wordsRe((c) => c.elsewhere, '');
const PLAN_WORDS = wordsRe((c) => c.healthPlanWords);
const INSURER_WORDS = new RegExp(`\\b(?:${packAlternation((p) => p.insurerWords)})\\b`, 'g');
const LEGAL_FORM = new RegExp(`\\b(?:${packAlternation((p) => p.legalForms.filter((f) => f.length >= 2))})\\b`);

/**
 * A company's name is the insurer's line, not a plan's: it has a legal form ("Premier Insurance Company
 * Limited") or ends in an insurer word after its plan word ("Premier Insurance", "Standard Life Healthcare"),
 * where a product line puts the plan last ("Private Medical Insurance — Comprehensive").
 */
function companyName(folded: string): boolean {
  if (LEGAL_FORM.test(folded)) return true;
  const lastPlan = [...folded.matchAll(PLAN_WORDS)].at(-1)?.index ?? -1;
  return [...folded.matchAll(INSURER_WORDS)].some((m) => m.index > lastPlan);
}
/** What may stand between a label and its value: punctuation and each pack's copulas ("is", "lautet", "est"). */
const FILLER = new RegExp(`^[\\s:;.,|\\-–—=/]*(?:(?:${packAlternation((p) => p.copulas)})\\s+)?[\\s:;|]*`);

/** Each character's fold(); a document holds a few dozen distinct ones (bounded all the same). */
const FOLDED_CHAR = new Map<string, string>();

function foldCell(line: number, cell: number, x: number, text: string): FoldedCell {
  let folded = '';
  const at: number[] = [];
  for (let i = 0; i < text.length; i++) {
    // fold() per character, memoised: a cell of n characters cost n normalisations and n * 4 replacements.
    const ch = text[i] as string;
    let f = FOLDED_CHAR.get(ch);
    if (f === undefined) {
      f = fold(ch);
      if (FOLDED_CHAR.size < 4096) FOLDED_CHAR.set(ch, f);
    }
    folded += f;
    for (let k = 0; k < f.length; k++) at.push(i);
  }
  return { line, cell, x, text, folded, at };
}

/** The original text of folded offsets [start, end) of a cell. */
const original = (c: FoldedCell, start: number, end: number): string =>
  c.text.slice(c.at[start] ?? 0, end > start ? (c.at[end - 1] ?? c.text.length - 1) + 1 : c.at[start]).trim();

/** Where a label's value is: the rest of its cell, else the next cell, else the nearest cell of the line below. */
interface ValueSpan {
  cell: FoldedCell;
  from: number;
}

function labelValue(cells: FoldedCell[][], c: FoldedCell, labelEnd: number): ValueSpan | null {
  const rest = c.folded.slice(labelEnd);
  const filler = FILLER.exec(rest)?.[0].length ?? 0;
  if (rest.slice(filler).trim().length > 0) return { cell: c, from: labelEnd + filler };
  const next = cells[c.line]?.[c.cell + 1];
  if (next) return { cell: next, from: 0 };
  const below = cells[c.line + 1];
  // A label alone on its line above a label-and-value row: its value was lost, the row below is another field's.
  if (!below?.length || ((cells[c.line]?.length ?? 0) === 1 && below.length === 2)) return null;
  const nearest = [...below].sort((a, b) => Math.abs(a.x - c.x) - Math.abs(b.x - c.x))[0]!;
  return Math.abs(nearest.x - c.x) < 40 || below.length === 1 ? { cell: nearest, from: 0 } : null;
}

/** Every label of one detail and its value span; `strict` labels must open their cell (after at most one short word: "Your", "Ihr", "Votre"). */
function labelledSpans(cells: FoldedCell[][], field: TCoverageField, strict: boolean): ValueSpan[] {
  const out: ValueSpan[] = [];
  for (const row of cells) {
    for (const c of row) {
      const m = LABELS[field].exec(c.folded);
      if (!m) continue;
      if (strict && !/^[\s\d.()]*(?:\p{L}{1,5}\s+)?$/u.test(c.folded.slice(0, m.index))) continue;
      const v = labelValue(cells, c, m.index + m[0].length);
      if (v) out.push(v);
      // A bilingual label ("Geltungsbereich / Area"): the rest of its cell is the label's other half, the value is the next cell.
      const next = cells[c.line]?.[c.cell + 1];
      if (v?.cell === c && next && c.folded.length - v.from <= 12) out.push({ cell: next, from: 0 });
    }
  }
  return out;
}

/**
 * Every reading of one detail's wording, with its evidence. Overlapping readings keep the longest
 * ("third party, fire and theft" holds "third party"); a reading followed by a negation ("Vollkasko
 * nicht versichert") or near words about something else ("any car not belonging to them") is dropped.
 */
function hits<V extends string>(
  cells: FoldedCell[][],
  patterns: Array<[V, RegExp]>,
  labelled: ValueSpan[],
  accept: (value: V, evidence: Evidence) => boolean = () => true,
): Array<Hit<V>> {
  const out: Array<Hit<V>> = [];
  let order = 0;
  for (const row of cells) {
    for (const c of row) {
      const found: Array<{ value: V; start: number; end: number }> = [];
      for (const [value, re] of patterns) {
        re.lastIndex = 0;
        for (let m = re.exec(c.folded); m; m = re.exec(c.folded)) found.push({ value, start: m.index, end: m.index + m[0].length });
      }
      const kept = found.filter(
        (h) => !found.some((o) => o !== h && o.start <= h.start && o.end >= h.end && o.end - o.start > h.end - h.start),
      );
      kept.sort((a, b) => a.start - b.start);
      const context = [cells[c.line - 2], cells[c.line - 1], row].flatMap((r) => r?.map((x) => x.folded) ?? []).join(' ');
      if (kept.length && ELSEWHERE.test(context)) continue;
      for (const [k, h] of kept.entries()) {
        const after = c.folded.slice(h.end, kept[k + 1]?.start ?? c.folded.length) + ' ' + (row[c.cell + 1]?.folded ?? '');
        if (NEGATED.test(after)) continue;
        const span = labelled.find((s) => s.cell === c && h.start >= s.from);
        const cellStart = /^[\s\d.()\-–—:]*$/.test(c.folded.slice(0, h.start));
        // A title (a short line near the top) names the product as a table cell does.
        const title = c.line < 8 && row.length === 1 && c.folded.length < 70;
        const evidence: Evidence = span ? 'labelled' : (cellStart && (row.length > 1 || c.folded.length < 60)) || title ? 'cell' : 'prose';
        if (!accept(h.value, evidence)) continue;
        const printed = span
          ? original(c, span.from, c.folded.length)
              .replace(/[.;,]+$/, '')
              .slice(0, 80)
          : original(c, h.start, h.end);
        out.push({ value: h.value, evidence, printed, order: order++ });
      }
    }
  }
  return out;
}

/** The strongest evidence wins; among readings of that strength, `prefer` picks (the highest level, the first seen). */
function best<V extends string>(found: Array<Hit<V>>, prefer: (a: Hit<V>, b: Hit<V>) => number): Hit<V> | null {
  if (!found.length) return null;
  const top = Math.max(...found.map((h) => EVIDENCE_RANK[h.evidence]));
  return found.filter((h) => EVIDENCE_RANK[h.evidence] === top).sort(prefer)[0] ?? null;
}

/** The cell text that looks like a name: not empty, not a date or an amount alone, not a whole sentence. */
function planName(text: string, minLength = 2): string | null {
  const t = text.replace(/^[\s:;.,|\-–—=]+|[\s:;.,]+$/g, '').trim();
  if (t.length < minLength || t.length > 60 || !/\p{L}/u.test(t)) return null;
  // A colon means another label's line ("Total premium: £320"), read when OCR split the plan's own line.
  if (/^[\d\s.,/€£$%-]+$/.test(t) || t.includes(':') || t.split(/\s+/).length > 8) return null;
  return t;
}

/**
 * The health plan: a label's value ("Plan: Treatment and Care", "Tarif: Komfort Plus"); under a
 * table's column header ("Tarif"), every distinct value of that column, as printed, in order.
 */
function healthPlan(cells: FoldedCell[][]): { value: string; confidence: number } | null {
  for (const row of cells) {
    for (const c of row) {
      const m = LABELS.health_plan.exec(c.folded);
      if (!m || !/^[\s\d.()]*(?:\p{L}{1,5}\s+)?$/u.test(c.folded.slice(0, m.index))) continue;
      const labelOnly = c.folded.slice(m.index + m[0].length).trim() === '';
      if (labelOnly && row.length >= 3) {
        // A column header: the cells under it while the table goes on (rows with as many cells).
        const values: string[] = [];
        for (let i = c.line + 1; i < cells.length; i++) {
          const r = cells[i]!;
          if (r.length < row.length - 1) break;
          const under = [...r].sort((a, b) => Math.abs(a.x - c.x) - Math.abs(b.x - c.x))[0];
          // In a tariff column a single letter is a tariff ("N": ambulant treatment).
          const name = under && planName(under.text, 1);
          if (name && !values.includes(name)) values.push(name);
        }
        if (values.length) return { value: values.join(', '), confidence: 0.8 };
        continue;
      }
      const v = labelValue(cells, c, m.index + m[0].length);
      const name = v && planName(v.cell.text.slice(v.cell.at[v.from] ?? 0));
      if (name) return { value: name, confidence: v.cell === c ? 0.92 : 0.88 };
    }
  }
  return null;
}

/** Lines from the top within which a title and its subtitle are printed (the title rule of `hits` too). */
const TITLE_LINES = 8;
/** Unlabelled, a plan word in a title may still be a slogan's: below REVIEW_CONFIDENCE, so a person checks it. */
const TITLE_PLAN_CONFIDENCE = 0.75;

/**
 * A plan printed without a label, as a certificate's title or the line under it ("Membership certificate"
 * over "Bupa By You — Comprehensive"): a short line of its own near the top that holds one of the packs'
 * plan words, taken whole as printed. Not a sentence, not another label's line, not a company's name.
 */
function titlePlan(cells: FoldedCell[][]): { value: string; confidence: number } | null {
  for (const row of cells.slice(0, TITLE_LINES)) {
    const c = row[0];
    if (row.length !== 1 || !c || !c.folded.match(PLAN_WORDS) || companyName(c.folded) || /[.!?]$/.test(c.folded.trim())) continue;
    const name = planName(c.text);
    if (name) return { value: name, confidence: TITLE_PLAN_CONFIDENCE };
  }
  return null;
}

const DAY = 86_400_000;
const round = (x: number): number => Math.round(Math.max(0, Math.min(1, x)) * 100) / 100;

/** Levels from least to most cover: where a table lists Haftpflicht and Teilkasko, Teilkasko is the cover. */
const higherLevel = (a: Hit<TMotorCoverLevel>, b: Hit<TMotorCoverLevel>) =>
  MOTOR_COVER_LEVELS.indexOf(b.value) - MOTOR_COVER_LEVELS.indexOf(a.value) || a.order - b.order;
const firstSeen = <V extends string>(a: Hit<V>, b: Hit<V>) => a.order - b.order;

/** Coverage details of a document, each only for its insurance type; undefined when none is found. */
export function findCoverage(input: CoverageInput): TDocumentCoverage | undefined {
  if (!input.type) return undefined;
  // Cells without a letter or digit are OCR specks (";" between a label and its value), not columns.
  const cells = input.lines.map((l, i) =>
    l.cells.filter((c) => /[\p{L}\p{N}]/u.test(c.text)).map((c, k) => foldCell(i, k, c.x, c.text.normalize('NFC'))),
  );
  const ocrFactor = input.ocrConfidence === undefined ? 1 : 0.6 + 0.4 * input.ocrConfidence;
  const out: TDocumentCoverage = {};
  const reading = <V extends string>(h: Hit<V>) => ({
    value: h.value,
    printed: h.printed,
    confidence: round(EVIDENCE_CONFIDENCE[h.evidence] * ocrFactor),
  });

  if (input.type === 'motor') {
    const level = best(hits(cells, MOTOR, labelledSpans(cells, 'motor_cover', false)), higherLevel);
    if (level) out.motor_cover = reading(level);
  }
  if (input.type === 'travel') {
    const trip = best(hits(cells, TRIPS, labelledSpans(cells, 'trip_type', false)), firstSeen);
    if (trip) out.trip_type = reading(trip);
    else if (input.start && input.end) {
      // No wording: a cover of a few weeks is one trip; a year is, more often than not, annual multi-trip.
      const days = (Date.parse(input.end) - Date.parse(input.start)) / DAY + 1;
      if (days <= 100) out.trip_type = { value: 'single_trip' as TTripType, confidence: round(0.7 * ocrFactor) };
      else if (days >= 360 && days <= 367) out.trip_type = { value: 'annual_multi_trip' as TTripType, confidence: round(0.6 * ocrFactor) };
    }
    // "Deutschland" and "France" are in addresses and company names: the home country counts only as a label's value.
    const region = best(
      hits(cells, REGIONS, labelledSpans(cells, 'region', false), (v: TTravelRegion, e) => v !== 'domestic' || e === 'labelled'),
      firstSeen,
    );
    if (region) out.region = reading(region);
  }
  if (input.type === 'health') {
    const plan = healthPlan(cells) ?? titlePlan(cells);
    if (plan) out.health_plan = { value: plan.value, confidence: round(plan.confidence * ocrFactor) };
  }
  return Object.keys(out).length ? out : undefined;
}
