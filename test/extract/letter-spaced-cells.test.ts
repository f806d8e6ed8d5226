/**
 * Letter-spaced labels whose word gaps are wide enough to start a new cell: a text layer hands each word over on
 * its own ("N U M É R O", "D E", "C O N T R A T"), the long words at a comb's pitch and the short ones not. Read from
 * the text layer's positions, a label is one cell with its word gaps kept, and a column gap still ends it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { extractFieldsFromLines, type InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { closeUpLetterSpacing } from '../../connector/src/extract/fields/letter-spacing.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { linesOfItems } from '../../connector/src/extract/reading/text-layer.js';
import type { Line, WordBox } from '../../connector/src/extract/reading/lines.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { EXTRACTED_FIELDS, sameField } from '../../scripts/extract-eval/compare.js';
import { proceduralDocument, renderProcedural } from '../../scripts/procedural/pdf-documents.js';
import { shippedMatcher } from './helpers.js';

/** A text item as pdf.js places it: `width` points wide from `x`, baseline `y` (top-down), `size` points high. */
const item = (text: string, x: number, width: number, y: number, size: number): WordBox => ({
  text,
  x0: x,
  x1: x + width,
  y,
  height: size,
});
const cellsOf = (boxes: WordBox[]) => linesOfItems(boxes).map((l) => l.cells.map((c) => c.text));

describe('letter-spaced words in cells of their own', () => {
  it('reads a label whose long words sit at a comb pitch and whose short ones do not as one cell per column', () => {
    // Capitals at 6 pt with a wide tracking: the text layer joins "N U M É R O" and "C O N T R A T" (four or more characters at one pitch), not "D E".
    const lines = cellsOf([
      item('N U M É R O', 63, 38.4, 134, 6),
      item('D E', 113.4, 10.7, 134, 6),
      item('C O N T R A T', 136, 43.1, 134, 6),
      item('P R I M E', 297.5, 28.4, 134, 6),
      item('A N N U E L L E', 337.9, 48.2, 134, 6),
      item('YY46651022', 63, 46.3, 146, 8),
      item('1093,93 €', 297.5, 35.6, 146, 8),
    ]);
    // Two long words in capitals may be two columns' headings: "PRIME" and "ANNUELLE" are left for the fields to pair.
    expect(lines).toEqual([
      ['NUMÉRO DE CONTRAT', 'PRIME', 'ANNUELLE'],
      ['YY46651022', '1093,93 €'],
    ]);
  });

  it('joins spaced words of small tracking up to their word gap, and no further', () => {
    // "P o l i c y" at 9 pt: letters 0.7 text heights apart, too close for a comb, so nothing joins them on the way in.
    const lines = cellsOf([
      item('P o l i c y', 49, 35.5, 164, 9),
      item('n u m b e r', 101.2, 42, 164, 9),
      item('T o t a l', 297.5, 29.2, 164, 9),
      item('p r e m i u m', 343.4, 48.8, 164, 9),
    ]);
    expect(lines).toEqual([['Policy number', 'Total premium']]);
  });

  it('keeps a short word (F I N, D E) before a long one in its label, and leaves spaced digits of a comb alone', () => {
    const lines = cellsOf([
      item('F I N', 63, 14.4, 252, 6),
      item('D E', 89.3, 10.7, 252, 6),
      item('G A R A N T I E', 112, 47.1, 252, 6),
      item('5 9 1 4', 297.5, 40, 252, 6),
      item('2 8 6 6', 352, 40, 252, 6),
    ]);
    expect(lines[0]![0]).toBe('FIN DE GARANTIE');
    expect(lines[0]!.slice(1).join(' ')).not.toMatch(/\p{L}/u);
  });

  it('keeps apart two headings in capitals a narrow column gap apart', () => {
    const lines = cellsOf([item('I M M A T R I C U L A T I O N', 72, 134.2, 256, 10), item('V A L I D I T É', 225.3, 72.8, 256, 10)]);
    expect(lines.map((cells) => cells.map((c) => c.replace(/ /g, '')))).toEqual([['IMMATRICULATION', 'VALIDITÉ']]);
  });
});

/** A line of cells at the given x positions, as the fields side receives it. */
const row = (...cells: Array<[number, string]>): Line => ({
  text: cells.map(([, t]) => t).join('   '),
  cells: cells.map(([x, text]) => ({ x, text })),
});

describe('letter-spaced cells as the fields side reads them', () => {
  let matcher: InsurerMatcher;
  beforeAll(async () => {
    matcher = await shippedMatcher();
  });

  it('ends a chain of spaced words where the next one heads another column', () => {
    const l = closeUpLetterSpacing(row([65, 'K f z - K e n n z e i c h e n'], [229, 'L a u f z e i t']));
    expect(l.cells.map((c) => c.text)).toEqual(['Kfz-Kennzeichen', 'Laufzeit']);
  });

  it('goes on with a chain whose words so far are no label yet ("I N C E P T I O N", "D A T E")', () => {
    const l = closeUpLetterSpacing(row([60, 'I N C E P T I O N'], [164, 'D A T E'], [260, '8 June 2026']));
    expect(l.cells.map((c) => c.text)).toEqual(['INCEPTION DATE', '8 June 2026']);
  });

  it('pairs a value with a label whose words stand in cells of their own ("P O L I C Y", "NUMBER")', () => {
    const f = extractFieldsFromLines(
      {
        lines: [
          row([47, 'Penninewood General Insurance DAC']),
          row([47, 'Confirmation of Travel Cover']),
          row([47, 'Client reference: 7496416'], [304, 'Printed on: 20th October 2025']),
          row([47, 'P O L I C Y'], [116, 'NUMBER'], [237, '395/540823']),
          row([47, 'P E R I O D O F I N S U R A N C E'], [237, '01/11/2025 to 31/10/2026']),
        ],
      },
      matcher,
    ).fields;
    expect(f.policy_number).toBe('395/540823');
  });

  it('reads an intermediary cue whose word gaps were lost ("ARRANGEDBY")', () => {
    const f = extractFieldsFromLines(
      {
        lines: [
          row([46, 'Solentwood Travel Insurance Services Limited']),
          row([46, 'Confirmation of Cover – Private Car']),
          row([46, 'CERTIFICATENUMBER'], [224, 'WR99642043']),
          row([46, 'ARRANGEDBY'], [224, 'Solentwood Travel Insurance Services Limited']),
          row([46, 'INSURER'], [224, 'Solentwood Insurance plc']),
        ],
      },
      matcher,
    ).fields;
    expect(f.insurer).toBe('Solentwood Insurance plc');
  });

  it('reads a closed-up cue as the printed one: a broker named under it is never the sure answer', () => {
    const read = (cue: string) =>
      extractFieldsFromLines(
        {
          lines: [
            row([46, 'Solentwood Travel Insurance Services Limited']),
            row([46, 'Confirmation of Cover – Private Car']),
            row([46, 'CERTIFICATENUMBER'], [224, 'WR99642043']),
            row([46, cue], [224, 'Solentwood Travel Insurance Services Limited']),
            row([46, 'INSURER'], [224, 'Solentwood Insurance plc']),
            row([46, 'REG.NO.'], [223, 'PERIODOFCOVER']),
            row([179, 'FROM'], [312, 'UNTIL']),
            row([46, 'CY34 CNJ'], [179, '10th February 2025'], [312, '9th February 2026']),
          ],
        },
        matcher,
      ).fields;
    const closed = read('ARRANGEDBY');
    const printed = read('ARRANGED BY');
    expect([closed.insurer, closed.confidence.insurer]).toEqual([printed.insurer, printed.confidence.insurer]);
    expect(closed.confidence.insurer).toBeLessThan(0.9);
  });
});

/** Validation seeds whose letter-spaced labels lost a field (5 with its word gaps lost, the others in cells of their own). */
const SEEDS = [5, 45, 91, 114, 246, 248, 268];

describe('procedural documents with letter-spaced labels', () => {
  let matcher: InsurerMatcher;
  const noOcr: Ocr = {
    recognize: () => Promise.reject(new Error('a text PDF needs no OCR')),
    terminate: () => Promise.resolve(),
  };
  beforeAll(async () => {
    matcher = await shippedMatcher();
  });

  it.each(SEEDS)('seed %i reads every field', async (seed) => {
    const doc = proceduralDocument(seed, { technicality: 'letter_spaced' });
    const { bytes } = await renderProcedural(doc);
    const r = await extractFields(bytes, { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    const fields = r.fields as unknown as Record<string, string | undefined>;
    const wrong = EXTRACTED_FIELDS.filter((f) => !sameField(f, doc.truth[f], fields[f])).map(
      (f) => `${f}: ${doc.truth[f] ?? '-'} / ${fields[f] ?? '-'}`,
    );
    expect(wrong).toEqual([]);
  });
});
