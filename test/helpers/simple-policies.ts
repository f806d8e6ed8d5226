/**
 * Known simple policies as drawings (scripts/procedural/technicalities/drawing.ts), one per country, each with
 * the distractors real forms print beside the fields: a broker and its register number, a form number, a
 * customer number, a phone number. A technicality is applied to one and the fields read back are scored.
 */
import type { Drawing, DrawnText } from '../../scripts/procedural/technicalities/drawing.js';

export const EXTRACTED = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;
export type ExtractedField = (typeof EXTRACTED)[number];

export interface SimplePolicy {
  name: string;
  truth: Record<ExtractedField, string>;
  drawing: Drawing;
}

interface Row {
  label: string;
  value: string;
  field: string;
  control?: DrawnText['control'];
}

/** An A4 page: letterhead, title, a label/value block, distractor lines above and below it. */
function a4(head: string[], title: string, rows: Row[], foot: string[]): Drawing {
  const texts: DrawnText[] = [];
  let y = 790;
  head.forEach((t, i) => {
    texts.push({ text: t, x: 56, y, size: i === 0 ? 15 : 9, bold: i === 0 });
    y -= i === 0 ? 20 : 13;
  });
  y -= 22;
  texts.push({ text: title, x: 56, y, size: 14, bold: true });
  y -= 34;
  for (const r of rows) {
    texts.push({ text: r.label, x: 56, y, size: 10, role: 'label' });
    texts.push({ text: r.value, x: 230, y, size: 10, role: 'value', field: r.field, ...(r.control ? { control: r.control } : {}) });
    y -= 24;
  }
  y -= 20;
  for (const t of foot) {
    texts.push({ text: t, x: 56, y, size: 9 });
    y -= 14;
  }
  texts.push({ text: foot.length ? 'Page 1 of 1' : '', x: 500, y: 40, size: 8 });
  return { pages: [{ width: 595, height: 842, texts: texts.filter((t) => t.text) }] };
}

export const UK_MOTOR: SimplePolicy = {
  name: 'UK motor',
  truth: {
    policy_number: 'PN-4471-902315',
    insurer: 'Albion Demo Motor Insurance Limited',
    insurance_type: 'motor',
    start_date: '2026-03-01',
    end_date: '2027-02-28',
    vehicle_registration: 'KM71 RXT',
  },
  drawing: a4(
    ['Albion Demo Motor Insurance Limited', '12 Harbour Street, Leeds LS1 4AB', 'Telephone 0113 496 0321'],
    'Certificate of Motor Insurance',
    [
      { label: 'Policy number', value: 'PN-4471-902315', field: 'policy_number', control: { kind: 'comb', cells: 14 } },
      { label: 'Policyholder', value: 'Mr John Carter', field: 'policyholder' },
      { label: 'Customer number', value: '55120987', field: 'customer_number' },
      { label: 'Vehicle registration', value: 'KM71 RXT', field: 'registration' },
      { label: 'Cover', value: 'Comprehensive', field: 'cover', control: { kind: 'choice', options: ['Third party', 'Comprehensive'] } },
      { label: 'Effective date', value: '01/03/2026', field: 'start_date' },
      { label: 'Expiry date', value: '28/02/2027', field: 'end_date' },
    ],
    [
      'Arranged by Carter & Lowe Insurance Brokers Ltd, FRN 307220, 4 Mill Lane, York YO1 7HX.',
      'Underwritten by Albion Demo Motor Insurance Limited. Registered in England No. 4471902.',
      'Form MC-2031/07  Issued 14/02/2026',
    ],
  ),
};

export const DE_MOTOR: SimplePolicy = {
  name: 'DE motor',
  truth: {
    policy_number: 'KH-1831-086576',
    insurer: 'HUK-COBURG-Allgemeine Versicherung AG',
    insurance_type: 'motor',
    start_date: '2025-11-01',
    end_date: '2026-10-31',
    vehicle_registration: 'M-AB 1234',
  },
  drawing: a4(
    ['HUK-COBURG-Allgemeine Versicherung AG', 'Bahnhofsplatz 1, 96444 Coburg', 'Telefon 09561 960 0'],
    'Versicherungsschein Kraftfahrtversicherung',
    [
      { label: 'Versicherungsschein-Nr.', value: 'KH-1831-086576', field: 'versicherungsscheinnummer' },
      { label: 'Versicherungsnehmer', value: 'Anna Schneider', field: 'versicherungsnehmer' },
      { label: 'Kundennummer', value: '40917733', field: 'kundennummer' },
      { label: 'Amtliches Kennzeichen', value: 'M-AB 1234', field: 'kennzeichen' },
      { label: 'Versicherungsbeginn', value: '01.11.2025', field: 'beginn' },
      { label: 'Versicherungsende', value: '31.10.2026', field: 'ablauf' },
    ],
    ['Vermittler: Maier Versicherungsmakler GmbH, Registernummer D-W-133-XP2M-41', 'Formular KR 4711 (03.2025)'],
  ),
};

export const FR_TRAVEL: SimplePolicy = {
  name: 'FR travel',
  truth: {
    policy_number: 'VOY2291-774310',
    insurer: 'MAAF ASSURANCES SA',
    insurance_type: 'travel',
    start_date: '2026-07-01',
    end_date: '2026-07-31',
    vehicle_registration: '',
  },
  drawing: a4(
    ['MAAF ASSURANCES SA', 'Chauray, 79036 Niort Cedex 9', 'Téléphone 05 49 34 35 36'],
    "Attestation d'assurance voyage",
    [
      { label: 'Numéro de contrat', value: 'VOY2291-774310', field: 'numero_contrat' },
      { label: 'Assuré', value: 'Mme Claire Martin', field: 'assure' },
      { label: 'Numéro client', value: '0077 4412', field: 'numero_client' },
      { label: "Date d'effet", value: '01/07/2026', field: 'date_effet' },
      { label: "Date d'échéance", value: '31/07/2026', field: 'date_echeance' },
      { label: 'Destination', value: 'Espagne', field: 'destination' },
    ],
    ['Courtier : Dupont Courtage SARL, ORIAS 07 012 345', 'Réf. imprimé AV-12/2025'],
  ),
};

export const SIMPLE_POLICIES: SimplePolicy[] = [UK_MOTOR, DE_MOTOR, FR_TRAVEL];

/** Fields of `truth` the extractor read right (the plate only where there is one), as [right, total]. */
export function fieldsRight(
  truth: Record<ExtractedField, string>,
  got: Partial<Record<string, unknown>>,
  norm: (s: string) => string,
): [number, number] {
  let right = 0;
  let total = 0;
  for (const f of EXTRACTED) {
    const want = truth[f];
    const have = got[f];
    if (!want) {
      if (have === undefined) continue;
      total++;
      continue;
    }
    total++;
    if (typeof have === 'string' && (f === 'policy_number' ? norm(have) === norm(want) : have === want)) right++;
  }
  return [right, total];
}

/** The policy after a one-page cover letter full of other numbers: a renewal pack as it is posted. */
export function withCoverLetter(policy: SimplePolicy): Drawing {
  const letter = [
    'Dear customer,',
    'Please find enclosed your insurance documents. Keep them in a safe place.',
    'Our reference 2291/KC/88, your adviser reference 7713-0042.',
    'If anything is wrong, call us on 0800 917 2261 within 14 days of 02/02/2026.',
    'Yours sincerely,',
    'Customer Services',
  ];
  const texts: DrawnText[] = letter.map((text, i) => ({ text, x: 56, y: 700 - i * 22, size: 11 }));
  return { pages: [{ width: 595, height: 842, texts }, ...policy.drawing.pages] };
}

/** The policy on a landscape page (842 x 595 pt), the block moved up to fit. */
export function landscape(policy: SimplePolicy): Drawing {
  return {
    pages: policy.drawing.pages.map((p) => ({
      width: p.height,
      height: p.width,
      texts: p.texts.map((t) => ({ ...t, y: t.y - (p.height - p.width), x: t.x === 500 ? 760 : t.x })),
    })),
  };
}
