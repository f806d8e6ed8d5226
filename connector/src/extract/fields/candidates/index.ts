/**
 * Every candidate value for each ranked field (policy number, insurer, start and end date, plate), each
 * described by features the ranker (../ranker.ts) weighs: which label points at it and how (same cell,
 * sentence, cell to the left, cell above), distractor words nearby, the value's shape, page and position,
 * and whether OCR read it. No choice is made here.
 */
import type { Line } from '../../reading/lines.js';
import type { LabelKind } from '../labels.js';
import type { CandidateContext, FieldCandidate } from './candidate.js';
import { DocumentIndex } from './document-index.js';
import { insurerCandidates } from './insurer.js';
import { dateCandidates } from './period.js';
import { plateCandidates } from './plate.js';
import { policyCandidates } from './policy-number.js';

export { RANKED_FIELDS, type CandidateContext, type FieldCandidate, type NameMatcher, type RankedField } from './candidate.js';

/** Per-field candidate generators, for callers that need one field before another (the country before policy numbers). */
export function documentView(lines: Line[]): {
  insurer: (ctx: CandidateContext) => FieldCandidate[];
  plates: (ctx: CandidateContext) => FieldCandidate[];
  dates: () => FieldCandidate[];
  policy: (ctx: CandidateContext, exclude: Set<string>) => FieldCandidate[];
  /** The kinds of field label the document holds. */
  labelKinds: () => Set<LabelKind>;
} {
  const doc = new DocumentIndex(lines);
  return {
    insurer: (ctx) => insurerCandidates(doc, ctx),
    plates: (ctx) => plateCandidates(doc, ctx),
    dates: () => dateCandidates(doc),
    policy: (ctx, exclude) => policyCandidates(doc, ctx, exclude),
    labelKinds: () => new Set(doc.hits.flat().map((h) => h.kind)),
  };
}
