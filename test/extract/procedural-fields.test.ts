/**
 * Field finding on documents drawn by the procedural generator (scripts/procedural/document-lines.ts): for each way
 * of printing a field that readers miss, many documents of random layout and wording, so a rule that fits one
 * wording and not the kind fails here. Floors, not exact counts: the generator's draws are fixed by their seeds.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { extractFieldsFromLines, type InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { EXTRACTED_FIELDS, sameField } from '../../scripts/extract-eval/compare.js';
import {
  NEGATIVE_KINDS,
  POLICY_KINDS,
  negativeDocument,
  policyDocument,
  type PolicyKind,
} from '../../scripts/procedural/document-lines.js';
import { shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
beforeAll(async () => {
  matcher = await shippedMatcher();
});

const SEEDS = 80;

interface Score {
  right: number;
  total: number;
  sure: number;
  sureRight: number;
  misses: string[];
}

function score(kind: PolicyKind): Score {
  const s: Score = { right: 0, total: 0, sure: 0, sureRight: 0, misses: [] };
  for (let seed = 1; seed <= SEEDS; seed++) {
    const doc = policyDocument(seed, kind);
    const r = extractFieldsFromLines({ lines: doc.lines, ...(doc.ocr ? { ocrConfidence: 0.85 } : {}) }, matcher);
    for (const f of EXTRACTED_FIELDS) {
      const expected = doc.truth[f];
      const got = r.fields[f];
      const ok = sameField(f, expected, got);
      s.total++;
      if (ok) s.right++;
      else if (s.misses.length < 8) s.misses.push(`seed ${seed} ${doc.language} ${f}: ${expected} / ${got}`);
      const c = r.fields.confidence[f];
      if (c !== undefined && c >= 0.9) {
        s.sure++;
        if (ok) s.sureRight++;
      }
    }
  }
  return s;
}

describe('procedural documents: fields right per kind', () => {
  it.each(POLICY_KINDS.map((k) => [k]))('%s', (kind) => {
    const s = score(kind);
    // The first misses go with the figure, so a failure says which draws broke.
    expect(s.right / s.total, s.misses.join('\n')).toBeGreaterThanOrEqual(0.98);
    // Calibration holds on layouts the ranker was never fitted on: what it is sure of is right.
    expect(s.sureRight / Math.max(1, s.sure)).toBeGreaterThanOrEqual(0.98);
  });
});

describe('procedural documents: the document type', () => {
  it.each(POLICY_KINDS.map((k) => [k]))('a policy document of kind %s is an insurance document', (kind) => {
    for (let seed = 1; seed <= 30; seed++) {
      const r = extractFieldsFromLines({ lines: policyDocument(seed, kind).lines }, matcher);
      expect(r.fields.document_type?.value, `seed ${seed}`).toBe('insurance');
    }
  });

  it.each(NEGATIVE_KINDS.map((k) => [k]))('a %s is no insurance document, and no field is invented on it', (kind) => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const doc = negativeDocument(seed, kind);
      const r = extractFieldsFromLines({ lines: doc.lines }, matcher);
      const found = EXTRACTED_FIELDS.filter((f) => r.fields[f] !== undefined);
      expect({ seed, language: doc.language, found, type: r.fields.document_type?.value }).toEqual({
        seed,
        language: doc.language,
        found: [],
        type: kind,
      });
      expect(r.fields.confidence).toEqual({});
    }
  });
});
