/**
 * Every candidate value for each ranked field (policy number, insurer, start and end date, plate), each
 * described by features the ranker (ranker.ts) weighs: which label points at it and how (same cell,
 * sentence, cell to the left, cell above), distractor words nearby, the value's shape, page and position,
 * and whether OCR read it. No choice is made here.
 */
import { packAlternation, type LanguagePack, type TCountry, type TInsuranceType } from '../../../shared/packs/index.js';
import { distance } from 'fastest-levenshtein';
import { nameTokens } from '../insurers/normalise.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { findDates, monthNumber, type FoundDate } from './dates.js';
import { LABELS, NOT_POLICY_CONTEXT, type LabelKind } from './labels.js';
import { CELL_GAP, type Line } from './lines.js';
import { findPlates, normalisePlate, type FoundPlate } from './plates.js';
import { readPolicyNumbers } from './policy-number.js';
import { fold } from './text.js';

export const RANKED_FIELDS = ['policy_number', 'insurer', 'start_date', 'end_date', 'vehicle_registration'] as const;
export type RankedField = (typeof RANKED_FIELDS)[number];

export interface FieldCandidate {
  field: RankedField;
  /** The value as it would be returned. */
  value: string;
  /** Grouping key: candidates with one key are one value. */
  key: string;
  line: number;
  features: Record<string, number>;
  /** Insurer candidates: the register's country when the name matched it. */
  registerCountry?: TCountry;
}

/** Finds the register's canonical name for insurer text in one country; null when nothing is close. */
export type NameMatcher = (country: TCountry, text: string) => { name: string; score: number } | null;

export interface CandidateContext {
  lines: Line[];
  country?: TCountry;
  type?: TInsuranceType;
  matcher: NameMatcher;
  countries: readonly TCountry[];
}

/** One non-global pattern (for .test) over every pack's words. */
const words = (pick: (p: LanguagePack) => readonly string[]): RegExp => new RegExp(`\\b(?:${packAlternation(pick)})\\b`);
const NOT_PERIOD = words((p) => p.notPeriodContext);
const NOT_INSURER = words((p) => p.notInsurerContext);
const INSURER_WORDS = words((p) => [...p.insurerWords, ...p.legalForms.filter((f) => f.length >= 2)]);
const SECONDARY = words((p) => p.secondaryNumberWords);
const TITLE_WORDS = words((p) => p.documentTitleWords);
const DEPARTMENT = new RegExp(`^(?:${packAlternation((p) => p.departmentWords)})\\b`);
const PERSON = new RegExp(`^(?:${packAlternation((p) => p.personTitles)})\\b\\.?\\s`);
/** A name that ends in a legal form ("... AG", "... Limited", "... a. G.") is a company's legal name, not a brand. */
const LEGAL_FORM_END = new RegExp(`\\b(?:${packAlternation((p) => p.legalForms.map((f) => f.replace(/\s+/g, '\\s*')))}|a\\.?\\s?g|s\\.?a|versicherungs-ag)\\.?$`);
const COPULAS = new RegExp(`^[\\s:;.,|\\-–—=]*(?:(?:${packAlternation((p) => p.copulas)})\\s+)?(?:(?:the|die|der|la|le|l')\\s*)?[\\s:;|]*`, 'i');
const CONNECTOR = new RegExp(`^\\s*(?:inclus\\s*)?(?:${packAlternation((p) => p.periodConnectors)}|-|–|—)\\s*(?:(?:the|le|den)\\s+)?$`);

interface LabelHit {
  kind: LabelKind;
  line: number;
  cell: number;
  start: number;
  end: number;
  x: number;
  fuzzy: boolean;
  secondary: boolean;
}

interface Span {
  line: number;
  cell: number;
  start: number;
  end: number;
}

const GLOBAL_LABELS = Object.fromEntries(Object.entries(LABELS).map(([k, res]) => [k, res.map((r) => new RegExp(r.source, r.flags.includes('g') ? r.flags : `${r.flags}g`))])) as Record<LabelKind, RegExp[]>;

/** Any label of any kind (the same patterns and flags as one alternation): most lines hold none, and one scan says so. */
const ANY_LABEL = new RegExp(Object.values(LABELS).flatMap((res) => res.map((r) => `(?:${r.source})`)).join('|'));

/** Every match of every label pattern in `text`, kind by kind in LABELS' order. */
function* labelMatches(text: string): Generator<[LabelKind, RegExpExecArray]> {
  if (!ANY_LABEL.test(text)) return;
  for (const kind of Object.keys(GLOBAL_LABELS) as LabelKind[]) {
    for (const re of GLOBAL_LABELS[kind]) for (const m of text.matchAll(re)) yield [kind, m];
  }
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
const cellAt = (spans: Array<{ start: number; end: number }>, offset: number): number => Math.max(0, spans.findIndex((s) => offset < s.end + CELL_GAP.length));

/** OCR look-alike digits read back as the letters of a label ("P0licy", "Ablauf" as "AbIauf" folds to "ablauf"). */
const lettersOf = (s: string): string => s.replace(/0/g, 'o').replace(/1/g, 'l').replace(/5/g, 's');
/** A soft "w" OCR'd as "v" ("Undervritten by" on a phone photo), read back: a second look for labels with a "w". */
const wOf = (s: string): string => s.replace(/v/g, 'w');

/** The document as the candidate generators see it: folded lines, cells, label hits, distractor spans. */
class Doc {
  readonly folded: string[];
  readonly spans: Array<Array<{ start: number; end: number; x: number }>>;
  readonly hits: LabelHit[][];
  /** Line index within its page, and the page's line count. */
  readonly pagePos: Array<[number, number]>;
  constructor(readonly lines: Line[]) {
    this.folded = lines.map((l) => fold(l.text));
    this.spans = lines.map(cellSpans);
    const perPage = new Map<number, number>();
    this.pagePos = lines.map((l) => {
      const p = l.page ?? 1;
      const k = perPage.get(p) ?? 0;
      perPage.set(p, k + 1);
      return [k, 0];
    });
    this.pagePos.forEach((pp, i) => (pp[1] = perPage.get(this.lines[i]!.page ?? 1) ?? 1));
    this.hits = lines.map((l, i) => this.findHits(i));
  }

  private findHits(i: number): LabelHit[] {
    const line = this.lines[i]!;
    const texts: Array<[string, boolean]> = [[this.folded[i]!, false]];
    if (line.ocr) texts.push([lettersOf(this.folded[i]!), true], [wOf(this.folded[i]!), true]);
    const out: LabelHit[] = [];
    for (const [text, fuzzy] of texts) {
      for (const [kind, m] of labelMatches(text)) {
        const start = m.index;
        const end = start + m[0].length;
        if (out.some((h) => h.kind === kind && start < h.end && end > h.start)) continue;
        // Words of a name, not a label: "... Victoria Insurance Company Limited" (capitalised, after a capitalised word).
        if (kind === 'insurer' && /^\p{Lu}/u.test(line.text.slice(start)) && /\p{Lu}[\p{L}&+-]*\s$/u.test(line.text.slice(Math.max(0, start - 30), start))) continue;
        const cell = cellAt(this.spans[i]!, start);
        const cellText = this.folded[i]!.slice(this.spans[i]![cell]?.start ?? 0, end);
        out.push({ kind, line: i, cell, start, end, x: this.spans[i]![cell]?.x ?? 0, fuzzy, secondary: SECONDARY.test(cellText) });
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
        out.push({ kind, line: i, cell: 0, start: 0, end, x: this.spans[i]![0]?.x ?? 0, fuzzy: false, secondary: SECONDARY.test(joined.slice(0, m.index + m[0].length)) });
      }
    }
    return out.sort((a, b) => a.start - b.start);
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

type Relations = Record<string, number>;

/**
 * How labels point at a value: the nearest label before it on its line (in its cell: right after it or
 * within a sentence; or in a cell to its left), and a label in the same column on the line above.
 */
function labelRelations(doc: Doc, span: Span, own: readonly LabelKind[]): Relations {
  const f: Relations = {};
  const before = doc.hits[span.line]!.filter((h) => h.end <= span.start);
  const nearest = before[before.length - 1];
  const tag = (h: LabelHit): string => (own.includes(h.kind) ? `lab_${h.kind === own[0] ? 'own' : 'alt'}` : 'lab_other');
  if (nearest) {
    const t = tag(nearest);
    const text = doc.lines[span.line]!.text;
    if (nearest.cell === span.cell) {
      const gap = text.slice(nearest.end, span.start);
      const rest = gap.replace(COPULAS, '');
      if (rest.trim() === '') f[`${t}_adj`] = 1;
      else {
        const n = rest.trim().split(/\s+/).length;
        if (n <= 14) f[`${t}_sent`] = 1 - n / 16;
      }
    } else if (nearest.cell < span.cell) {
      // Only the cell right after the label is its value; further right is another column's.
      if (nearest.cell === span.cell - 1) f[`${t}_left`] = 1;
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
  // Column above: the label line's hit whose x is nearest this value's cell (tables, label rows).
  for (const back of [1, 2]) {
    const i = span.line - back;
    if (i < 0) break;
    if (back === 2 && doc.hits[span.line - 1]!.length > 0) break;
    const x = doc.spans[span.line]![span.cell]?.x ?? 0;
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
    f[`${tag(h)}_above`] = back === 1 ? 1 : 0.7;
    if (h.secondary && tag(h) !== 'lab_other') f.lab_secondary = 1;
    break;
  }
  return f;
}

/** Distractor words near a span: before it in its cell or in the cell to its left, and anywhere on its line. */
function distractors(doc: Doc, span: Span, re: RegExp): Relations {
  const f: Relations = {};
  const folded = doc.folded[span.line]!;
  const spans = doc.spans[span.line]!;
  const from = spans[Math.max(0, span.cell - 1)]?.start ?? 0;
  const near = folded.slice(from, span.start);
  const hit = (s: string): boolean => re.test(s);
  if (hit(near)) f.distract_near = 1;
  else if (hit(folded)) f.distract_line = 1;
  if (span.line > 0 && hit(doc.folded[span.line - 1]!) && (doc.spans[span.line - 1]?.length ?? 0) > 1) f.distract_above = 0.5;
  return f;
}

function positionFeatures(doc: Doc, line: number): Relations {
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
function withRepeats(cands: FieldCandidate[]): FieldCandidate[] {
  const lines = new Map<string, Set<number>>();
  for (const c of cands) (lines.get(c.key) ?? lines.set(c.key, new Set()).get(c.key)!).add(c.line);
  for (const c of cands) c.features.repeat = Math.min(3, Math.log2(lines.get(c.key)!.size));
  return cands;
}

function policyCandidates(doc: Doc, ctx: CandidateContext, exclude: Set<string>): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  doc.lines.forEach((line, i) => {
    const dates = doc.datesOf(i);
    const spans = doc.spans[i]!;
    spans.forEach((cs, cell) => {
      const cellText = line.text.slice(cs.start, cs.end);
      // Word starts in the cell: a reading starts at each; keep the first reading per start.
      const seen = new Set<string>();
      for (const m of cellText.matchAll(/\S+/g)) {
        const start = cs.start + m.index;
        if (dates.some((d) => start >= d.index && start < d.end)) continue;
        let text = line.text.slice(start, cs.end);
        const dateIn = dates.find((d) => d.index > start && d.index < cs.end);
        if (dateIn) text = line.text.slice(start, dateIn.index);
        if (!/[0-9]/.test(text.slice(0, 40))) continue;
        const reading = readPolicyNumbers(text.slice(0, 60), ctx.country, ctx.type, { ocr: !!line.ocr, labelled: true, atStart: true })[0];
        if (!reading || !text.startsWith(reading.value.split(' ')[0]!)) continue;
        const key = normalisePolicyNumber(reading.value);
        if (seen.has(key) || exclude.has(key) || key.length < 5) continue;
        seen.add(key);
        const span: Span = { line: i, cell, start, end: start + reading.value.length };
        const digits = key.replace(/[^0-9]/g, '').length;
        const f: Relations = {
          bias: 1,
          ...labelRelations(doc, span, ['policy']),
          ...distractors(doc, span, NOT_POLICY_CONTEXT),
          ...positionFeatures(doc, i),
        };
        if (reading.plausible) f.plausible = 1;
        if (SECONDARY.test(fold(reading.value.split(' ')[0]!))) f.secondary_prefix = 1;
        if (reading.repaired) f.repaired = 1;
        if (/[A-Z]/i.test(key)) f.letters = 1;
        if (/[/\-.]/.test(reading.value)) f.separators = 1;
        f.digits = Math.min(16, digits) / 16;
        if (/^(?:\+|0)/.test(reading.value) && digits >= 9 && /\s/.test(reading.value)) f.phoneish = 1;
        if (/[£€$%]|\b(?:eur|gbp)\b/i.test(cellText)) f.money = 1;
        if (/^[0-9]{5}$/.test(key) || /^[A-Z]{2}[0-9]{2}[A-Z0-9]{10,30}$/.test(key)) f.postcode_iban = 1;
        out.push({ field: 'policy_number', value: reading.value, key, line: i, features: f });
      }
    });
  });
  return withRepeats(out);
}

interface DateOcc {
  iso: string;
  span: Span;
  certainty: number;
}

const addDays = (iso: string, years: number, days: number): string => {
  const d = new Date(`${iso}T00:00:00Z`);
  d.setUTCFullYear(d.getUTCFullYear() + years);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
};

function dateCandidates(doc: Doc): FieldCandidate[] {
  const occs: DateOcc[] = [];
  const pairFirst = new Set<DateOcc>();
  const pairSecond = new Set<DateOcc>();
  doc.lines.forEach((line, i) => {
    let found = doc.datesOf(i);
    // A period wrapped onto the next line ("16 February 2026 to 15 February" / "2027"): read the two lines joined.
    const next = doc.lines[i + 1];
    const tail = /(\S+)\s*$/.exec(line.text)?.[1] ?? '';
    if (next && (/^\d{1,2}(?:st|nd|rd|th|er|\.)?$/.test(tail) || monthNumber(tail) !== null) && /^\s*[\dA-Za-zÀ-ÿ]/.test(next.text)) {
      const joined = `${line.text} ${next.text}`;
      const more = findDates(joined).filter((d) => d.index < line.text.length && d.end > line.text.length);
      found = [...found.filter((d) => !more.some((m) => d.index >= m.index && d.index < m.end)), ...more].sort((a, b) => a.index - b.index);
    }
    const lineOccs = found.map((d): DateOcc => ({ iso: d.iso, certainty: d.certainty, span: { line: i, cell: doc.cellOf(i, d.index), start: d.index, end: d.end } }));
    for (let k = 0; k + 1 < lineOccs.length; k++) {
      const a = lineOccs[k]!;
      const b = lineOccs[k + 1]!;
      const between = fold(`${line.text} ${next?.text ?? ''}`.slice(found[k]!.end, found[k + 1]!.index));
      if (CONNECTOR.test(between.replace(/,?\s*\d{1,2}[:.h]\d{2}\s*(?:uhr|hours|h)?/g, ' ').replace(/\b\d{1,2}\s*uhr\b/g, ' ')) && a.iso < b.iso) {
        pairFirst.add(a);
        pairSecond.add(b);
      }
    }
    occs.push(...lineOccs);
  });
  // A period whose first date was wrapped ("du 1er" / "septembre 2025 au 26 septembre 2025"): pair it with the next line's first date.
  for (const a of occs) {
    const line = doc.lines[a.span.line]!.text;
    if (a.span.end <= line.length) continue;
    const b = occs.find((o) => o.span.line === a.span.line + 1);
    const next = doc.lines[a.span.line + 1]?.text ?? '';
    if (!b || b.span.start < a.span.end - line.length - 1) continue;
    const between = fold(next.slice(a.span.end - line.length - 1, b.span.start));
    if (CONNECTOR.test(between) && a.iso < b.iso) {
      pairFirst.add(a);
      pairSecond.add(b);
    }
  }
  // A period broken after its first date ("... pour la période du 04/03/2026" / "au 22/03/2026 inclus"): the last
  // date of a line and the first of the next, with only a connector between them. OCR leaves stray marks ("…", "|")
  // at a line's end, which are dropped on OCR lines only.
  for (let k = 0; k + 1 < occs.length; k++) {
    const a = occs[k]!;
    const b = occs[k + 1]!;
    if (b.span.line !== a.span.line + 1 || pairFirst.has(a) || pairSecond.has(b) || a.iso >= b.iso) continue;
    const lineA = doc.lines[a.span.line]!;
    const lineB = doc.lines[b.span.line]!;
    if (a.span.end > lineA.text.length) continue;
    let between = fold(`${lineA.text.slice(a.span.end)} ${lineB.text.slice(0, b.span.start)}`);
    if (lineA.ocr || lineB.ocr) between = between.replace(/[^\p{L}\d\s\-–—]/gu, ' ');
    if (CONNECTOR.test(between)) {
      pairFirst.add(a);
      pairSecond.add(b);
    }
  }
  const isos = new Set(occs.map((o) => o.iso));
  const sorted = [...isos].sort();
  const out: FieldCandidate[] = [];
  for (const o of occs) {
    const base: Relations = { bias: 1, ...positionFeatures(doc, o.span.line), ...distractors(doc, o.span, NOT_PERIOD) };
    if (o.certainty < 1) base.uncertain = 1 - o.certainty;
    const yearAfter = isos.has(addDays(o.iso, -1, 1)) || isos.has(addDays(o.iso, -1, 0));
    const yearBefore = isos.has(addDays(o.iso, 1, -1)) || isos.has(addDays(o.iso, 1, 0));
    const rank = sorted.length > 1 ? sorted.indexOf(o.iso) / (sorted.length - 1) : 0.5;
    const fieldFeatures = (field: 'start_date' | 'end_date'): Relations => {
      const own: LabelKind[] = field === 'start_date' ? ['start', 'period'] : ['end', 'period'];
      const f: Relations = { ...base, ...labelRelations(doc, o.span, own) };
      if (pairFirst.has(o)) f[field === 'start_date' ? 'pair_own' : 'pair_other'] = 1;
      if (pairSecond.has(o)) f[field === 'start_date' ? 'pair_other' : 'pair_own'] = 1;
      if (field === 'start_date' ? yearBefore : yearAfter) f.year_span = 1;
      f.rank = field === 'start_date' ? 1 - rank : rank;
      return f;
    };
    out.push({ field: 'start_date', value: o.iso, key: o.iso, line: o.span.line, features: fieldFeatures('start_date') });
    out.push({ field: 'end_date', value: o.iso, key: o.iso, line: o.span.line, features: fieldFeatures('end_date') });
  }
  return withRepeats(out.filter((c) => c.field === 'start_date')).concat(withRepeats(out.filter((c) => c.field === 'end_date')));
}

function plateCandidates(doc: Doc, ctx: CandidateContext): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  doc.lines.forEach((line, i) => {
    for (const p of doc.platesOf(i, ctx.countries)) {
      if (p.certainty < 1 && !line.ocr) continue;
      const key = normalisePlate(p.plate);
      const at = line.text.toUpperCase().replace(/[^A-Z0-9ÄÖÜ]/g, (c) => c).search(new RegExp(key.split('').join('[\\s-]?')));
      const start = Math.max(0, at);
      const span: Span = { line: i, cell: doc.cellOf(i, start), start, end: start + p.plate.length };
      const f: Relations = { bias: 1, ...labelRelations(doc, span, ['registration']), ...positionFeatures(doc, i), ...distractors(doc, span, NOT_POLICY_CONTEXT) };
      if (p.certainty < 1) f.uncertain = 1 - p.certainty;
      if (ctx.country && p.country === ctx.country) f.country_match = 1;
      if (ctx.type === 'motor') f.motor = 1;
      else if (ctx.type) f.other_type = 1;
      out.push({ field: 'vehicle_registration', value: p.plate, key, line: i, features: f });
    }
  });
  return withRepeats(out);
}

/** A full stop ending a sentence, not an abbreviation's ("a. G.", "S.A. Niederlassung"). */
const SENTENCE_END = '(?<![\\s.][A-Za-z])(?<!^[A-Za-z])\\.\\s+(?=[A-Z])';

// OCR reads a footer's "·" as a dash glued to the word before ("Versicherung AG- Sitz der Gesellschaft"): a dash
// followed by a space and a capital is a separator too (a hyphenated name has no space; "Kranken- und" no capital).
const GLUED_DASH = '(?<=\\S)[-–—]\\s+(?=[A-ZÄÖÜÉ])';
const NAME_END = new RegExp(`${CELL_GAP}|\\s[·•|]\\s|\\s[-–—]\\s|${GLUED_DASH}|,\\s|\\s\\(|;\\s|${SENTENCE_END}`);
const NAME_SPLIT = new RegExp(`\\s[·•|]\\s|\\s[-–—]\\s|${GLUED_DASH}|,\\s|;\\s|${SENTENCE_END}`);
const LEADING_COPULA = new RegExp(`^(?:${packAlternation((p) => p.copulas)})\\s+`, 'i');
/** A name a label matches: any other field's label inside it, or nothing but an insurer label. */
const NAME_IS_LABEL = [
  new RegExp(`^(?:${LABELS.insurer.map((re) => `(?:${re.source})`).join('|')})$`),
  new RegExp(Object.entries(LABELS).flatMap(([kind, res]) => (kind === 'insurer' ? [] : res.map((re) => `(?:${re.source})`))).join('|')),
];

/** Cleans a piece of text into the name it starts with: up to an address, a register note or a sentence's end. */
function nameFrom(raw: string): string {
  let t = raw.replace(/^[\s:;.,|\-–—=]+/, '');
  t = t.split(NAME_END)[0] ?? '';
  // A lower-case article is the sentence's ("bei der Allianz"); a capital one may be the name's own ("La Mutuelle
  // Générale", "The Royal London ..."), and the legal name is what is printed.
  t = t.replace(/^(?:the|der|die|das|la|le|les|l')\s+/, '');
  return t.replace(/[.:;,]+$/, '').trim();
}

function insurerCandidates(doc: Doc, ctx: CandidateContext): FieldCandidate[] {
  const out: FieldCandidate[] = [];
  const seen = new Set<string>();
  const matched = new Map<string, { name: string; score: number; country: TCountry } | null>();
  const add = (printed: string, span: Span, how: Relations): void => {
    // OCR reads the "I" of "I.A.R.D." (French company names) as "L", "l", "1" or "|": a repair for OCR text only.
    // Not \b before it: "|" is no word character, so "\b|" never matches after a space.
    const name = doc.lines[span.line]?.ocr ? printed.replace(/(?<![\p{L}\d])[Ll1|]\.?\s?A\.?\s?R\.?\s?D\b\.?/gu, 'I.A.R.D.') : printed;
    const words = name.split(/\s+/).filter(Boolean);
    if (name.length < 3 || words.length > 9 || !/[A-Za-z]{2}/.test(name)) return;
    const key = nameTokens(name).join(' ');
    if (!key || seen.has(`${key}@${span.line}:${span.start}`)) return;
    seen.add(`${key}@${span.line}:${span.start}`);
    const lowerShare = words.filter((w) => /^[a-zà-ÿ]/.test(w)).length / words.length;
    // Sentence pieces and addresses are never register names: no look-up (the register's fuzzy search is the cost here).
    const folded = fold(name);
    const orgWord = INSURER_WORDS.test(folded);
    const legalForm = LEGAL_FORM_END.test(folded.slice(-40).replace(/[,.]+$/, ''));
    const namely = how.from_label || orgWord || legalForm || (doc.pagePos[span.line]![0] < 3 && (doc.lines[span.line]!.page ?? 1) === 1);
    let best = lowerShare > 0.5 || /\d/.test(name) || !namely ? null : matched.get(name);
    if (best === undefined) {
      best = null;
      for (const c of ctx.countries) {
        const m = ctx.matcher(c, name);
        if (m && (!best || m.score > best.score)) best = { ...m, country: c };
      }
      matched.set(name, best);
    }
    // Only a cue right before the name counts ("regulated by X"): register notes share the footer line with the legal name.
    const near = distractors(doc, span, NOT_INSURER);
    const f: Relations = { bias: 1, ...how, ...labelRelations(doc, span, ['insurer']), ...positionFeatures(doc, span.line), ...(near.distract_near ? { distract_near: 1 } : {}) };
    if (orgWord) f.org_word = 1;
    const lower = words.filter((w) => /^[a-zà-ÿ]/.test(w) && !/^(?:of|de|du|des|la|le|und|der|fur|für|et|and|a\.?|d')$/i.test(w)).length;
    f.lowercase = lower / words.length;
    f.words = Math.min(8, words.length) / 8;
    if (/\d/.test(name)) f.digits = 1;
    if (legalForm) f.legal_form = 1;
    if (PERSON.test(folded)) f.person = 1;
    // "Pour l'assureur, le Service Assistance": a department signs for the carrier; it is not the carrier.
    if (DEPARTMENT.test(folded)) f.department = 1;
    if (TITLE_WORDS.test(folded)) f.title_word = 1;
    // Text a label matches ("N° de contrat", "Versicherungsnummer") is a label, not a name.
    if (NAME_IS_LABEL.some((re) => re.test(folded))) f.has_label = 1;
    if (best && best.score >= 0.97) f.register_exact = 1;
    else if (best && best.score >= 0.85) f.register_close = best.score;
    // The printed name is the answer; an alias (a brand the register knows) stands for the register's legal name.
    // OCR's punctuation is not the print's ("Generali-Deutschland" for "Generali Deutschland"): an OCR'd name whose
    // words are a register name's exactly takes the register's spelling.
    const ocrSpelling = !!best && doc.lines[span.line]?.ocr === true && best.name !== name && nameTokens(best.name).join(' ') === key;
    const value = best && ((best.score >= 0.97 && best.score < 1) || ocrSpelling) ? best.name : name;
    out.push({ field: 'insurer', value, key: nameTokens(value).join(' '), line: span.line, features: f, ...(best && best.score >= 0.85 ? { registerCountry: best.country } : {}) });
  };
  doc.lines.forEach((line, i) => {
    const spans = doc.spans[i]!;
    // After an insurer label: the rest of its cell, the next cell, the cell below.
    for (const h of doc.hits[i]!.filter((x) => x.kind === 'insurer')) {
      const cs = spans[h.cell]!;
      const rest = line.text.slice(h.end, cs.end).replace(/^[\s:;.,|\-–—=]+/, '').replace(LEADING_COPULA, '');
      const start = cs.end - rest.length;
      if (rest.trim()) add(nameFrom(rest), { line: i, cell: h.cell, start, end: cs.end }, { from_label: 1 });
      const next = spans[h.cell + 1];
      if (next && !rest.trim()) add(nameFrom(line.text.slice(next.start, next.end)), { line: i, cell: h.cell + 1, start: next.start, end: next.end }, { from_label: 1 });
      // A label over its value (forms with a label row): the cell below nearest in x.
      const below = doc.spans[i + 1];
      if (below && !rest.trim()) {
        let k = 0;
        below.forEach((c, j) => {
          if (Math.abs(c.x - cs.x) < Math.abs(below[k]!.x - cs.x)) k = j;
        });
        const c = below[k]!;
        add(nameFrom(doc.lines[i + 1]!.text.slice(c.start, c.end)), { line: i + 1, cell: k, start: c.start, end: c.end }, { from_label: 1 });
      }
    }
    // Every segment of the line that could be a name: letterheads, footers, signature lines, table cells.
    spans.forEach((cs, cell) => {
      const text = line.text.slice(cs.start, cs.end);
      const parts = text.split(NAME_SPLIT);
      let offset = cs.start;
      for (const part of parts) {
        const at = line.text.indexOf(part, offset);
        offset = at + part.length;
        const name = nameFrom(part);
        if (!name) continue;
        const folded = fold(name);
        const looksLikeName = INSURER_WORDS.test(folded) || (doc.pagePos[i]![0] < 3 && (line.page ?? 1) === 1);
        if (!looksLikeName) continue;
        add(name, { line: i, cell, start: at, end: at + part.length }, {});
      }
    });
  });
  sameNameReadTwice(out, doc);
  // Repeats: how many lines mention the name (a brand and its legal name both recur in the footer).
  const plain = doc.folded.map((l) => l.replace(/[^a-z0-9 ]/g, ''));
  const counts = new Map<string, number>();
  for (const c of out) {
    const needle = fold(c.value).replace(/[^a-z0-9 ]/g, '');
    const count = counts.get(needle) ?? (needle.length >= 3 ? plain.filter((l) => l.includes(needle)).length : 1);
    counts.set(needle, count);
    c.features.repeat = Math.min(3, Math.log2(Math.max(1, count)));
  }
  // A brand and the legal name that extends it ("ACME" / "ACME Versicherung AG"): the longer one is the carrier's name.
  const keys = [...new Set(out.map((c) => c.key))];
  const keyWords = new Map(keys.map((k) => [k, k.split(' ')]));
  for (const c of out) {
    const mine = c.key.split(' ');
    const extendsOther = keys.some((k) => k !== c.key && keyWords.get(k)!.every((w) => mine.includes(w)));
    const extendedBy = keys.some((k) => k !== c.key && mine.every((w) => keyWords.get(k)!.includes(w)));
    if (extendsOther) c.features.extends_other = 1;
    // The tail of a longer name ("Association Limited" of "... Provident Association Limited"): a line broken inside a name.
    if (keys.some((k) => k !== c.key && k.endsWith(` ${c.key}`))) c.features.truncated = 1;
    if (extendedBy) c.features.extended_by = 1;
    // A brand whose legal name is printed too: the README of the outside documents and real forms agree that the
    // carrier is named by its legal name, so the brand alone is a weaker answer than the name it starts.
    if (out.some((o) => o.key !== c.key && o.features.legal_form && o.key.startsWith(`${c.key} `))) c.features.brand_of_legal = 1;
  }
  return out;
}

/** Register evidence of a candidate: 1 for an exact (or alias) hit, the similarity for a close one, else 0. */
const registerScore = (c: FieldCandidate): number => c.features.register_exact ?? c.features.register_close ?? 0;

/**
 * OCR reads one name differently in two places ("Allianz Versicherungs-AG" in the signature, "Allanz
 * Versicherungs-AG" in the footer). An OCR reading a letter or two away from another reading of the page that
 * the register knows better (or that a text layer printed) is that name, misread: it takes the better reading's
 * value and register evidence. Readings the register knows equally well are left apart (two real companies).
 */
function sameNameReadTwice(out: FieldCandidate[], doc: Doc): void {
  for (const c of out) {
    if (!doc.lines[c.line]?.ocr || c.key.length < 6) continue;
    const words = c.key.split(' ').length;
    let better: FieldCandidate | undefined;
    for (const o of out) {
      if (o.key === c.key || o.key.split(' ').length !== words) continue;
      const gain = registerScore(o) - registerScore(c) + (doc.lines[o.line]?.ocr ? 0 : 0.5);
      if (gain <= 0 || (better && registerScore(o) <= registerScore(better))) continue;
      const d = distance(o.key, c.key);
      if (d > 0 && d <= Math.min(2, Math.floor(c.key.length / 8))) better = o;
    }
    if (!better) continue;
    c.value = better.value;
    c.key = better.key;
    delete c.features.register_exact;
    delete c.features.register_close;
    if (better.features.register_exact) c.features.register_exact = better.features.register_exact;
    if (better.features.register_close) c.features.register_close = better.features.register_close;
    if (better.registerCountry) c.registerCountry = better.registerCountry;
  }
}

/** Every candidate for every ranked field. The plate, once chosen, is kept out of the policy number's candidates by the caller. */
export function generateCandidates(lines: Line[], ctx: CandidateContext, excludeNumbers: Set<string> = new Set()): Record<RankedField, FieldCandidate[]> {
  const doc = new Doc(lines);
  const dates = dateCandidates(doc);
  return {
    policy_number: policyCandidates(doc, ctx, excludeNumbers),
    insurer: insurerCandidates(doc, ctx),
    start_date: dates.filter((c) => c.field === 'start_date'),
    end_date: dates.filter((c) => c.field === 'end_date'),
    vehicle_registration: plateCandidates(doc, ctx),
  };
}

/** Per-field candidate generators, for callers that need one field before another (the country before policy numbers). */
export function documentView(lines: Line[]): { insurer: (ctx: CandidateContext) => FieldCandidate[]; plates: (ctx: CandidateContext) => FieldCandidate[]; dates: () => FieldCandidate[]; policy: (ctx: CandidateContext, exclude: Set<string>) => FieldCandidate[] } {
  const doc = new Doc(lines);
  return {
    insurer: (ctx) => insurerCandidates(doc, ctx),
    plates: (ctx) => plateCandidates(doc, ctx),
    dates: () => dateCandidates(doc),
    policy: (ctx, exclude) => policyCandidates(doc, ctx, exclude),
  };
}
