/**
 * Turns a document's text lines into the contract's ExtractedFields. Every field is optional: a field
 * is only returned when it was found (no field is guaranteed), each with a 0..1 confidence.
 */
import type { TExtractedFields } from '../../../shared/job.js';
import { ALL_LANGUAGE_PACKS, COUNTRIES, COUNTRY_PROFILES, INSURANCE_TYPES, LANGUAGE_PACKS, LANGUAGES, type TCountry, type TInsuranceType, type TLanguage } from '../../../shared/packs/index.js';
import { normalisePolicyNumber } from '../verify/normalise.js';
import { findDates, type FoundDate } from './dates.js';
import { labelledValues, NOT_POLICY_CONTEXT, type LabelKind } from './labels.js';
import { CELL_GAP, type Line } from './lines.js';
import { findPlates, normalisePlate, type FoundPlate } from './plates.js';
import { readPolicyNumber } from './policy-number.js';
import { fold } from './text.js';

/** Finds the register's canonical name for insurer text in one country; null when nothing is close. */
export type InsurerMatcher = (country: TCountry, text: string) => { name: string; score: number } | null;

export type Language = TLanguage;

export interface FieldsInput {
  lines: Line[];
  /** Mean OCR word confidence (0..1) when the text came from OCR; lowers every field's confidence. */
  ocrConfidence?: number;
}

export interface FieldsResult {
  fields: TExtractedFields;
  language?: Language;
  country?: TCountry;
}

/** The country whose documents are usually in a language: the first whose profile lists it first (en: UK). */
const COUNTRY_OF = Object.fromEntries(
  LANGUAGES.map((l) => [l, COUNTRIES.find((c) => COUNTRY_PROFILES[c].languages[0] === l) ?? COUNTRIES.find((c) => (COUNTRY_PROFILES[c].languages as readonly string[]).includes(l))]),
) as Record<Language, TCountry | undefined>;

/** Words that only (or mostly) occur in one language's policy documents (each pack's indicator words). */
const LANGUAGE_WORDS = Object.fromEntries(LANGUAGES.map((l) => [l, new RegExp(`\\b(?:${LANGUAGE_PACKS[l].indicatorWords.join('|')})\\b`, 'g')])) as Record<Language, RegExp>;

/** Guesses the document language from word frequencies; null for no evidence. */
export function guessLanguage(text: string): Language | null {
  const folded = fold(text);
  let best: Language | null = null;
  let bestCount = 0;
  for (const lang of LANGUAGES) {
    const count = folded.match(LANGUAGE_WORDS[lang])?.length ?? 0;
    if (count > bestCount) {
      best = lang;
      bestCount = count;
    }
  }
  return best;
}

/**
 * Wording per insurance type, every pack's words merged (a word two packs share counts once). Strong
 * phrases weigh four times ("Auslandsreise-Krankenversicherung" is travel cover, whatever "Kranken" says).
 */
const union = (xs: readonly string[]) => [...new Set(xs)].join('|');
const TYPE_WORDS: Array<[TInsuranceType, RegExp, number]> = INSURANCE_TYPES.flatMap((type): Array<[TInsuranceType, RegExp, number]> => {
  const strong = ALL_LANGUAGE_PACKS.flatMap((p) => ('strong' in p.typeWords[type] ? (p.typeWords[type].strong ?? []) : []));
  const words: Array<[TInsuranceType, RegExp, number]> = [[type, new RegExp(`\\b(?:${union(ALL_LANGUAGE_PACKS.flatMap((p) => p.typeWords[type].words))})\\b`, 'g'), 1]];
  return strong.length ? [[type, new RegExp(`(?:${union(strong)})`, 'g'), 4], ...words] : words;
});

/** Insurance type from wording; the title lines at the top count three times. */
export function inferType(lines: Line[]): { type: TInsuranceType; confidence: number } | null {
  const score = Object.fromEntries(INSURANCE_TYPES.map((t) => [t, 0])) as Record<TInsuranceType, number>;
  lines.forEach((line, i) => {
    const text = fold(line.text);
    const weight = i < 6 ? 3 : 1;
    for (const [type, re, w] of TYPE_WORDS) score[type] += (text.match(re)?.length ?? 0) * w * weight;
  });
  const ranked = (Object.entries(score) as Array<[TInsuranceType, number]>).sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked as [[TInsuranceType, number], [TInsuranceType, number]];
  if (first[1] === 0) return null;
  const margin = (first[1] - second[1]) / first[1];
  return { type: first[0], confidence: Math.min(0.97, 0.6 + 0.4 * margin) };
}

interface Candidate<T> {
  value: T;
  confidence: number;
}

function firstLabelled<T>(lines: Line[], kind: LabelKind, parse: (text: string) => Candidate<T> | null): Candidate<T> | null {
  for (const v of labelledValues(lines, kind)) {
    const parsed = parse(v.text);
    if (parsed) return { value: parsed.value, confidence: parsed.confidence * v.position };
  }
  return null;
}

/** What may stand between the two dates of a period: a dash, or a pack's connecting word ("to", "bis", "au"). */
const PERIOD_BETWEEN = new RegExp(`^\\s*(?:${union(ALL_LANGUAGE_PACKS.flatMap((p) => p.periodConnectors))}|-|–|—)\\s*$`);

/** Start and end dates: a period label with two dates, separate start/end labels, then "from X to Y" wording anywhere. */
function findPeriod(lines: Line[]): { start?: Candidate<string>; end?: Candidate<string> } {
  const twoDates = (text: string): Candidate<[FoundDate, FoundDate]> | null => {
    const d = findDates(text);
    if (d.length < 2) return null;
    const [a, b] = d as [FoundDate, FoundDate];
    return a.iso < b.iso ? { value: [a, b], confidence: Math.min(a.certainty, b.certainty) } : null;
  };
  const period = firstLabelled(lines, 'period', twoDates);
  const date = (text: string): Candidate<string> | null => {
    const d = findDates(text)[0];
    return d ? { value: d.iso, confidence: d.certainty } : null;
  };
  let start = firstLabelled(lines, 'start', date);
  let end = firstLabelled(lines, 'end', date);
  if (period) {
    start ??= { value: period.value[0].iso, confidence: period.confidence };
    end ??= { value: period.value[1].iso, confidence: period.confidence };
  }
  if (!start || !end) {
    // Prose: "runs from 1 March 2026 to 28 February 2027", "vom ... bis ...", "du ... au ...".
    for (const line of lines) {
      const text = line.text;
      const d = findDates(text);
      if (d.length !== 2) continue;
      const [a, b] = d as [FoundDate, FoundDate];
      const between = fold(text.slice(a.end, b.index));
      if (!PERIOD_BETWEEN.test(between) || a.iso >= b.iso) continue;
      start ??= { value: a.iso, confidence: 0.85 * a.certainty };
      end ??= { value: b.iso, confidence: 0.85 * b.certainty };
      break;
    }
  }
  if (start && end && start.value >= end.value) return {};
  return { ...(start ? { start } : {}), ...(end ? { end } : {}) };
}

/** Splits a letterhead or footer line into the pieces a name could be ("HDI Global SE · Amtsgericht ..." -> both). */
function nameSegments(raw: string): string[] {
  // OCR reads the "I" of "I.A.R.D." (French company names) as "L" or "l".
  const text = raw.replace(/\b[Ll1|]\.?\s?A\.?\s?R\.?\s?D\b\.?/g, 'I.A.R.D.').replace(/FRANCEL?I?\.?A\.?R\.?D/g, 'FRANCE I.A.R.D');
  const parts = text.split(new RegExp(`\\s[·•|]\\s|${CELL_GAP}|\\s[-–—]\\s|,\\s`)).map((s) => s.trim().replace(/[.:;,]+$/, ''));
  return [...new Set([text.trim(), ...parts])].filter((s) => s.length >= 3 && /[A-Za-z]/.test(s));
}

function matchInsurer(matcher: InsurerMatcher, countries: TCountry[], text: string): { name: string; score: number; country: TCountry } | null {
  let best: { name: string; score: number; country: TCountry } | null = null;
  for (const country of countries) {
    const m = matcher(country, text);
    if (m && (!best || m.score > best.score)) best = { ...m, country };
  }
  return best;
}

/** The insurer: a labelled value first, then the letterhead and footer lines, mapped to the register's name. */
function findInsurer(lines: Line[], matcher: InsurerMatcher, countries: TCountry[]): { name: string; confidence: number; country?: TCountry } | null {
  for (const v of labelledValues(lines, 'insurer')) {
    const cleaned = v.text.replace(/[.;:]+$/, '').trim();
    let best: { name: string; score: number; country: TCountry } | null = null;
    for (const seg of nameSegments(cleaned)) {
      const m = matchInsurer(matcher, countries, seg);
      if (m && (!best || m.score > best.score)) best = m;
    }
    if (best && best.score >= 0.85) return { name: best.name, confidence: best.score * v.position, country: best.country };
  }
  // No label, or the labelled text is not in the register: names in the letterhead (top) or footer (bottom).
  // The letterhead and the footer's company line hold nothing but names and addresses, so a word-level
  // match is trusted there; other top lines (titles such as "Mutuelle santé") need an exact or alias match.
  const candidates: Array<[Line, number]> = [
    ...lines.slice(0, 2).map((l): [Line, number] => [l, 0.85]),
    ...lines.slice(2, 4).map((l): [Line, number] => [l, 0.95]),
    ...lines.slice(Math.max(4, lines.length - 2)).map((l): [Line, number] => [l, 0.85]),
  ];
  let best: { name: string; score: number; country: TCountry } | null = null;
  for (const [line, threshold] of candidates) {
    for (const seg of nameSegments(line.text)) {
      const m = matchInsurer(matcher, countries, seg);
      if (m && m.score >= threshold && (!best || m.score > best.score)) best = m;
    }
  }
  if (best) return { name: best.name, confidence: best.score * 0.85, country: best.country };
  const labelled = labelledValues(lines, 'insurer')[0];
  if (labelled && /[A-Za-z]{3}/.test(labelled.text)) return { name: labelled.text.replace(/[.;:]+$/, '').trim(), confidence: 0.3 };
  return null;
}

function findPlate(lines: Line[], countries: TCountry[], motor: boolean): Candidate<FoundPlate> | null {
  const ocr = lines.some((l) => l.ocr);
  const labelled = firstLabelled(lines, 'registration', (text) => {
    const p = findPlates(text, countries).find((x) => ocr || x.certainty === 1);
    return p ? { value: p, confidence: 0.97 * p.certainty } : null;
  });
  if (labelled || !motor) return labelled;
  // Unlabelled: only strict readings (no look-alike swaps) and only in motor documents.
  for (const line of lines) {
    if (NOT_POLICY_CONTEXT.test(fold(line.text))) continue;
    const p = findPlates(line.text, countries).find((x) => x.certainty === 1);
    if (p) return { value: p, confidence: 0.6 };
  }
  return null;
}

function findPolicyNumber(lines: Line[], country: TCountry, type: TInsuranceType | undefined, exclude: Set<string>): Candidate<string> | null {
  const ocr = lines.some((l) => l.ocr);
  const labelled = firstLabelled(lines, 'policy', (text) => {
    const r = readPolicyNumber(text, country, type, { ocr, labelled: true });
    return r ? { value: r.value, confidence: (r.repaired ? 0.85 : 0.97) * (r.plausible ? 1 : 0.7) } : null;
  });
  if (labelled) return labelled;
  // Unlabelled: the first number that fits the country's format and is not a date, plate, phone or customer number.
  for (const line of lines) {
    const folded = fold(line.text);
    if (NOT_POLICY_CONTEXT.test(folded)) continue;
    let text = line.text;
    for (const d of findDates(text).reverse()) text = text.slice(0, d.index) + ' ' + text.slice(d.end);
    for (const cell of text.split(CELL_GAP)) {
      const words = cell.split(/\s+/);
      for (let i = 0; i < words.length; i++) {
        const r = readPolicyNumber(words.slice(i).join(' '), country, type, { ocr });
        if (!r) continue;
        const n = normalisePolicyNumber(r.value);
        if (exclude.has(n) || /^\d{5}$/.test(n) || /[£€$]/.test(cell)) continue;
        return { value: r.value, confidence: 0.55 };
      }
    }
  }
  return null;
}

const round = (x: number): number => Math.round(Math.max(0, Math.min(1, x)) * 100) / 100;

/** Extracts the contract fields from text lines. Fields not found are left out; none is guaranteed. */
export function extractFieldsFromLines(input: FieldsInput, matcher: InsurerMatcher): FieldsResult {
  const lines = input.lines.map((l) => ({ text: l.text.normalize('NFC'), cells: l.cells.map((c) => ({ x: c.x, text: c.text.normalize('NFC') })) }));
  const allText = lines.map((l) => l.text).join('\n');
  const ocrFactor = input.ocrConfidence === undefined ? 1 : 0.6 + 0.4 * input.ocrConfidence;
  const fields: TExtractedFields = { confidence: {} };
  const set = <K extends keyof Omit<TExtractedFields, 'confidence'>>(key: K, value: TExtractedFields[K], confidence: number): void => {
    fields[key] = value;
    fields.confidence[key] = round(confidence * ocrFactor);
  };

  const language = guessLanguage(allText) ?? undefined;
  const type = inferType(lines);
  if (type) set('insurance_type', type.type, type.confidence);

  // Country: the insurer's register country when it matches, else a plate's format, else the language.
  const languageCountry = language ? COUNTRY_OF[language] : undefined;
  const insurer = findInsurer(lines, matcher, languageCountry ? [languageCountry, ...COUNTRIES.filter((c) => c !== languageCountry)] : COUNTRIES);
  const plate = findPlate(lines, insurer?.country ? [insurer.country] : languageCountry ? [languageCountry] : COUNTRIES, type?.type === 'motor' || type === null);
  let country: TCountry | undefined = insurer?.country ?? plate?.value.country ?? languageCountry;
  // A currency only one country uses on the page (the pound) outweighs the language guess.
  const byCurrency = COUNTRIES.find((c) => COUNTRY_PROFILES[c].currencySymbols.some((sym: string) => allText.includes(sym)));
  if (!insurer?.country && byCurrency) country = byCurrency;
  if (insurer) set('insurer', insurer.name, insurer.confidence);
  if (plate) set('vehicle_registration', plate.value.plate, plate.confidence);

  const { start, end } = findPeriod(lines);
  if (start) set('start_date', start.value, start.confidence * 0.97);
  if (end) set('end_date', end.value, end.confidence * 0.97);

  if (country) {
    const exclude = new Set<string>(plate ? [normalisePlate(plate.value.plate)] : []);
    const policy = findPolicyNumber(lines, country, type?.type, exclude);
    if (policy) set('policy_number', policy.value, policy.confidence);
  }
  return { fields, ...(language ? { language } : {}), ...(country ? { country } : {}) };
}
