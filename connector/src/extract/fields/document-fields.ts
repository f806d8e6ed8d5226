/**
 * Turns a document's text lines into the contract's ExtractedFields. Every field is optional: a field
 * is only returned when it was found (no field is guaranteed), each with a 0..1 confidence.
 */
import type { TDocumentTypeResult, TExtractedFields } from '../../../../shared/job.js';
import {
  COUNTRIES,
  COUNTRY_PROFILES,
  INSURANCE_TYPES,
  LANGUAGE_PACKS,
  LANGUAGES,
  packAlternation,
  type TCountry,
  type TInsuranceType,
  type TLanguage,
} from '../../../../shared/packs/index.js';
import { documentView, type FieldCandidate, type RankedField } from './candidates/index.js';
import type { Line } from '../reading/lines.js';
import { documentType } from './document-type.js';
import { closeUpLetterSpacing } from './letter-spacing.js';
import { findPlates, normalisePlate } from './plates.js';
import { calibrate, rank, SHIPPED_MODEL, type Ranked, type RankerModel } from './ranker.js';
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
  LANGUAGES.map((l) => [
    l,
    COUNTRIES.find((c) => COUNTRY_PROFILES[c].languages[0] === l) ??
      COUNTRIES.find((c) => (COUNTRY_PROFILES[c].languages as readonly string[]).includes(l)),
  ]),
) as Record<Language, TCountry | undefined>;

/** Words that only (or mostly) occur in one language's policy documents (each pack's indicator words). */
const LANGUAGE_WORDS = Object.fromEntries(
  LANGUAGES.map((l) => [l, new RegExp(`\\b(?:${LANGUAGE_PACKS[l].indicatorWords.join('|')})\\b`, 'g')]),
) as Record<Language, RegExp>;

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
const TYPE_WORDS: Array<[TInsuranceType, RegExp, number]> = INSURANCE_TYPES.flatMap((type): Array<[TInsuranceType, RegExp, number]> => {
  const strong = packAlternation((p) => ('strong' in p.typeWords[type] ? (p.typeWords[type].strong ?? []) : []));
  const words: Array<[TInsuranceType, RegExp, number]> = [
    [type, new RegExp(`\\b(?:${packAlternation((p) => p.typeWords[type].words)})\\b`, 'g'), 1],
  ];
  return strong ? [[type, new RegExp(`(?:${strong})`, 'g'), 4], ...words] : words;
});

/** How many insurance-type words the lines hold outside `names` (each line's matches of every type's wording). */
function typeWordCount(lines: Line[], names: readonly string[]): number {
  const folded = names.map(fold).filter((n) => n.length >= 4);
  let n = 0;
  for (const line of lines) {
    let text = fold(line.text);
    for (const name of folded) text = text.split(name).join(' ');
    for (const [, re] of TYPE_WORDS) n += text.match(re)?.length ?? 0;
  }
  return n;
}

/**
 * Insurance type from wording; the title lines at the top count three times. Words inside `names` (the carrier's
 * name: a "Krankenversicherung a.G." sells travel cover too) are not the document's wording.
 */
export function inferType(lines: Line[], names: readonly string[] = []): { type: TInsuranceType; confidence: number } | null {
  const score = Object.fromEntries(INSURANCE_TYPES.map((t) => [t, 0])) as Record<TInsuranceType, number>;
  const folded = names.map(fold).filter((n) => n.length >= 4);
  lines.forEach((line, i) => {
    let text = fold(line.text);
    for (const n of folded) text = text.split(n).join(' ');
    const weight = i < 6 ? 3 : 1;
    for (const [type, re, w] of TYPE_WORDS) score[type] += (text.match(re)?.length ?? 0) * w * weight;
  });
  const ranked = (Object.entries(score) as Array<[TInsuranceType, number]>).sort((a, b) => b[1] - a[1]);
  const [first, second] = ranked as [[TInsuranceType, number], [TInsuranceType, number]];
  if (first[1] === 0) return null;
  const margin = (first[1] - second[1]) / first[1];
  return { type: first[0], confidence: Math.min(0.97, 0.6 + 0.4 * margin) };
}

const round = (x: number): number => Math.round(Math.max(0, Math.min(1, x)) * 100) / 100;

/** Candidates of every ranked field as the extractor sees them, with the context choices made on the way (country). */
export interface DocumentCandidates {
  language?: Language;
  country?: TCountry;
  type: { type: TInsuranceType; confidence: number } | null;
  candidates: Record<RankedField, FieldCandidate[]>;
  lines: Line[];
  /** The insurer and plate chosen, which decide the country and what the policy number cannot be. */
  chosen: Partial<Record<RankedField, Ranked>>;
  /** Whether this is an insurance document at all (document-type.ts). */
  documentType: TDocumentTypeResult;
}

/**
 * The document's country from its signals, in order of trust: the insurer's register country, a currency only one
 * country uses, a labelled plate read as printed, the language. Each signal is one vote and the first signal breaks
 * a tie. Registers list foreign insurers too (the French one has "Aviva Insurance UK Limited"), so a register hit
 * alone must not outvote an English document with a British plate.
 */
export function countryByVote(signals: ReadonlyArray<TCountry | undefined>): TCountry | undefined {
  const votes = new Map<TCountry, number>();
  for (const s of signals) if (s) votes.set(s, (votes.get(s) ?? 0) + 1);
  const most = Math.max(0, ...votes.values());
  return signals.find((s): s is TCountry => s !== undefined && votes.get(s) === most);
}

/**
 * Generates the candidates of every field in the order the fields depend on one another: the insurer
 * (its register country is the document's country), the plate (never also the policy number), dates,
 * then policy numbers, whose plausibility depends on the country and type.
 */
export function documentCandidates(input: FieldsInput, matcher: InsurerMatcher, model: RankerModel = SHIPPED_MODEL): DocumentCandidates {
  const lines = input.lines.map((l) =>
    closeUpLetterSpacing({
      ...l,
      text: l.text.normalize('NFC'),
      cells: l.cells.map((c) => ({ ...c, text: c.text.normalize('NFC') })),
    }),
  );
  const allText = lines.map((l) => l.text).join('\n');
  const language = guessLanguage(allText) ?? undefined;
  const languageCountry = language ? COUNTRY_OF[language] : undefined;
  const countries = languageCountry ? [languageCountry, ...COUNTRIES.filter((c) => c !== languageCountry)] : [...COUNTRIES];
  const view = documentView(lines);
  const insurers = view.insurer({ lines, matcher, countries });
  const insurer = rank(model, 'insurer', insurers)[0];
  // The carrier's name votes for a type only when nothing else in the document does.
  const names = [...(insurer ? [insurer.candidate.value] : []), ...insurers.filter((c) => c.features.intermediary).map((c) => c.value)];
  const type = inferType(lines, names) ?? inferType(lines);
  const base = { lines, matcher, countries, ...(type ? { type: type.type } : {}) };
  const byCurrency = COUNTRIES.find((c) => COUNTRY_PROFILES[c].currencySymbols.some((sym: string) => allText.includes(sym)));
  const strictPlate = view.plates(base).find((c) => !c.features.uncertain && Object.keys(c.features).some((k) => k.startsWith('lab_own')));
  const plateCountry = strictPlate ? COUNTRIES.find((c) => findPlates(strictPlate.value, [c]).length > 0) : undefined;
  const country = countryByVote([insurer?.candidate.registerCountry, byCurrency, plateCountry, languageCountry]);
  const ctx = { ...base, ...(country ? { country, countries: [country] } : {}) };
  const plates = view.plates(ctx);
  const plate = rank(model, 'vehicle_registration', plates)[0];
  const dates = view.dates();
  const exclude = new Set<string>(plate ? [normalisePlate(plate.candidate.value)] : []);
  const policy = view.policy(ctx, exclude);
  return {
    ...(language ? { language } : {}),
    ...(country ? { country } : {}),
    type,
    lines,
    candidates: {
      insurer: insurers,
      vehicle_registration: plates,
      start_date: dates.filter((c) => c.field === 'start_date'),
      end_date: dates.filter((c) => c.field === 'end_date'),
      policy_number: policy,
    },
    chosen: { ...(insurer ? { insurer } : {}), ...(plate ? { vehicle_registration: plate } : {}) },
    documentType: documentType(lines, {
      labelKinds: view.labelKinds(),
      registerMatch: !!insurer?.candidate.features.register_exact,
      typeWords: typeWordCount(lines, names),
    }),
  };
}

/** Start and end: the best-scored pair with start before end (scores multiplied), among each field's leaders. */
function choosePeriod(model: RankerModel, starts: FieldCandidate[], ends: FieldCandidate[]): { start?: Ranked; end?: Ranked } {
  const s = rank(model, 'start_date', starts).slice(0, 8);
  const e = rank(model, 'end_date', ends).slice(0, 8);
  let best: { start: Ranked; end: Ranked; p: number } | null = null;
  for (const a of s)
    for (const b of e)
      if (a.candidate.value < b.candidate.value && (!best || a.raw * b.raw > best.p)) best = { start: a, end: b, p: a.raw * b.raw };
  if (best) return best;
  return { ...(s[0] ? { start: s[0] } : {}) };
}

/** Extracts the contract fields from text lines. Fields not found are left out; none is guaranteed. */
export function extractFieldsFromLines(input: FieldsInput, matcher: InsurerMatcher, model: RankerModel = SHIPPED_MODEL): FieldsResult {
  const doc = documentCandidates(input, matcher, model);
  const found = { ...(doc.language ? { language: doc.language } : {}), ...(doc.country ? { country: doc.country } : {}) };
  // Nothing read from an invoice, a bank statement or an unrelated letter is a policy's: no field rather than an invented one.
  if (doc.documentType.value !== 'insurance') return { fields: { confidence: {}, document_type: doc.documentType }, ...found };
  const fields: TExtractedFields = { confidence: {}, document_type: doc.documentType };
  const set = (key: RankedField | 'insurance_type', value: string, confidence: number): void => {
    (fields as Record<string, unknown>)[key] = value;
    fields.confidence[key] = round(confidence);
  };
  if (doc.type)
    set('insurance_type', doc.type.type, doc.type.confidence * (input.ocrConfidence === undefined ? 1 : 0.6 + 0.4 * input.ocrConfidence));
  const ocrFactor = input.ocrConfidence === undefined ? 1 : 0.6 + 0.4 * input.ocrConfidence;
  const take = (field: RankedField, r: Ranked | undefined, runnerUp?: Ranked): void => {
    if (!r) return;
    // What calibration maps: the winner's score, lowered when a rival value scored close to it (a margin
    // under 0.3) and when OCR read it (by the page's mean word confidence, as before ranking).
    const margin = r.raw - (runnerUp?.raw ?? 0);
    const evidence = r.raw * Math.min(1, 0.7 + margin) * (doc.lines[r.candidate.line]?.ocr ? ocrFactor : 1);
    const confidence = calibrate(model, evidence);
    if (confidence >= model.fields[field].threshold) set(field, r.candidate.value, confidence);
  };
  const runnerUp = (field: RankedField, winner: Ranked | undefined): Ranked | undefined =>
    rank(model, field, doc.candidates[field]).find((x) => x.candidate.key !== winner?.candidate.key);
  take('insurer', doc.chosen.insurer, runnerUp('insurer', doc.chosen.insurer));
  take('vehicle_registration', doc.chosen.vehicle_registration, runnerUp('vehicle_registration', doc.chosen.vehicle_registration));
  const period = choosePeriod(model, doc.candidates.start_date, doc.candidates.end_date);
  take('start_date', period.start, runnerUp('start_date', period.start));
  take('end_date', period.end, runnerUp('end_date', period.end));
  const policy = rank(model, 'policy_number', doc.candidates.policy_number);
  take('policy_number', policy[0], policy[1]);
  return { fields, ...found };
}
