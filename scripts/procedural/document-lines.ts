/**
 * A procedural generator of documents as text lines (what the reading side hands the fields side): layouts drawn
 * at random from a seed, not templates. A policy document is a sequence of blocks (letterhead, title, key-value
 * rows, label rows over value rows, tables whose header is merged over sub-headers, prose, two columns side by
 * side, a footer), each field stated by one of several printed wordings in the document's language, with
 * distractor numbers and dates around. A `kind` asks for one way of printing a field that readers are known to
 * miss (letter-spaced labels, fields stated in sentences, merged headers, an intermediary beside the carrier,
 * numbers in digit groups); every other choice stays random. Negatives are documents that are not policies at all
 * (invoices, bank statements, letters), with the numbers and dates such documents carry.
 *
 * The printed wordings are this file's own, not the extractor's patterns: month names, legal forms and insurer
 * words come from the language packs, labels and sentences are written out here as a reader would print them.
 */
import { LANGUAGE_PACKS, type TCountry, type TInsuranceType, type TLanguage } from '../../shared/packs/index.js';
import { CELL_GAP, type Line } from '../../connector/src/extract/reading/lines.js';
import { chance, int, letters, number, pick, prng, type Rand } from '../random.js';

const digits = number;

export const POLICY_KINDS = ['plain', 'letter_spaced', 'sentence', 'merged_header', 'carrier', 'grouped_number', 'multi_column'] as const;
export type PolicyKind = (typeof POLICY_KINDS)[number];
export const NEGATIVE_KINDS = ['invoice', 'bank_statement', 'letter'] as const;
export type NegativeKind = (typeof NEGATIVE_KINDS)[number];

export interface GeneratedTruth {
  policy_number: string;
  insurer: string;
  insurance_type: TInsuranceType;
  start_date: string;
  end_date: string;
  vehicle_registration?: string;
}

export interface GeneratedDocument {
  lines: Line[];
  truth: GeneratedTruth;
  language: TLanguage;
  country: TCountry;
  kind: PolicyKind;
  /** Set when the document's lines are meant as OCR'd (a scan). */
  ocr: boolean;
}

/** Printed wordings per language: labels as forms print them, sentences that state a field in prose. */
export interface Wording {
  policy: string[];
  start: string[];
  end: string[];
  period: string[];
  registration: string[];
  insurer: string[];
  /** Sub-headers under a merged period header: [from, to]. */
  subHeaders: Array<[string, string]>;
  /** {s} start, {e} end. */
  periodSentences: string[];
  /** {p} the policy number. */
  policySentences: string[];
  /** {b} the intermediary, {i} the insurer. */
  carrierSentences: string[];
  /** Key-value labels of an intermediary and of the carrier, printed as two rows. */
  intermediaryLabels: string[];
  titles: Record<TInsuranceType, string[]>;
  customer: string[];
  phone: string[];
  issued: string[];
  /** A section heading printed in two languages. */
  bilingualHeadings: string[];
  greeting: string;
  closing: string;
  tradingName: string;
}

export const WORDING: Record<TLanguage, Wording> = {
  en: {
    policy: ['Policy number', 'Policy No.', 'Policy no', 'Certificate number', 'Policy reference', 'Contract number'],
    start: ['Start date', 'Effective date', 'Cover start', 'Date of commencement', 'Inception date', 'Valid from'],
    end: ['Expiry date', 'End date', 'Valid until', 'Renewal date', 'Date of expiry'],
    period: ['Period of insurance', 'Period of cover', 'Insurance period', 'Cover period'],
    registration: ['Vehicle registration', 'Registration number', 'Registration mark', 'Reg. No.'],
    insurer: ['Insurer', 'Underwritten by', 'Insurance company'],
    subHeaders: [
      ['From', 'To'],
      ['Start', 'End'],
      ['from', 'until'],
    ],
    periodSentences: [
      'Your cover starts on {s} and ends on {e}.',
      'This policy is effective from {s} until {e}.',
      'Cover begins on {s} and expires on {e}.',
      'Your insurance runs from {s} to {e} inclusive.',
      'The insurance commences on {s} and ends at midnight on {e}.',
    ],
    policySentences: ['Your policy number is {p}.', 'Please quote policy number {p} in all correspondence.'],
    carrierSentences: [
      'This insurance is arranged by {b} and underwritten by {i}.',
      'Your policy is administered by {b} on behalf of {i}.',
      '{b} acts as an intermediary; your insurer is {i}.',
    ],
    intermediaryLabels: ['Broker', 'Intermediary', 'Arranged by'],
    titles: {
      motor: ['Certificate of Motor Insurance', 'Motor Insurance Schedule', 'Confirmation of Cover – Private Car'],
      travel: ['Travel Insurance Policy Schedule', 'Travel Insurance Certificate', 'Confirmation of Travel Cover'],
      health: ['Health Insurance Certificate', 'Private Medical Insurance Schedule', 'Membership Certificate – Health Cover'],
    },
    customer: ['Customer number', 'Account number', 'Client reference'],
    phone: ['Tel', 'Phone', 'Claims line'],
    issued: ['Date of issue', 'Issued on', 'Printed on'],
    bilingualHeadings: ['Important information / Informations importantes', 'Your cover / Ihr Versicherungsschutz'],
    greeting: 'Dear Mr Smith,',
    closing: 'Yours sincerely,',
    tradingName: '{b} is a trading name of {i}.',
  },
  de: {
    policy: [
      'Versicherungsschein-Nr.',
      'Versicherungsscheinnummer',
      'Vertragsnummer',
      'Policennummer',
      'Vertrags-Nr.',
      'Versicherungsnummer',
    ],
    start: ['Versicherungsbeginn', 'Vertragsbeginn', 'Beginn', 'Gültig ab'],
    end: ['Ablauf', 'Versicherungsende', 'Vertragsende', 'Gültig bis', 'Ablaufdatum'],
    period: ['Versicherungszeitraum', 'Versicherungsdauer', 'Laufzeit', 'Vertragsdauer'],
    registration: ['Amtliches Kennzeichen', 'Kennzeichen', 'Kfz-Kennzeichen'],
    insurer: ['Versicherer', 'Risikoträger', 'Ihr Versicherer'],
    subHeaders: [
      ['vom', 'bis'],
      ['von', 'bis'],
      ['ab', 'bis'],
      ['Beginn', 'Ende'],
    ],
    periodSentences: [
      'Ihr Vertrag beginnt am {s} und endet am {e}.',
      'Der Versicherungsschutz beginnt am {s} und läuft bis zum {e}.',
      'Ihre Versicherung gilt vom {s} bis {e}.',
      'Der Vertrag beginnt am {s}, 0 Uhr, und endet am {e}, 24 Uhr.',
    ],
    policySentences: ['Bitte geben Sie bei Rückfragen Ihre Vertragsnummer {p} an.', 'Ihre Versicherungsscheinnummer lautet {p}.'],
    carrierSentences: [
      'Der Vertrag wurde von {b} vermittelt und besteht bei der {i}.',
      'Vermittelt durch {b}; Versicherer ist die {i}.',
      'Ihr Vermittler {b} betreut den Vertrag, Risikoträger ist die {i}.',
    ],
    intermediaryLabels: ['Vermittler', 'Ihr Vermittler', 'Makler'],
    titles: {
      motor: ['Versicherungsschein Kfz-Haftpflicht', 'Kfz-Versicherung – Versicherungsschein', 'Versicherungsbestätigung für Ihr Fahrzeug'],
      travel: ['Nachweis Ihrer Reiseversicherung', 'Reiseversicherung – Versicherungsbestätigung', 'Versicherungsschein Auslandsreise'],
      health: [
        'Bescheinigung über Ihre Krankenversicherung',
        'Krankenversicherung – Versicherungsschein',
        'Mitgliedsbescheinigung Krankenversicherung',
      ],
    },
    customer: ['Kundennummer', 'Partnernummer', 'Ihr Zeichen'],
    phone: ['Telefon', 'Tel.', 'Service-Hotline'],
    issued: ['Ausstellungsdatum', 'Ausgestellt am', 'Stand'],
    bilingualHeadings: ['Wichtige Hinweise / Important information', 'Versicherungsbestätigung / Certificate of insurance'],
    greeting: 'Sehr geehrte Frau Müller,',
    closing: 'Mit freundlichen Grüßen',
    tradingName: '{b} ist eine Marke der {i}.',
  },
  fr: {
    policy: ['N° de contrat', 'Numéro de contrat', 'N° de police', 'Numéro de police', "N° d'adhérent", 'Contrat n°'],
    start: ["Date d'effet", 'Date de début', "Prise d'effet", 'Début de garantie'],
    end: ["Date d'échéance", 'Date de fin', "Date d'expiration", 'Fin de garantie', 'Échéance'],
    period: ['Période de validité', 'Période de garantie', 'Validité'],
    registration: ["N° d'immatriculation", 'Immatriculation'],
    insurer: ['Assureur', 'Compagnie', 'Organisme assureur', 'Porteur du risque'],
    subHeaders: [
      ['du', 'au'],
      ['Début', 'Fin'],
    ],
    periodSentences: [
      'Le contrat prend effet le {s} et expire le {e}.',
      'La garantie prend effet le {s} et prend fin le {e}.',
      'Votre contrat est valable du {s} au {e}.',
      "Les garanties sont acquises à compter du {s} jusqu'au {e}.",
    ],
    policySentences: ['Votre contrat n° {p} est en vigueur.', 'Merci de rappeler votre numéro de contrat {p} dans toute correspondance.'],
    carrierSentences: [
      'Contrat distribué par {b}, courtier, et assuré par {i}.',
      "{b} agit en qualité d'intermédiaire pour le compte de {i}.",
      'Contrat souscrit par l’intermédiaire de {b} auprès de {i}.',
    ],
    intermediaryLabels: ['Courtier', 'Intermédiaire', 'Distributeur'],
    titles: {
      motor: ["Attestation d'assurance automobile", 'Mémo véhicule assuré', "Certificat d'assurance automobile"],
      travel: [
        "Attestation d'assurance voyage",
        "Certificat d'assurance assistance voyage",
        "Attestation d'assurance – séjour à l'étranger",
      ],
      health: [
        'Carte de tiers payant – complémentaire santé',
        "Attestation d'adhésion complémentaire santé",
        "Certificat d'adhésion – frais de soins",
      ],
    },
    customer: ['N° client', 'Identifiant', 'Référence client'],
    phone: ['Tél.', 'Téléphone', 'Assistance'],
    issued: ['Fait le', 'Édité le', 'Date d’émission'],
    bilingualHeadings: ['Informations importantes / Important information', 'Attestation / Certificate'],
    greeting: 'Madame, Monsieur,',
    closing: "Veuillez agréer, Madame, Monsieur, l'expression de nos salutations distinguées.",
    tradingName: '{b} est une marque de {i}.',
  },
};

export const COUNTRY_OF: Record<TLanguage, TCountry> = { en: 'UK', de: 'DE', fr: 'FR' };

// Made-up company names, built from pieces so that no register holds them: the carrier is read as printed.
const ROOTS: Record<TLanguage, [string[], string[]]> = {
  en: [
    ['Harrow', 'Kestrel', 'Albion', 'Pennine', 'Lark', 'Solent', 'Wessex', 'Cairn', 'Brigg', 'Marl'],
    ['gate', 'field', 'wood', 'more', 'ley', 'ford', 'ton', 'mere', 'stone', 'brook'],
  ],
  de: [
    ['Nord', 'Elb', 'Rhein', 'Isar', 'Hanse', 'Tann', 'Falk', 'Lind', 'Wester', 'Eichen'],
    ['wert', 'stein', 'burg', 'feld', 'tal', 'hof', 'mark', 'au', 'brunn', 'heim'],
  ],
  fr: [
    ['Val', 'Mont', 'Beau', 'Clair', 'Vert', 'Roche', 'Lune', 'Pré', 'Chêne', 'Sable'],
    ['fleur', 'mont', 'val', 'champ', 'lac', 'rive', 'bois', 'roc', 'ciel', 'pin'],
  ],
};
const brand = (r: Rand, l: TLanguage): string => pick(r, ROOTS[l][0]) + pick(r, ROOTS[l][1]);

export function insurerName(r: Rand, l: TLanguage): { legal: string; brand: string } {
  const b = brand(r, l);
  const other = brand(r, l);
  const legal = pick(
    r,
    {
      en: [
        `${b} Insurance Company Limited`,
        `${b} Insurance plc`,
        `${b} Underwriting Limited`,
        `${b} Insurance (Gibraltar) Limited`,
        `${b} & ${other} Insurance Limited`,
        `${b} General Insurance DAC`,
      ],
      de: [`${b} Versicherung AG`, `${b} Allgemeine Versicherungs-AG`, `${b} Krankenversicherung a.G.`, `${b} Versicherungsverein a.G.`],
      fr: [`${b} Assurances SA`, `Mutuelle ${b}`, `${b} IARD SA`, `${b} Assurances Mutuelles`],
    }[l],
  );
  return { legal, brand: b };
}

export function intermediaryName(r: Rand, l: TLanguage): string {
  const b = brand(r, l);
  return pick(
    r,
    {
      en: [`${b} Insurance Brokers Ltd`, `${b} Insurance Services Ltd`, `${b} Direct Ltd`, `${b} Travel Insurance Services Limited`],
      de: [`${b} Versicherungsmakler GmbH`, `${b} Finanz GmbH`, `${b} Assekuranzmakler GmbH & Co. KG`],
      fr: [`Cabinet ${b} SARL`, `${b} Courtage SAS`, `${b} Assurances Conseil SARL`],
    }[l],
  );
}

const iso = (d: Date): string => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number): Date => new Date(d.getTime() + n * 86_400_000);

/** A date as printed in the language: numeric or with the pack's month name. */
export function printDate(r: Rand, l: TLanguage, isoDate: string, ocrFirst = false): string {
  const [y, m, d] = isoDate.split('-').map(Number) as [number, number, number];
  const dd = String(d).padStart(2, '0');
  const mm = String(m).padStart(2, '0');
  const month = LANGUAGE_PACKS[l].months[m - 1]!;
  const cap = month[0]!.toUpperCase() + month.slice(1);
  const frMonth = ({ fevrier: 'février', aout: 'août', decembre: 'décembre' } as Record<string, string>)[month] ?? month;
  const deMonth = month === 'marz' ? 'März' : cap;
  if (l === 'fr' && d === 1 && (ocrFirst || chance(r, 0.5))) return `${ocrFirst ? 'Ler' : '1er'} ${frMonth} ${y}`;
  return pick(
    r,
    {
      en: [
        `${dd}/${mm}/${y}`,
        `${d} ${cap} ${y}`,
        `${d}${d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th'} ${cap} ${y}`,
      ],
      de: [`${dd}.${mm}.${y}`, `${d}. ${deMonth} ${y}`],
      fr: [`${dd}/${mm}/${y}`, `${d} ${frMonth} ${y}`],
    }[l],
  );
}

/** A policy number as its insurer prints it; `grouped` prints its digits in groups separated by spaces or dots. */
export function policyNumber(r: Rand, grouped: boolean): { printed: string } {
  if (grouped) {
    const n = digits(r, pick(r, [9, 10, 11, 12]));
    const style = pick(r, ['4', '3', 'fr', 'dots', 'prefix']);
    if (style === '4') return { printed: n.replace(/(\d{4})(?=\d)/g, '$1 ') };
    if (style === '3') return { printed: n.replace(/(\d{3})(?=\d)/g, '$1 ') };
    if (style === 'fr') return { printed: `${n.slice(0, 2)} ${n.slice(2, 5)} ${n.slice(5, 8)} ${n.slice(8)}`.trim() };
    if (style === 'dots') return { printed: n.replace(/(\d{3})(?=\d)/g, '$1.') };
    return { printed: `${letters(r, 2)} ${n.slice(0, 3)} ${n.slice(3, 6)} ${n.slice(6)}` };
  }
  return {
    printed: pick(r, [
      `${letters(r, 2)}${digits(r, 8)}`,
      digits(r, pick(r, [8, 9, 10])),
      `${letters(r, 3)}-${int(r, 2024, 2026)}-${digits(r, 6)}`,
      `${digits(r, 3)}/${digits(r, 6)}`,
      `${letters(r, 1)}${digits(r, 7)}${letters(r, 1)}`,
    ]),
  };
}

export function plate(r: Rand, c: TCountry): string {
  if (c === 'UK') return `${letters(r, 2)}${int(r, 10, 75)} ${letters(r, 3)}`;
  if (c === 'DE') return `${pick(r, ['M', 'HH', 'B', 'K', 'S', 'F'])}-${letters(r, 2)} ${int(r, 10, 9999)}`;
  return `${letters(r, 2)}-${digits(r, 3)}-${letters(r, 2)}`;
}

/** Spaces out a label's letters as a designer's heading does ("D A T E  D ' E F F E T"), upper-cased or not. */
function letterSpace(r: Rand, s: string): string {
  const t = chance(r, 0.7) ? s.toUpperCase() : s;
  return t
    .split(' ')
    .map((w) => [...w].join(' '))
    .join('  ');
}

/** A row of cells at x positions; a cell's text may hold two spaces (a letter-spaced word gap), kept as printed. */
type Row = Array<{ x: number; text: string }>;

const CHAR = 5.2;
function toLine(row: Row, ocr: boolean): Line {
  const cells = row.filter((c) => c.text.trim()).map((c) => ({ x: Math.round(c.x), text: c.text.replace(/\s+/g, ' ').trim() }));
  return { text: cells.map((c) => c.text).join(CELL_GAP), cells, page: 1, ...(ocr ? { ocr: true } : {}) };
}

/** A label cell, letter-spaced when asked: either one cell or, where a word gap is wide, one cell per word. */
function labelCells(r: Rand, x: number, label: string, spaced: boolean): Row {
  if (!spaced) return [{ x, text: label }];
  const s = letterSpace(r, label);
  if (chance(r, 0.5)) return [{ x, text: s }];
  let at = x;
  return s.split('  ').map((w) => {
    const c = { x: at, text: w };
    at += (w.length + 3) * CHAR;
    return c;
  });
}

/** A value's cell; a number in digit groups printed with wide gaps (a comb field, a tabbed form) is a cell per group. */
function valueCells(r: Rand, x: number, value: string, groups: boolean): Row {
  if (!groups || !chance(r, 0.5) || !/^[\dA-Z]+(?: [\dA-Z]+)+$/.test(value)) return [{ x, text: value }];
  let at = x;
  return value.split(' ').map((g) => {
    const c = { x: at, text: g };
    at += (g.length + 3) * CHAR;
    return c;
  });
}

interface Fields {
  policy: string;
  start: string;
  end: string;
  plate?: string;
  insurer: string;
}

/** Draws one policy document of a kind; every other choice of layout and wording comes from the seed. */
export function policyDocument(seed: number, kind: PolicyKind, language?: TLanguage): GeneratedDocument {
  const r = prng(seed * 7919 + POLICY_KINDS.indexOf(kind));
  const l: TLanguage = language ?? pick(r, ['en', 'de', 'fr'] as const);
  const c = COUNTRY_OF[l];
  const w = WORDING[l];
  const type: TInsuranceType = pick(r, ['motor', 'travel', 'health'] as const);
  const ins = insurerName(r, l);
  const start = addDays(new Date(Date.UTC(2025, 0, 1)), int(r, 0, 540));
  // Half the documents start on the 1st: French prints it "1er", which OCR reads "Ler".
  if (chance(r, 0.3)) start.setUTCDate(1);
  const end =
    type === 'travel' && chance(r, 0.5)
      ? addDays(start, int(r, 6, 40))
      : addDays(new Date(Date.UTC(start.getUTCFullYear() + 1, start.getUTCMonth(), start.getUTCDate())), -1);
  const ocr = kind === 'grouped_number' && l === 'fr' && start.getUTCDate() === 1;
  const f: Fields = {
    policy: policyNumber(r, kind === 'grouped_number').printed,
    start: iso(start),
    end: iso(end),
    insurer: ins.legal,
    ...(type === 'motor' ? { plate: plate(r, c) } : {}),
  };
  const date = (isoDate: string): string => printDate(r, l, isoDate, ocr && isoDate === f.start);
  const spaced = kind === 'letter_spaced';
  const rows: Row[] = [];
  const broker = kind === 'carrier' ? intermediaryName(r, l) : undefined;

  // Print chrome and the letterhead: a web-mail print header, the issuer's name (the broker's on a cover note).
  if (kind === 'carrier' && chance(r, 0.5))
    rows.push([{ x: 20, text: `Mail - ${pick(r, ['Anna Schmidt', 'John Taylor', 'Claire Martin'])} - Outlook` }]);
  if (kind === 'carrier' && chance(r, 0.5)) rows.push([{ x: 200, text: pick(r, w.bilingualHeadings) }]);
  const brandHead = chance(r, 0.4);
  rows.push([{ x: 60, text: broker ?? (brandHead ? ins.brand : ins.legal) }]);
  rows.push([{ x: 60, text: addressLine(r, l, kind === 'grouped_number') }]);
  rows.push([{ x: 60, text: pick(r, w.titles[type]) }]);
  if (chance(r, 0.6))
    rows.push([
      { x: 60, text: `${pick(r, w.customer)}: ${digits(r, 7)}` },
      { x: 330, text: `${pick(r, w.issued)}: ${date(iso(addDays(start, -int(r, 3, 30))))}` },
    ]);

  // The fields, as key-value rows (the kind decides how some of them are printed).
  const kv: Array<[string, string]> = [];
  const inSentence = kind === 'sentence';
  if (!(inSentence && chance(r, 0.5))) kv.push([pick(r, w.policy), f.policy]);
  else rows.push([{ x: 60, text: pick(r, w.policySentences).replace('{p}', f.policy) }]);
  if (kind === 'carrier') {
    if (chance(r, 0.5)) rows.push([{ x: 60, text: pick(r, w.carrierSentences).replace('{b}', broker!).replace('{i}', f.insurer) }]);
    else kv.push([pick(r, w.intermediaryLabels), broker!], [pick(r, w.insurer), f.insurer]);
  } else if (chance(r, 0.5)) kv.push([pick(r, w.insurer), f.insurer]);
  const periodHow = kind === 'merged_header' ? 'table' : inSentence ? 'sentence' : pick(r, ['two', 'one']);
  if (periodHow === 'two') kv.push([pick(r, w.start), date(f.start)], [pick(r, w.end), date(f.end)]);
  if (periodHow === 'one')
    kv.push([pick(r, w.period), `${date(f.start)} ${pick(r, { en: ['to', '-'], de: ['bis', '-'], fr: ['au', '-'] }[l])} ${date(f.end)}`]);
  if (f.plate && periodHow !== 'table') kv.push([pick(r, w.registration), f.plate]);

  if (kind === 'multi_column') {
    // Two columns of key-value pairs side by side on the same lines.
    const half = Math.ceil(kv.length / 2);
    for (let k = 0; k < half; k++) {
      const a = kv[k]!;
      const b = kv[k + half];
      rows.push([
        { x: 60, text: `${a[0]}:` },
        { x: 170, text: a[1] },
        ...(b
          ? [
              { x: 330, text: `${b[0]}:` },
              { x: 450, text: b[1] },
            ]
          : []),
      ]);
    }
  } else {
    const style = pick(r, ['cells', 'colon', 'above']);
    for (const [label, value] of kv) {
      if (style === 'colon' && !spaced) rows.push([{ x: 60, text: `${label}: ${value}` }]);
      else if (style === 'above') {
        rows.push(labelCells(r, 60, label, spaced));
        rows.push([{ x: 60, text: value }]);
      } else
        rows.push([...labelCells(r, 60, label, spaced), ...valueCells(r, 260, value, kind === 'grouped_number' && value === f.policy)]);
    }
  }
  if (periodHow === 'sentence')
    rows.push([{ x: 60, text: pick(r, w.periodSentences).replace('{s}', date(f.start)).replace('{e}', date(f.end)) }]);
  if (periodHow === 'table') rows.push(...mergedHeaderTable(r, l, f, date));

  // Distractors below: a premium, a phone line, an IBAN; the carrier's legal name in the footer.
  if (chance(r, 0.5))
    rows.push([{ x: 60, text: `${pick(r, w.phone)} ${pick(r, ['0800 123 4567', '+49 89 1234 5678', '01 23 45 67 89'])}` }]);
  if (chance(r, 0.4))
    rows.push([
      { x: 60, text: `IBAN ${c === 'UK' ? 'GB' : c}${digits(r, 2)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)}` },
    ]);
  if (brandHead && !broker) rows.push([{ x: 60, text: w.tradingName.replace('{b}', ins.brand).replace('{i}', ins.legal) }]);
  else if (!broker && chance(r, 0.5)) rows.push([{ x: 60, text: `${ins.legal} · ${addressLine(r, l, false)}` }]);

  return {
    lines: rows.map((row) => toLine(row, ocr)),
    truth: {
      policy_number: f.policy,
      insurer: f.insurer,
      insurance_type: type,
      start_date: f.start,
      end_date: f.end,
      ...(f.plate ? { vehicle_registration: f.plate } : {}),
    },
    language: l,
    country: c,
    kind,
    ocr,
  };
}

/** A header merged over two sub-headers ("Versicherungszeitraum" over "vom" and "bis"), the values in the row below. */
function mergedHeaderTable(r: Rand, l: TLanguage, f: Fields, date: (iso: string) => string): Row[] {
  const w = WORDING[l];
  const [from, to] = pick(r, w.subHeaders);
  const cols: Array<{ head: string; value: string; width: number }> = [];
  if (f.plate) cols.push({ head: pick(r, w.registration), value: f.plate, width: 120 });
  const periodX = 60 + cols.reduce((s, k) => s + k.width, 0);
  const rows: Row[] = [
    [...cols.map((k, i) => ({ x: 60 + i * 120, text: k.head })), { x: periodX + 50, text: pick(r, w.period) }],
    [
      { x: periodX, text: from },
      { x: periodX + 120, text: to },
    ],
    [
      ...cols.map((k, i) => ({ x: 60 + i * 120, text: k.value })),
      { x: periodX, text: date(f.start) },
      { x: periodX + 120, text: date(f.end) },
    ],
  ];
  return rows;
}

export function addressLine(r: Rand, l: TLanguage, postBox: boolean): string {
  const n = int(r, 1, 120);
  if (l === 'fr')
    return postBox
      ? `Service Clients – CS ${digits(r, 5)} – ${digits(r, 5)} ${pick(r, ['Paris', 'Lyon', 'Niort'])} Cedex`
      : `${n} rue de la Paix – ${digits(r, 5)} Paris`;
  if (l === 'de') return postBox ? `Postfach ${digits(r, 5)} · ${digits(r, 5)} München` : `Hauptstraße ${n} · ${digits(r, 5)} Hamburg`;
  return postBox ? `PO Box ${digits(r, 4)}, Leeds LS1 ${int(r, 1, 9)}AB` : `${n} High Street, Leeds LS1 4AB`;
}

/** Documents that are not policies, as their issuers print them: numbers, dates and a letterhead, and no insurer. */
export function negativeDocument(
  seed: number,
  kind: NegativeKind,
  language?: TLanguage,
): { lines: Line[]; language: TLanguage; kind: NegativeKind } {
  const r = prng(seed * 104_729 + NEGATIVE_KINDS.indexOf(kind));
  const l: TLanguage = language ?? pick(r, ['en', 'de', 'fr'] as const);
  const b = brand(r, l);
  const day = addDays(new Date(Date.UTC(2025, 0, 1)), int(r, 0, 500));
  const d = (x: Date): string => printDate(r, l, iso(x));
  const company = pick(
    r,
    {
      en: [`${b} Plumbing Ltd`, `${b} Motors Ltd`, `${b} Bank plc`, `${b} Lettings Ltd`],
      de: [`${b} Haustechnik GmbH`, `${b} Kfz-Werkstatt GmbH & Co. KG`, `${b} Bank AG`, `${b} Immobilien GmbH`],
      fr: [`${b} Plomberie SARL`, `Garage ${b} SAS`, `Banque ${b} SA`, `${b} Immobilier SARL`],
    }[l],
  );
  const rows: Row[] = [[{ x: 60, text: company }], [{ x: 60, text: addressLine(r, l, chance(r, 0.3)) }]];
  const money = (): string => `${int(r, 10, 2400)}${l === 'en' ? '.' : ','}${digits(r, 2)}`;
  if (kind === 'invoice') {
    const t = {
      en: [
        'Invoice',
        'Invoice number',
        'Invoice date',
        'Billing period',
        'to',
        'Subtotal',
        'VAT 20%',
        'Total due',
        'Payment due by',
        'Company registered in England No.',
      ],
      de: [
        'Rechnung',
        'Rechnungsnummer',
        'Rechnungsdatum',
        'Leistungszeitraum',
        'bis',
        'Nettobetrag',
        'MwSt. 19 %',
        'Gesamtbetrag',
        'Zahlbar bis',
        'Amtsgericht Hamburg HRB',
      ],
      fr: [
        'Facture',
        'Facture n°',
        'Date de facture',
        'Période de facturation du',
        'au',
        'Total HT',
        'TVA 20 %',
        'Total TTC',
        'À régler avant le',
        'RCS Paris',
      ],
    }[l];
    const from = day;
    const to = addDays(day, int(r, 20, 30));
    rows.push([{ x: 60, text: t[0]! }]);
    rows.push([
      { x: 60, text: `${t[1]}: ${pick(r, [`INV-${digits(r, 6)}`, `${int(r, 2024, 2026)}-${digits(r, 5)}`, `F${digits(r, 7)}`])}` },
      { x: 330, text: `${t[2]}: ${d(to)}` },
    ]);
    rows.push([{ x: 60, text: `${WORDING[l].customer[0]}: ${digits(r, 6)}` }]);
    // A garage's invoice names the vehicle it serviced.
    if (chance(r, 0.4))
      rows.push([
        {
          x: 60,
          text: `${pick(r, { en: ['Vehicle', 'Car'], de: ['Fahrzeug', 'Kennzeichen'], fr: ['Véhicule', 'Immatriculation'] }[l])}: ${plate(r, COUNTRY_OF[l])}`,
        },
      ]);
    rows.push([{ x: 60, text: `${t[3]} ${d(from)} ${t[4]} ${d(to)}` }]);
    for (let k = 0; k < int(r, 2, 5); k++)
      rows.push([
        { x: 60, text: String(k + 1) },
        { x: 100, text: pick(r, ['Material', 'Labour', 'Service', 'Wartung', 'Main-d’œuvre']) },
        { x: 330, text: String(int(r, 1, 9)) },
        { x: 430, text: money() },
      ]);
    rows.push([
      { x: 330, text: t[5]! },
      { x: 430, text: money() },
    ]);
    rows.push([
      { x: 330, text: t[6]! },
      { x: 430, text: money() },
    ]);
    rows.push([
      { x: 330, text: t[7]! },
      { x: 430, text: money() },
    ]);
    rows.push([{ x: 60, text: `${t[8]} ${d(addDays(to, 14))}` }]);
    rows.push([
      {
        x: 60,
        text: `IBAN ${l === 'en' ? 'GB' : l.toUpperCase()}${digits(r, 2)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)} ${digits(r, 4)}`,
      },
    ]);
    rows.push([{ x: 60, text: `${company} · ${t[9]} ${digits(r, 6)}` }]);
  } else if (kind === 'bank_statement') {
    const t = {
      en: [
        'Statement of account',
        'Account number',
        'Sort code',
        'Statement period',
        'to',
        'Opening balance',
        'Closing balance',
        'Direct debit',
      ],
      de: ['Kontoauszug', 'Kontonummer', 'BLZ', 'Zeitraum', 'bis', 'Alter Saldo', 'Neuer Saldo', 'Lastschrift'],
      fr: ['Relevé de compte', 'N° de compte', 'Code banque', 'Période du', 'au', 'Ancien solde', 'Nouveau solde', 'Prélèvement'],
    }[l];
    const to = addDays(day, 30);
    rows.push([{ x: 60, text: `${t[0]} ${int(r, 1, 12)}/${day.getUTCFullYear()}` }]);
    rows.push([
      { x: 60, text: `${t[1]}: ${digits(r, 8)}` },
      { x: 330, text: `${t[2]}: ${digits(r, 6)}` },
    ]);
    rows.push([{ x: 60, text: `${t[3]} ${d(day)} ${t[4]} ${d(to)}` }]);
    rows.push([
      { x: 60, text: t[5]! },
      { x: 430, text: money() },
    ]);
    // Payees include an insurer collecting its premium, with the contract's number: still no policy document.
    const insurer = pick(
      r,
      {
        en: ['Aviva Insurance Limited', 'Admiral Insurance Services'],
        de: ['Allianz Versicherungs-AG', 'HUK-COBURG Versicherung'],
        fr: ['AXA France IARD', 'MAIF Assurances'],
      }[l],
    );
    for (let k = 0; k < int(r, 3, 7); k++) {
      const payee =
        k === 1
          ? `${insurer} ${pick(r, ['Policy', 'Vertrag', 'Contrat'])} ${digits(r, 9)}`
          : `${brand(r, l)} ${pick(r, ['Ref', 'Réf.', 'Verwendungszweck'])} ${digits(r, 9)}`;
      rows.push([
        { x: 60, text: d(addDays(day, k * 3 + 1)) },
        { x: 160, text: `${t[7]} ${payee}` },
        { x: 430, text: `-${money()}` },
      ]);
    }
    rows.push([
      { x: 60, text: t[6]! },
      { x: 430, text: money() },
    ]);
  } else {
    const w = WORDING[l];
    rows.push([{ x: 330, text: d(day) }]);
    rows.push([
      {
        x: 60,
        text: `${pick(r, { en: ['Our reference', 'Your reference'], de: ['Unser Zeichen', 'Aktenzeichen'], fr: ['Nos références', 'Dossier'] }[l])}: ${letters(r, 2)}-${digits(r, 6)}`,
      },
    ]);
    rows.push([{ x: 60, text: w.greeting }]);
    const body = {
      en: [
        `we confirm that your tenancy begins on ${d(addDays(day, 14))}.`,
        'Please find the signed agreement enclosed.',
        `The monthly rent of £${money()} is due on the first of each month.`,
      ],
      de: [
        `hiermit bestätigen wir, dass das Mietverhältnis am ${d(addDays(day, 14))} beginnt.`,
        'Den unterschriebenen Vertrag finden Sie anbei.',
        `Die Miete von ${money()} € ist monatlich im Voraus fällig.`,
      ],
      fr: [
        `nous vous confirmons que votre bail prend effet le ${d(addDays(day, 14))}.`,
        'Vous trouverez ci-joint le bail signé.',
        `Le loyer mensuel de ${money()} € est payable le premier de chaque mois.`,
      ],
    }[l];
    for (const s of body) rows.push([{ x: 60, text: s }]);
    rows.push([{ x: 60, text: w.closing }]);
    rows.push([{ x: 60, text: pick(r, ['Jane Doe', 'Thomas Weber', 'Sophie Durand']) }]);
  }
  return { lines: rows.map((row) => toLine(row, false)), language: l, kind };
}
