/**
 * A scan's invisible OCR layer is an OCR engine's reading of the image as it was. Over a flatbed scan that reading
 * is as good as ours and is read as text; over a phone photo of a sheet lying at a slant the engine read it
 * unstraightened and lost words (a value column, a date) even where its words lie straight, so the page is read by
 * our own OCR, which straightens the sheet first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { readDocumentLines } from '../../connector/src/extract/reading/read-document.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { EXTRACTED_FIELDS, sameField } from '../../scripts/extract-eval/compare.js';
import { proceduralDocument, renderProcedural } from '../../scripts/procedural/pdf-documents.js';
import { shippedMatcher } from './helpers.js';

/** An OCR that counts its calls and reads every image as the same short page. */
function countingOcr(): Ocr & { calls: number } {
  const fake = {
    calls: 0,
    recognize: () => {
      fake.calls++;
      const text = 'Read by our own OCR from the straightened photo';
      return Promise.resolve({ lines: [{ text, cells: [{ x: 0, text }] }], confidence: 0.9, words: 9 });
    },
    terminate: () => Promise.resolve(),
  };
  return fake;
}

/** Validation seeds carrying an OCR layer: 483 and 906 over a photo (words lying straight), 81 over a flatbed scan. */
const layered = async (seed: number, variant: string) => {
  const doc = proceduralDocument(seed, { technicality: 'ocr_layer' });
  expect(doc.variant).toBe(variant);
  return { doc, bytes: (await renderProcedural(doc)).bytes };
};

describe("a scan's OCR layer", () => {
  it('over a photo of a sheet at a slant is not believed: the page is read by OCR', async () => {
    const { bytes } = await layered(483, 'photo');
    const ocr = countingOcr();
    const read = await readDocumentLines(bytes, ocr, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(read.ocrPages).toBe(1);
    expect(ocr.calls).toBeGreaterThan(0);
    expect(read.lines.every((l) => l.ocr)).toBe(true);
  }, 60_000);

  it('over a flatbed scan is read as text', async () => {
    const { bytes } = await layered(81, 'flatbed');
    const ocr = countingOcr();
    const read = await readDocumentLines(bytes, ocr, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(read.ocrPages).toBe(0);
    expect(ocr.calls).toBe(0);
  }, 60_000);
});

describe('photos whose OCR layer lost values', () => {
  let matcher: InsurerMatcher;
  let ocr: Ocr;
  beforeAll(async () => {
    matcher = await shippedMatcher();
    ocr = await createOcr({ workers: 1 });
  });
  afterAll(async () => {
    await ocr.terminate();
  });

  it.each([483, 906])(
    'seed %i reads every field',
    async (seed) => {
      const { doc, bytes } = await layered(seed, 'photo');
      const r = await extractFields(bytes, { ocr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
      const fields = r.fields as unknown as Record<string, string | undefined>;
      const wrong = EXTRACTED_FIELDS.filter((f) => !sameField(f, doc.truth[f], fields[f])).map(
        (f) => `${f}: ${doc.truth[f] ?? '-'} / ${fields[f] ?? '-'}`,
      );
      expect(wrong).toEqual([]);
    },
    120_000,
  );
});
