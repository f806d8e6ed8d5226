/**
 * A fillable form whose fields are named for what they hold and whose page prints no label beside them (the
 * template's labels were an image, or the form only ever meant to be filled on screen): the field's name is the
 * value's label. Distractor fields (a customer number, a phone line, a form number) are named too, and their names
 * say they are not the policy's.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { sameField } from '../../scripts/extract-eval/compare.js';
import { drawAsFillableForm, type Drawing, type DrawnText } from '../../scripts/procedural/technicalities/index.js';
import { EXTRACTED } from '../helpers/simple-policies.js';
import { shippedMatcher } from './helpers.js';

const noOcr: Ocr = {
  recognize: () => Promise.reject(new Error('OCR called for a form with a text layer')),
  terminate: () => Promise.resolve(),
};

let matcher: InsurerMatcher;
beforeAll(async () => {
  matcher = await shippedMatcher();
});

interface NamedForm {
  name: string;
  head: string[];
  /** [field name, value]: what the form's author called each field, in the order they sit on the page. */
  values: Array<[string, string]>;
  truth: Record<(typeof EXTRACTED)[number], string>;
}

/** Values in a two-column grid of fields, no printed label anywhere near them; distractors first, as they often are. */
function unlabelled(form: NamedForm): Drawing {
  const texts: DrawnText[] = form.head.map((text, i) => ({ text, x: 56, y: 790 - 18 * i, size: i === 0 ? 14 : 10, bold: i === 0 }));
  form.values.forEach(([field, text], i) => {
    texts.push({ text, x: i % 2 ? 320 : 56, y: 680 - 40 * Math.floor(i / 2), size: 10, role: 'value', field });
  });
  return { pages: [{ width: 595, height: 842, texts }] };
}

const FORMS: NamedForm[] = [
  {
    name: 'UK motor',
    head: ['Certificate of Motor Insurance', 'Please keep this certificate with your vehicle documents.'],
    values: [
      ['customer_number', '55120987'],
      ['form_number', 'MC-2031-07'],
      ['policyNumber', 'PN-4471-902315'],
      ['insurer', 'Kestrelford Underwriting Limited'],
      ['registration_number', 'KM71 RXT'],
      ['phone', '0113 496 0321'],
      ['start_date', '01/03/2026'],
      ['expiry_date', '28/02/2027'],
    ],
    truth: {
      policy_number: 'PN-4471-902315',
      insurer: 'Kestrelford Underwriting Limited',
      insurance_type: 'motor',
      start_date: '2026-03-01',
      end_date: '2027-02-28',
      vehicle_registration: 'KM71 RXT',
    },
  },
  {
    name: 'DE motor',
    head: ['Versicherungsbestätigung Kfz-Haftpflicht', 'Bitte bewahren Sie diese Bestätigung sorgfältig auf.'],
    values: [
      ['Kundennummer', '40917733'],
      ['Telefon', '09561 960 0'],
      ['Versicherungsscheinnummer', 'KH-1831-086576'],
      ['Versicherer', 'Elbstein Versicherung AG'],
      ['Kennzeichen', 'M-AB 1234'],
      ['Formular', '4711-0325'],
      ['Versicherungsbeginn', '01.11.2025'],
      ['Ablauf', '31.10.2026'],
    ],
    truth: {
      policy_number: 'KH-1831-086576',
      insurer: 'Elbstein Versicherung AG',
      insurance_type: 'motor',
      start_date: '2025-11-01',
      end_date: '2026-10-31',
      vehicle_registration: 'M-AB 1234',
    },
  },
  {
    name: 'FR travel',
    head: ["Attestation d'assurance voyage", 'Document à présenter en cas de sinistre.'],
    values: [
      ['numero_client', '0077 4412'],
      ['telephone', '05 49 34 35 36'],
      ['numero_contrat', 'VOY2291-774310'],
      ['assureur', 'Valfleur Assurances SA'],
      ['date_effet', '01/07/2026'],
      ['date_echeance', '31/07/2026'],
    ],
    truth: {
      policy_number: 'VOY2291-774310',
      insurer: 'Valfleur Assurances SA',
      insurance_type: 'travel',
      start_date: '2026-07-01',
      end_date: '2026-07-31',
      vehicle_registration: '',
    },
  },
];

describe('form field names as labels', () => {
  it.each(FORMS.map((f) => [f.name, f] as const))(
    '%s: every field read from fields named for it, with no printed label',
    async (_, form) => {
      const pdf = await drawAsFillableForm(unlabelled(form));
      const r = await extractFields(pdf, { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
      const fields = r.fields as unknown as Record<string, string | undefined>;
      const got = Object.fromEntries(EXTRACTED.map((f) => [f, fields[f] ?? '']));
      const right = EXTRACTED.filter((f) => sameField(f, form.truth[f] || undefined, fields[f]));
      expect({ right: right.length, got }).toEqual({ right: EXTRACTED.length, got: expect.anything() as unknown });
      expect(r.fields.document_type?.value).toBe('insurance');
    },
  );

  it('a field named for something else is no label of the policy number: the customer number stays out', async () => {
    const form = FORMS[0]!;
    // Only the distractors and the policy number, the policy number's field named generically.
    const drawing = unlabelled({ ...form, values: form.values.map(([n, v]) => [n === 'policyNumber' ? 'Text7' : n, v]) });
    const r = await extractFields(await drawAsFillableForm(drawing), { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect(r.fields.policy_number).not.toBe('55120987');
  });
});
