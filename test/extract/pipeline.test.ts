import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { ExtractError } from '../../connector/src/extract/errors.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { normalisePolicyNumber } from '../../connector/src/verify/normalise.js';
import { ZExtractedFieldsSchema } from '../../shared/job.js';
import { corpusPdf, corpusTruth, shippedMatcher, encryptedPdf } from './helpers.js';

let matcher: InsurerMatcher;
let ocr: Ocr;
/** OCR must not run for text PDFs; this one fails the test if it is called. */
const noOcr: Ocr = {
  recognize: () => Promise.reject(new Error('OCR called for a text PDF')),
  terminate: () => Promise.resolve(),
};

beforeAll(async () => {
  matcher = await shippedMatcher();
  ocr = await createOcr({ workers: 1 });
});
afterAll(async () => {
  await ocr.terminate();
});

const FIELDS = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;
function expectTruth(id: string, fields: Record<string, unknown>): void {
  const truth = corpusTruth(id);
  for (const f of FIELDS) {
    const want = truth[f];
    const got = fields[f] as string | undefined;
    if (f === 'policy_number') expect(got && normalisePolicyNumber(got), `${id} ${f}`).toBe(want && normalisePolicyNumber(want));
    else expect(got, `${id} ${f}`).toBe(want);
  }
}

async function expectCode(pdf: Uint8Array, code: string, deps = { ocr: noOcr, matcher }): Promise<void> {
  const err = await extractFields(pdf, deps, { limits: EXTRACT_LIMIT_DEFAULTS }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExtractError);
  expect((err as ExtractError).code).toBe(code);
}

describe('extractFields on text PDFs', () => {
  it.each(['002', '004', '003', '006', '012'])('reads every field of %s from the text layer', async (id) => {
    const r = await extractFields(corpusPdf(id), { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(r.pages).toBe(1);
    expect(r.ocrPages).toBe(0);
    expectTruth(id, r.fields);
    expect(ZExtractedFieldsSchema.parse(r.fields)).toEqual(r.fields);
    expect(r.language).toBe(corpusTruth(id).language);
  });
});

describe('extractFields on a scan', () => {
  it('OCRs an image-only page and reads every field', async () => {
    const images: Buffer[] = [];
    const seeing: Ocr = { recognize: (image) => (images.push(image), ocr.recognize(image)), terminate: () => Promise.resolve() };
    const r = await extractFields(corpusPdf('015'), { ocr: seeing, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(r.ocrPages).toBe(1);
    // The page goes to tesseract as 8-bit greyscale PGM, not as a PNG it must decode.
    expect(images.map((i) => i.subarray(0, 3).toString('latin1'))).toEqual(['P5\n']);
    expectTruth('015', r.fields);
    // OCR'd fields carry less confidence than text-layer ones.
    expect(Math.max(...Object.values(r.fields.confidence))).toBeLessThan(1);
  });
});

describe('extractFields errors', () => {
  it('refuses a truncated PDF as corrupt_pdf', async () => {
    const pdf = corpusPdf('002');
    await expectCode(pdf.subarray(0, 400), 'corrupt_pdf');
  });

  it('refuses a GIF renamed .pdf as corrupt_pdf (JPEG and PNG are read as scans: image-input.test.ts)', async () => {
    const gif = Buffer.from('47494638396101000100800000ffffff00000021f90401000000002c00000000010001000002024401003b', 'hex');
    await expectCode(gif, 'corrupt_pdf');
  });

  it('refuses a password-protected PDF as encrypted_pdf', async () => {
    const pdf = encryptedPdf();
    await expectCode(pdf, 'encrypted_pdf');
  });

  it('refuses an image-only PDF with a blank page as no_readable_text', async () => {
    const doc = await PDFDocument.create();
    doc.addPage([595, 842]);
    await expectCode(await doc.save(), 'no_readable_text', { ocr, matcher });
  });

  it('refuses more pages than the cap as too_many_pages', async () => {
    const doc = await PDFDocument.create();
    for (let i = 0; i < 21; i++) doc.addPage([200, 200]);
    await expectCode(await doc.save(), 'too_many_pages');
  });

  it('leaves the caller buffer intact', async () => {
    const pdf = corpusPdf('002');
    const copy = Buffer.from(pdf);
    await extractFields(pdf, { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(pdf.equals(copy)).toBe(true);
  });
});
