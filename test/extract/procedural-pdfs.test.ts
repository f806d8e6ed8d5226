/**
 * Floors per PDF technicality on documents of the procedural generator (scripts/procedural/pdf-documents.ts): random
 * layouts, wordings and languages, each with one technicality applied, read back through extractFields (reading and
 * fields together, the real OCR where a page needs it). test/extract/technicalities.test.ts holds each technicality
 * on three known policies; this one holds it on layouts nobody chose, so a rule that fits those three and not the
 * kind fails here. Validation seeds only (the ranker is trained on the others). Floors are the figure these
 * documents read at when they were set (every technicality 100%), less about two fields.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { EXTRACTED_FIELDS, sameField } from '../../scripts/extract-eval/compare.js';
import { proceduralDocument, renderProcedural, seedsOf, type Technicality } from '../../scripts/procedural/pdf-documents.js';
import { shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
let ocr: Ocr;
beforeAll(async () => {
  matcher = await shippedMatcher();
  ocr = await createOcr({ workers: 1 });
});
afterAll(async () => {
  await ocr.terminate();
});

/**
 * Documents per technicality and the floor of fields right. Text-layer technicalities take many documents (a
 * tenth of a second each); those read by OCR a few (seconds each), so the file stays near a minute of CPU.
 */
const FLOORS: Array<[Technicality, number, number]> = [
  ['none', 12, 0.97],
  ['acroform', 12, 0.97],
  ['rotated', 12, 0.97],
  ['letter_spaced', 12, 0.97],
  ['flattened_form', 12, 0.97],
  ['fonts', 12, 0.97],
  ['multi_page', 12, 0.97],
  ['encrypted', 12, 0.97],
  ['broken_text_layer', 4, 0.9],
  ['vector_outlines', 3, 0.88],
  ['ocr_layer', 2, 0.8],
  ['scan', 2, 0.8],
  ['photo_upload', 2, 0.8],
];

interface Score {
  right: number;
  total: number;
  sure: number;
  sureRight: number;
  misses: string[];
}

async function score(technicality: Technicality, count: number): Promise<Score> {
  const s: Score = { right: 0, total: 0, sure: 0, sureRight: 0, misses: [] };
  for (const seed of seedsOf('validation', count)) {
    const doc = proceduralDocument(seed, { technicality });
    const { bytes } = await renderProcedural(doc);
    const r = await extractFields(bytes, { ocr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    const fields = r.fields as unknown as Record<string, string | undefined>;
    for (const f of EXTRACTED_FIELDS) {
      const ok = sameField(f, doc.truth[f], fields[f]);
      s.total++;
      if (ok) s.right++;
      else s.misses.push(`seed ${seed} ${doc.variant} ${doc.layout} ${f}: ${doc.truth[f] ?? '-'} / ${fields[f] ?? '-'}`);
      const c = r.fields.confidence[f];
      if (c !== undefined && c >= 0.9) {
        s.sure++;
        if (ok) s.sureRight++;
      }
    }
  }
  return s;
}

describe('procedural PDFs: fields right per technicality', () => {
  it.each(FLOORS)(
    '%s (%i documents)',
    async (technicality, count, floor) => {
      const s = await score(technicality, count);
      // The misses go with the figure, so a failure says which draws broke.
      expect(s.right / s.total, `${s.right}/${s.total}\n${s.misses.join('\n')}`).toBeGreaterThanOrEqual(floor);
      // What the extractor is sure of stays right on layouts it was never fitted on.
      expect(s.sureRight, `${s.sureRight}/${s.sure} right at confidence >= 0.9\n${s.misses.join('\n')}`).toBeGreaterThanOrEqual(
        s.sure - Math.max(1, Math.floor(0.02 * s.sure)),
      );
    },
    300_000,
  );
});
