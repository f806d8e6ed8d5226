/**
 * A fillable form's values read from its fields: each on the line of the printed label beside it, a comb's
 * value whole, a combo box's chosen option, a ticked or empty check box, and the words of a field name that
 * says something; the printed template's own numbers stay where they are.
 */
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { CHECKED, nameWords, UNCHECKED } from '../../connector/src/extract/reading/form-fields.js';
import type { Line } from '../../connector/src/extract/reading/lines.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { readDocumentLines } from '../../connector/src/extract/reading/read-document.js';
import { drawAsFillableForm, type Drawing } from '../../scripts/procedural/technicalities/index.js';
import { UK_MOTOR } from '../helpers/simple-policies.js';

const noOcr: Ocr = {
  recognize: () => Promise.reject(new Error('OCR called for a form with a text layer')),
  terminate: () => Promise.resolve(),
};

async function formLines(drawing: Drawing, options: Parameters<typeof drawAsFillableForm>[1] = {}): Promise<Line[]> {
  return (await readDocumentLines(await drawAsFillableForm(drawing, options), noOcr, { limits: EXTRACT_LIMIT_DEFAULTS })).lines;
}
const cellsOf = (lines: Line[], label: string) => lines.find((l) => l.cells[0]?.text === label)?.cells.map((c) => c.text);

/** The UK policy with the type asked as check boxes and the level of cover as radio-like boxes. */
const WITH_BOXES: Drawing = {
  pages: [
    {
      ...UK_MOTOR.drawing.pages[0]!,
      texts: [
        ...UK_MOTOR.drawing.pages[0]!.texts,
        { text: 'Motor', x: 56, y: 420, size: 10, role: 'label' },
        { text: 'X', x: 130, y: 420, size: 10, role: 'value', field: 'type_motor', control: { kind: 'check' } },
        { text: 'Travel', x: 56, y: 400, size: 10, role: 'label' },
        { text: '', x: 130, y: 400, size: 10, role: 'value', field: 'type_travel', control: { kind: 'check' } },
      ],
    },
  ],
};

describe('form values in the lines', () => {
  it('puts each value on its label line as a cell of its own: text, comb and combo box alike', async () => {
    const lines = await formLines(UK_MOTOR.drawing, { names: 'generic', appearances: 'none' });
    expect(cellsOf(lines, 'Policy number')).toEqual(['Policy number', 'PN-4471-902315']);
    expect(cellsOf(lines, 'Cover')).toEqual(['Cover', 'Comprehensive']);
    expect(cellsOf(lines, 'Effective date')).toEqual(['Effective date', '01/03/2026']);
    // The template's own numbers are read where they are printed, not in a field's place.
    expect(lines.find((l) => l.text.includes('FRN 307220'))!.cells).toHaveLength(1);
    // Names that say nothing travel with no words.
    expect(lines.flatMap((l) => l.cells).filter((c) => c.field)).toEqual([]);
  });

  it('carries the words of a name that says something with its value', async () => {
    const lines = await formLines(UK_MOTOR.drawing);
    expect(lines.find((l) => l.cells[0]?.text === 'Policy number')!.cells[1]).toMatchObject({
      text: 'PN-4471-902315',
      field: 'policy number',
    });
    expect(lines.find((l) => l.cells[0]?.text === 'Expiry date')!.cells[1]).toMatchObject({ text: '28/02/2027', field: 'end date' });
  });

  it('reads a ticked box as ☒ and an empty one as ☐, beside its label', async () => {
    const lines = await formLines(WITH_BOXES);
    expect(cellsOf(lines, 'Motor')).toEqual(['Motor', CHECKED]);
    expect(cellsOf(lines, 'Travel')).toEqual(['Travel', UNCHECKED]);
  });
});

describe('nameWords', () => {
  it.each([
    ['form1[0].page1[0].policy_number[0]', 'policy number'],
    ['VersicherungsNr', 'versicherungs nr'],
    ['Versicherungsnummer', 'versicherungsnummer'],
    ['date_effet', 'date effet'],
    ['Text3', undefined],
    ['fill_12', undefined],
    ['Check Box8', undefined],
    ['topmostSubform[0].Page1[0].TextField1[0]', undefined],
  ])('%s -> %s', (name, words) => {
    expect(nameWords(name)).toBe(words);
  });
});
