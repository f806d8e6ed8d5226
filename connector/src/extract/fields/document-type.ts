/**
 * Whether a document is an insurance document at all. People upload what they have: an invoice, a bank statement,
 * a letter from a landlord. Each holds numbers, dates and a company's name, and read as a policy they "complete"
 * with a made-up insurer and policy number. Each kind is weighed by its own words (the packs' `documentKindWords`),
 * insurance also by the field labels of a policy and a carrier the register knows; insurance wins ties, so a
 * premium notice (an invoice of a kind, full of insurance wording) stays one.
 */
import type { TDocumentType, TDocumentTypeResult } from '../../../../shared/job.js';
import { packAlternation } from '../../../../shared/packs/index.js';
import type { LabelKind } from './labels.js';
import type { Line } from '../reading/lines.js';
import { fold } from './text.js';

type Kind = Exclude<TDocumentType, 'other'>;
const KINDS: readonly Kind[] = ['insurance', 'invoice', 'bank_statement', 'letter'];

/** Each kind's words, one global pattern each, matched on folded text. */
const WORDS = Object.fromEntries(
  KINDS.map((k) => [k, new RegExp(`(?<![\\p{L}])(?:${packAlternation((p) => p.documentKindWords[k])})(?![\\p{L}])`, 'gu')]),
) as Record<Kind, RegExp>;

/** A word counts at most this often: a policy says "insurance" twenty times, an invoice "total" a few. */
const MAX_REPEATS = 3;
/** Lines at the top of the first page (the title) weigh this much more. */
const TITLE_WEIGHT = 2;
/** What a policy's own labels and a known carrier add to its wording. */
const LABEL_WEIGHT: Partial<Record<LabelKind, number>> = { policy: 2, insurer: 2, period: 1, start: 1, end: 1, registration: 1 };
const REGISTER_WEIGHT = 3;
/** An insurance type's wording ("Kfz", "travel", "mutuelle santé") adds up to this much. */
const MAX_TYPE_WORDS = 4;
/**
 * A letter's words weigh half: they say the document is a letter, not that it is about no policy (insurers write
 * letters too); only a letter with next to no insurance wording is taken for an unrelated one.
 */
const KIND_WEIGHT: Record<Kind, number> = { insurance: 1, invoice: 1, bank_statement: 1, letter: 0.5 };

export interface TypeEvidence {
  /** The kinds of field label found in the document. */
  labelKinds: ReadonlySet<LabelKind>;
  /** The carrier chosen is one the register knows exactly. */
  registerMatch: boolean;
  /** How many words of an insurance type's wording the document holds, outside the names of the firms it names. */
  typeWords: number;
}

/**
 * Each kind's weight of evidence in the lines; `core` is the insurance evidence other than type words (insurance
 * words, field labels, a known carrier): "Kfz" or "travel" alone is a garage's or a travel agent's wording too.
 */
export function documentKindScores(lines: readonly Line[], evidence: TypeEvidence): Record<Kind | 'core', number> {
  const score = Object.fromEntries(KINDS.map((k) => [k, 0])) as Record<Kind, number>;
  const seen = Object.fromEntries(KINDS.map((k) => [k, new Map<string, number>()])) as Record<Kind, Map<string, number>>;
  lines.forEach((line, i) => {
    const text = fold(line.text);
    const weight = i < 4 && (line.page ?? 1) === 1 ? TITLE_WEIGHT : 1;
    for (const k of KINDS)
      for (const m of text.matchAll(WORDS[k])) {
        const n = seen[k].get(m[0]) ?? 0;
        if (n >= MAX_REPEATS) continue;
        seen[k].set(m[0], n + 1);
        score[k] += weight * KIND_WEIGHT[k];
      }
  });
  for (const kind of evidence.labelKinds) score.insurance += LABEL_WEIGHT[kind] ?? 0;
  if (evidence.registerMatch) score.insurance += REGISTER_WEIGHT;
  const core = score.insurance;
  score.insurance += Math.min(MAX_TYPE_WORDS, evidence.typeWords);
  return { ...score, core };
}

/**
 * The document's type and how sure that is: the kind with the most evidence (insurance on a tie), "other" when
 * nothing points anywhere. The confidence grows with the lead over the runner-up.
 */
export function documentType(lines: readonly Line[], evidence: TypeEvidence): TDocumentTypeResult {
  const score = documentKindScores(lines, evidence);
  // Type words alone do not make an insurance document.
  if (score.core === 0) score.insurance = 0;
  const ranked = [...KINDS].sort((a, b) => score[b] - score[a] || (a === 'insurance' ? -1 : b === 'insurance' ? 1 : 0));
  const [first, second] = ranked as [Kind, Kind];
  if (score[first] === 0) return { value: 'other', confidence: 0.5 };
  const lead = score[first] - score[second];
  const confidence = Math.round(Math.min(0.99, 1 / (1 + Math.exp(-lead / 3))) * 100) / 100;
  return { value: first, confidence };
}
