/**
 * Ranks a field's candidates (candidates/) with a logistic model per field and maps the winner's score
 * to a calibrated confidence. The weights and calibration bins are fitted by scripts/train-extract.ts on the
 * project's own corpus and committed as ranker-model.json; nothing is learnt at run time.
 */
import type { FieldCandidate, RankedField } from './candidates/index.js';
import MODEL_JSON from './ranker-model.json' with { type: 'json' };

export interface FieldModel {
  weights: Record<string, number>;
  /** Least calibrated confidence a winner needs to be returned at all. */
  threshold: number;
}

export interface RankerModel {
  fields: Record<RankedField, FieldModel>;
  /** Isotonic calibration: [raw score upper bound, confidence] steps, ascending, shared by all fields. */
  calibration: Array<[number, number]>;
}

export const SHIPPED_MODEL = MODEL_JSON as unknown as RankerModel;

const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

/** The model's probability that a candidate is the field's value. */
export function score(model: FieldModel, features: Record<string, number>): number {
  let z = 0;
  for (const [k, v] of Object.entries(features)) z += (model.weights[k] ?? 0) * v;
  return sigmoid(z);
}

/**
 * Evidence -> confidence: the isotonic step fitted on the own corpus, but never above the evidence itself.
 * The own corpus is nearly always right, so its steps say "1" for most scores; documents by other authors
 * are not, and a score the model itself doubts (a close rival, an OCR'd page) must stay doubtful.
 */
export function calibrate(model: RankerModel, raw: number): number {
  if (model.calibration.length === 0) return raw;
  for (const [bound, conf] of model.calibration) if (raw <= bound) return Math.min(raw, conf);
  return Math.min(raw, model.calibration[model.calibration.length - 1]?.[1] ?? raw);
}

export interface Ranked {
  candidate: FieldCandidate;
  raw: number;
}

/** Candidates best first, one per value (its best-scored occurrence). */
export function rank(model: RankerModel, field: RankedField, candidates: FieldCandidate[]): Ranked[] {
  const best = new Map<string, Ranked>();
  for (const c of candidates) {
    const raw = score(model.fields[field], c.features);
    const prev = best.get(c.key);
    if (!prev || raw > prev.raw) best.set(c.key, { candidate: c, raw });
  }
  return [...best.values()].sort((a, b) => b.raw - a.raw);
}
