/**
 * Photos of documents as they are sent: a phone photo of the sheet at a slant, soft, lit unevenly, some 1,000 by
 * 1,400 pixels (scripts/procedural/technicalities/scans.ts). The reading straightens the sheet, reads it enlarged
 * and with a threshold per neighbourhood (read-document.ts, ocr.ts); the fields side reads what OCR still glues
 * together. Validation seeds of the procedural generator that lost fields read with one threshold at the photo's
 * own size: a label column dropped whole, "2LU" for "ZLU", a name cut at a glued "a.G".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { extractFieldsFromLines, type InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { EXTRACTED_FIELDS, sameField } from '../../scripts/extract-eval/compare.js';
import { proceduralDocument, renderProcedural } from '../../scripts/procedural/pdf-documents.js';
import { lines, shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
beforeAll(async () => {
  matcher = await shippedMatcher();
});

describe('what OCR of a photo glues together', () => {
  const ocrLines = (...texts: string[]) => lines(...texts).map((l) => ({ ...l, ocr: true }));

  it('reads a date whose year OCR glued to its month ("1. November2025")', () => {
    const f = extractFieldsFromLines(
      {
        lines: ocrLines(
          'Hansetal Versicherungsverein a.G.',
          'Versicherungsbestätigung für Ihr Fahrzeug',
          'Vertragsnummer   9522 7497 7',
          'Versicherungsdauer   1. November2025- 31.10.2026',
        ),
      },
      matcher,
    ).fields;
    expect([f.start_date, f.end_date]).toEqual(['2025-11-01', '2026-10-31']);
  });

  it('reads a mutual\'s "a.G." that OCR glued to the word before it', () => {
    const f = extractFieldsFromLines(
      {
        lines: ocrLines(
          'Lindheim Versicherungsvereina.G',
          'Versicherungsbestätigung für Ihr Fahrzeug',
          'Vertragsnummer   VKS58847255',
          'Versicherer   Lindheim Versicherungsvereina.G',
          'Versicherungsbeginn   01.05.2026',
        ),
      },
      matcher,
    ).fields;
    expect(f.insurer).toBe('Lindheim Versicherungsverein a.G.');
  });

  it('reads a legal form OCR read as a word ("pic" for "plc", "Lid" for "Ltd")', () => {
    const read = (name: string) =>
      extractFieldsFromLines(
        { lines: ocrLines(name, 'Certificate of Motor Insurance', 'Policy number   SB-4471-0925', `Insurer   ${name}`) },
        matcher,
      ).fields.insurer;
    expect(read('Solentbrook Insurance pic')).toBe('Solentbrook Insurance plc');
    expect(read('Pennine Demo Travel Insurance Lid')).toBe('Pennine Demo Travel Insurance Ltd');
  });

  it('reads a policy number whose two letters and two digits are no IBAN country ("PZ 724 748 844651")', () => {
    const f = extractFieldsFromLines(
      {
        lines: ocrLines(
          'Nordburg',
          'Krankenversicherung - Versicherungsschein',
          'Ihr Zeichen   866663731',
          'Vertragsnummer   PZ 724 748 844651',
          'Vertragsbeginn   26. Mai 2026',
          'IBAN DE84 2462 2864 1621 7267',
        ),
      },
      matcher,
    ).fields;
    expect(f.policy_number).toBe('PZ 724 748 844651');
  });
});

describe('photos sent as JPEG or PNG', () => {
  let ocr: Ocr;
  beforeAll(async () => {
    ocr = await createOcr({ workers: 1 });
  });
  afterAll(async () => {
    await ocr.terminate();
  });

  it.each([942, 528, 805, 904])(
    'seed %i reads every field',
    async (seed) => {
      const doc = proceduralDocument(seed, { technicality: 'photo_upload' });
      expect(doc.variant.endsWith('/photo')).toBe(true);
      const { bytes } = await renderProcedural(doc);
      const r = await extractFields(bytes, { ocr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
      const fields = r.fields as unknown as Record<string, string | undefined>;
      const wrong = EXTRACTED_FIELDS.filter((f) => !sameField(f, doc.truth[f], fields[f])).map(
        (f) => `${f}: ${doc.truth[f] ?? '-'} / ${fields[f] ?? '-'} @${r.fields.confidence[f] ?? ''}`,
      );
      expect(wrong).toEqual([]);
    },
    120_000,
  );
});
