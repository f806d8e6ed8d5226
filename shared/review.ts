/**
 * Which extracted values a person checks before they are written anywhere: every field and coverage
 * detail of an extraction result as one list, each with its confidence, those below REVIEW_CONFIDENCE
 * marked. Plain functions without zod, for the add-on's server code (and any other client).
 */
import type { TExtractedFields } from './job.js';
import { LANGUAGE_PACKS } from './packs/index.js';
import { REVIEW_KEYS, type TReviewKey } from './review-keys.js';

export { REVIEW_KEYS, type TReviewKey };

/**
 * Values at or above this confidence are written as read; below it, a person confirms or corrects them
 * first. 0.9 is where the extractor's confidence is meant to be right 98% of the time.
 */
export const REVIEW_CONFIDENCE = 0.9;

/** The English names; the add-on names items in the user's language from the same packs (coverage-labels.ts). */
export const REVIEW_LABELS: Record<TReviewKey, string> = LANGUAGE_PACKS.en.addon.reviewLabels;

export interface ReviewItem {
  key: TReviewKey;
  label: string;
  /** The value as it would be written (a coverage detail's normalised value; the plan as printed). */
  value: string;
  /** The document's own wording of a coverage detail, when it differs from `value`. */
  printed?: string;
  confidence: number;
  /** Below REVIEW_CONFIDENCE: not written until a person confirms or corrects it. */
  needsReview: boolean;
}

/** Every value of an extraction result, in REVIEW_KEYS order. A field without a confidence counts as 0. */
export function reviewItems(fields: TExtractedFields): ReviewItem[] {
  const items: ReviewItem[] = [];
  for (const key of REVIEW_KEYS) {
    let value: string | undefined;
    let printed: string | undefined;
    let confidence: number;
    if (key.startsWith('coverage.')) {
      const detail = fields.coverage?.[key.slice(9) as keyof NonNullable<TExtractedFields['coverage']>];
      if (!detail) continue;
      value = detail.value;
      printed = 'printed' in detail && detail.printed && detail.printed !== detail.value ? detail.printed : undefined;
      confidence = detail.confidence;
    } else {
      const v = fields[key as keyof Omit<TExtractedFields, 'confidence' | 'coverage'>];
      if (v === undefined) continue;
      value = String(v);
      confidence = fields.confidence[key] ?? 0;
    }
    items.push({
      key,
      label: REVIEW_LABELS[key],
      value,
      ...(printed ? { printed } : {}),
      confidence,
      needsReview: confidence < REVIEW_CONFIDENCE,
    });
  }
  return items;
}

/** A person's answer for one value that needed review: confirmed as shown, or corrected; an empty value leaves it out. */
export interface ReviewAnswer {
  value: string;
  confirmed: boolean;
}

/**
 * The values to write: confident ones as read, the rest as the person answered. Throws when a value
 * that needs review has no confirmed answer, naming them, so nothing low-confidence is written unseen.
 */
export function reviewedValues(items: ReviewItem[], answers: Partial<Record<string, ReviewAnswer>>): Partial<Record<TReviewKey, string>> {
  const unconfirmed = items.filter((i) => i.needsReview && answers[i.key]?.confirmed !== true);
  if (unconfirmed.length)
    throw new Error(`Check ${unconfirmed.map((i) => i.label).join(', ')} first: confirm or correct each before it goes into the sheet.`);
  const out: Partial<Record<TReviewKey, string>> = {};
  for (const i of items) {
    const value = i.needsReview ? String(answers[i.key]!.value ?? '').trim() : i.value;
    if (value) out[i.key] = value;
  }
  return out;
}
