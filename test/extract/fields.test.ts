import { beforeAll, describe, expect, it } from 'vitest';
import { findDates, monthNumber } from '../../connector/src/extract/fields/dates.js';
import {
  countryByVote,
  documentCandidates,
  extractFieldsFromLines,
  guessLanguage,
  inferType,
  type InsurerMatcher,
} from '../../connector/src/extract/fields/document-fields.js';
import { findPlates } from '../../connector/src/extract/fields/plates.js';
import { SHIPPED_MODEL } from '../../connector/src/extract/fields/ranker.js';
import { readPolicyNumber } from '../../connector/src/extract/fields/policy-number.js';
import { ZExtractedFieldsSchema } from '../../shared/job.js';
import { lines, shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
beforeAll(async () => {
  matcher = await shippedMatcher();
});
const extract = (...texts: string[]) => extractFieldsFromLines({ lines: lines(...texts) }, matcher);

describe('dates', () => {
  it.each([
    ['01/03/2026', '2026-03-01'],
    ['01.03.2026', '2026-03-01'],
    ['01.03.26', '2026-03-01'],
    ['2026-03-01', '2026-03-01'],
    ['1 March 2026', '2026-03-01'],
    ['1st March 2026', '2026-03-01'],
    ['1 Mar 2026', '2026-03-01'],
    ['March 1, 2026', '2026-03-01'],
    ['1. März 2026', '2026-03-01'],
    ['1. Maerz 2026', '2026-03-01'],
    ['1er mars 2026', '2026-03-01'],
    ['15 février 2026', '2026-02-15'],
    ['3 août 2025', '2025-08-03'],
    ['12. Dezember 2025', '2025-12-12'],
    ['23, August 2025', '2025-08-23'],
  ])('reads %s as %s', (text, iso) => {
    expect(findDates(`Beginn: ${text} Uhr`).map((d) => d.iso)).toEqual([iso]);
  });

  it('reads OCR-mangled month names only when one month is that close', () => {
    expect(monthNumber('Septernber')?.month).toBe(9);
    expect(monthNumber('Fevrler')?.month).toBe(2);
    expect(monthNumber('Jnu')).toBeNull();
  });

  it('repairs look-alike letters inside numeric dates but not lone letters', () => {
    expect(findDates('Start: O1.03.2O26').map((d) => d.iso)).toEqual(['2026-03-01']);
    expect(findDates('6. September 2025 - 5. September 2026').map((d) => d.iso)).toEqual(['2025-09-06', '2026-09-05']);
  });

  it('rejects impossible dates and phone-number digit groups', () => {
    expect(findDates('31.02.2026')).toEqual([]);
    expect(findDates('Tel. 0800 12 34 56')).toEqual([]);
  });
});

describe('labels per language', () => {
  it.each([
    ['Policy number: AB12345678', 'UK'],
    ['Policy No.   AB12345678', 'UK'],
    ['Certificate number: AB12345678', 'UK'],
    ['Versicherungsschein-Nr.: AB12345678', 'DE'],
    ['Versicherungsnummer   AB12345678', 'DE'],
    ['Vertragsnummer: AB12345678', 'DE'],
    ['Numéro de police : AB12345678', 'FR'],
    ['N° de contrat   AB12345678', 'FR'],
    ["Numéro d'adhérent: AB12345678", 'FR'],
  ])('finds the policy number after "%s"', (text) => {
    expect(extract('Title', text, 'Customer number: 99887766').fields.policy_number).toBe('AB12345678');
  });

  it('takes the value from the cell under a table header', () => {
    const r = extract('Motor Insurance', 'Policy No.   Registration', 'PN-2026-884213   AB12 CDE');
    expect(r.fields.policy_number).toBe('PN-2026-884213');
    expect(r.fields.vehicle_registration).toBe('AB12 CDE');
  });

  it('reads start and end from separate labels, a period, and prose', () => {
    expect(extract('Versicherungsbeginn: 01.03.2026', 'Ablauf: 28.02.2027').fields).toMatchObject({
      start_date: '2026-03-01',
      end_date: '2027-02-28',
    });
    expect(extract('Période de validité : du 1er mars 2026 au 28 février 2027').fields).toMatchObject({
      start_date: '2026-03-01',
      end_date: '2027-02-28',
    });
    expect(extract("Date d'effet : 01/03/2026", "Date d'échéance : 28/02/2027").fields).toMatchObject({
      start_date: '2026-03-01',
      end_date: '2027-02-28',
    });
    expect(extract('Your cover runs from 1 March 2026 to 28 February 2027.').fields).toMatchObject({
      start_date: '2026-03-01',
      end_date: '2027-02-28',
    });
  });

  it('does not take an issue date or a birth date for the period', () => {
    const r = extract('Date of birth: 01/02/1980', 'Date of issue: 15/02/2026');
    expect(r.fields.start_date).toBeUndefined();
    expect(r.fields.end_date).toBeUndefined();
  });

  it('maps the insurer to the register name, by label and by letterhead', () => {
    expect(extract('Motor', 'Versicherer: HUK-COBURG-Allgemeine Versicherung AG').fields.insurer).toBe(
      'HUK-COBURG-Allgemeine Versicherung AG',
    );
    // An OCR'd page: "I.A.R.D." read as "LA.R.D." is repaired (a text layer is read as printed).
    const scanned = lines('AXA FRANCE LA.R.D.', "Attestation d'assurance automobile").map((l) => ({ ...l, ocr: true }));
    expect(extractFieldsFromLines({ lines: scanned }, matcher).fields.insurer).toBe('AXA FRANCE I.A.R.D.');
    // ... and read as "|.A.R.D." (a bar is no word character: own 042 lost its insurer to that).
    const barred = lines('AXA FRANCE |.A.R.D.', "Certificat d'assurance voyage").map((l) => ({ ...l, ocr: true }));
    expect(extractFieldsFromLines({ lines: barred }, matcher).fields.insurer).toBe('AXA FRANCE I.A.R.D.');
    expect(extract('Assureur : GMF ASSURANCES').fields.insurer).toBe('GMF ASSURANCES');
  });

  it('does not take a title for an insurer name', () => {
    expect(extract('Welcome', 'Mutuelle santé - Certificat').fields.insurer).toBeUndefined();
  });
});

describe('plates', () => {
  it.each([
    ['AB12 CDE', 'UK', 'AB12 CDE'],
    ['M-AB 1234', 'DE', 'M-AB 1234'],
    ['HH AB 1234', 'DE', 'HH-AB 1234'],
    ['AB-123-CD', 'FR', 'AB-123-CD'],
  ] as const)('reads %s (%s)', (text, country, plate) => {
    expect(findPlates(`Reg: ${text}`, [country])[0]?.plate).toBe(plate);
  });

  it('repairs OCR look-alikes by position', () => {
    expect(findPlates('VH2Z HJH', ['UK'])[0]?.plate).toBe('VH22 HJH');
    expect(findPlates('A8-1O3-CD', ['FR'])[0]?.plate).toBe('AB-103-CD');
    expect(findPlates('M-AB 12B4', ['DE'])[0]?.plate).toBe('M-AB 1284');
  });
});

describe('policy numbers', () => {
  it('repairs look-alikes in the digit region and keeps the prefix', () => {
    expect(readPolicyNumber('KH-47I1-2389O5', 'DE', 'motor', { ocr: true })?.value).toBe('KH-4711-238905');
    // A text layer is read as printed: no look-alike repair, whatever the format table says.
    expect(readPolicyNumber('KH-47I1-2389O5', 'DE', 'motor', { labelled: true })).toMatchObject({
      value: 'KH-47I1-2389O5',
      repaired: false,
    });
    expect(readPolicyNumber('UKM 9544 9522 19 Insurer', 'UK', 'motor')).toEqual({
      value: 'UKM 9544 9522 19',
      repaired: false,
      plausible: true,
    });
  });

  it('refuses numbers that fail the format table', () => {
    expect(readPolicyNumber('1234', 'UK', 'motor')).toBeNull();
    expect(readPolicyNumber('Mr Owen Price', 'UK', 'motor')).toBeNull();
  });

  it('falls back to an unlabelled number but not a customer number or phone', () => {
    const r = extract('Tel. 0800 123456', 'Customer number: 77665544', 'Reiseversicherung', 'RV-8683-8086219', 'Beginn: 2025-07-01');
    expect(r.fields.policy_number).toBe('RV-8683-8086219');
    expect(r.fields.confidence.policy_number).toBeLessThan(0.7);
  });
});

describe('type, language, missing fields', () => {
  it.each([
    ['Certificate of Motor Insurance', 'motor'],
    ['Versicherungsschein Kfz-Versicherung', 'motor'],
    ["Attestation d'assurance automobile", 'motor'],
    ['Travel Insurance Schedule', 'travel'],
    ['Versicherungsschein Auslandsreise-Krankenversicherung', 'travel'],
    ["Certificat d'assurance voyage", 'travel'],
    ['Private Health Insurance Certificate', 'health'],
    ['Versicherungsschein Krankenversicherung', 'health'],
    ['Attestation de complémentaire santé', 'health'],
  ])('infers the type of "%s"', (title, type) => {
    expect(inferType(lines(title))?.type).toBe(type);
  });

  it('guesses the language', () => {
    expect(guessLanguage('Ihre Versicherung beginnt am und endet')).toBe('de');
    expect(guessLanguage('Votre contrat est valable du')).toBe('fr');
    expect(guessLanguage('Your policy number is')).toBe('en');
  });

  it('leaves out what it did not find, with a confidence per present field only', () => {
    const r = extract('Travel Insurance Schedule', 'Policy number: PTR-938935');
    expect(r.fields.vehicle_registration).toBeUndefined();
    expect(r.fields.start_date).toBeUndefined();
    expect(r.fields.insurer).toBeUndefined();
    expect(Object.keys(r.fields.confidence).sort()).toEqual(['insurance_type', 'policy_number']);
    expect(ZExtractedFieldsSchema.parse(r.fields)).toEqual(r.fields);
  });

  it('returns nothing but an empty confidence record for unrelated text', () => {
    expect(extract('Hello world').fields).toEqual({ confidence: {}, document_type: { value: 'other', confidence: 0.5 } });
  });
});

describe('rules learned from documents by other authors', () => {
  const ocrLines = (...texts: string[]) => lines(...texts).map((l) => ({ ...l, ocr: true }));
  const extractOcr = (...texts: string[]) => extractFieldsFromLines({ lines: ocrLines(...texts) }, matcher);

  it('decides the country by vote: a foreign register hit does not outvote the language and the plate', () => {
    expect(countryByVote(['FR', undefined, 'UK', 'UK'])).toBe('UK');
    expect(countryByVote(['DE', undefined, undefined, 'UK'])).toBe('DE');
    expect(countryByVote([undefined, undefined, undefined, 'FR'])).toBe('FR');
    expect(countryByVote([undefined, undefined, undefined, undefined])).toBeUndefined();
  });

  it('reads a British plate on an English certificate whose insurer a French register also lists', () => {
    const f = extractOcr(
      'Aviva   CERTIFICATE OF MOTOR INSURANCE',
      'Policy Number   MTR/3210764/74',
      '1. Registration mark of vehicle   FC16 NBV',
      '2. Name of policyholder   Mr Harry Campbell',
      'For and on behalf of Aviva Insurance Limited',
      'Aviva Insurance Limited. Registered in Scotland No. SC838729.',
    );
    expect(f.fields.vehicle_registration).toBe('FC16 NBV');
  });

  it('keeps a capital article that is part of the name, drops a lower-case one of the sentence', () => {
    const f = extract('CARTE DE TIERS PAYANT   La Mutuelle Générale', 'N° adhérent   73752988', 'Organisme   La Mutuelle Générale');
    expect(f.fields.insurer).toBe('La Mutuelle Générale');
    const g = extract(
      'Versicherungsbestätigung',
      'Der Vertrag besteht bei der Allianz Versicherungs-AG.',
      'Versicherungsnummer: AS-123456789',
    );
    expect(g.fields.insurer).toBe('Allianz Versicherungs-AG');
  });

  it('takes the reading of a name the register knows when OCR misread it elsewhere on the page', () => {
    const f = extractOcr(
      'Kfz-Versicherungsschein',
      'Versicherungsnummer   AS-4711-0815',
      'Allianz Versicherungs-AG',
      'Allanz Versicherungs-AG - Vorsitzender des Aufsichtsrats: S. Lorenz - Sitz der Gesellschaft: München',
    );
    expect(f.fields.insurer).toBe('Allianz Versicherungs-AG');
    const names = documentCandidates(
      { lines: ocrLines('Allianz Versicherungs-AG', 'Allanz Versicherungs-AG - Sitz der Gesellschaft: München') },
      matcher,
    ).candidates.insurer.map((c) => c.value);
    expect(names).toContain('Allianz Versicherungs-AG');
    expect(names).not.toContain('Allanz Versicherungs-AG');
    // Two names the register knows equally well stay apart, and a text layer is never rewritten.
    const typed = documentCandidates(
      { lines: lines('Allianz Versicherungs-AG', 'Allanz Versicherungs-AG') },
      matcher,
    ).candidates.insurer.map((c) => c.value);
    expect(typed).toContain('Allanz Versicherungs-AG');
  });

  it('pairs a period broken after its first date, across stray OCR marks', () => {
    const f = extractOcr(
      "ATTESTATION D'ASSURANCE",
      'bénéficiaire du contrat n° 18 336 745 souscrit auprès de Europ Assistance, pour la période du 04/03/2026   …',
      'au 22/03/2026 inclus, dans le cadre d’un voyage',
      'Fait à Paris, le 13/01/2026',
    );
    expect(f.fields.start_date).toBe('2026-03-04');
    expect(f.fields.end_date).toBe('2026-03-22');
  });

  it('does not take a department that signs for the insurer for the insurer', () => {
    const f = extract(
      "ATTESTATION D'ASSURANCE",
      'Europ Assistance, entreprise régie par le Code des assurances, atteste que :',
      'Mme Camille DURAND est bénéficiaire du contrat n° 18336745 souscrit auprès de Europ Assistance',
      "Pour l'assureur, le Service Assistance",
    );
    expect(f.fields.insurer).toBe('Europ Assistance');
    const service = documentCandidates({ lines: lines("Pour l'assureur, le Service Assistance") }, matcher).candidates.insurer.find(
      (c) => c.value === 'Service Assistance',
    );
    expect(service?.features.department).toBe(1);
    expect(SHIPPED_MODEL.fields.insurer.weights.department).toBeLessThan(-1);
  });

  it('names the carrier by its legal name when its brand is printed too', () => {
    const f = extractOcr(
      'ADAC - Hansastraße 19 - 80686 München',
      'Versicherungsbestätigung | Certificate of Insurance',
      'Versicherungsnummer / Policy no.   190/2588167/68',
      'Mit freundlichen Grüßen',
      'ADAC Versicherung AG',
    );
    expect(f.fields.insurer).toBe('ADAC Versicherung AG');
    const brand = documentCandidates({ lines: ocrLines('ADAC - Hansastraße 19', 'ADAC Versicherung AG') }, matcher).candidates.insurer.find(
      (c) => c.value === 'ADAC',
    );
    expect(brand?.features.brand_of_legal).toBe(1);
    expect(SHIPPED_MODEL.fields.insurer.weights.brand_of_legal).toBeLessThan(-0.5);
  });

  it.each([
    [
      "MAAF atteste que M. Hugo Moreau est titulaire du contrat d'assurance voyage",
      'n° 230949515 pour la période du 04/03/2026',
      'au 22/03/2026 inclus.',
    ],
    [
      "MAAF atteste que M. Hugo Moreau est titulaire du contrat d'assurance voyage n° 230949515",
      'pour la période du 04/03/2026 au 22/03/2026 inclus.',
    ],
  ])('a policy label broken across lines, or with words inside it ("contrat d\'assurance voyage n°"): %s', (...text) => {
    const f = extract(...text);
    expect(f.fields.policy_number).toBe('230949515');
    expect(f.fields.start_date).toBe('2026-03-04');
    expect(f.fields.end_date).toBe('2026-03-22');
  });

  it('an OCR footer whose "·" was read as a dash glued to the legal form still yields the legal name, in the register\'s spelling', () => {
    const f = extractOcr(
      'Generali',
      'Versicherungsbestätigung / Certificate of Insurance',
      'Versicherungsnummer / Policy number   044 512 201',
      'We confirm that the person named above is insured with Generali.',
      'Generali-Deutschland Versicherung AG- Sitz der Gesellschaft/ Registered office: München',
    );
    expect(f.fields.insurer).toBe('Generali Deutschland Versicherung AG');
  });

  it.each([
    [
      [
        'Kestrel Demo',
        'Your car insurance renewal',
        'Policy number   KDM12345678',
        'Kestrel Demo is a trading name of Kestrel Demo General Insurance Limited. Registered office: 2 Mill Road, Norwich.',
      ],
      'Kestrel Demo General Insurance Limited',
    ],
    [
      [
        'MAAF',
        "AVIS D'ÉCHÉANCE",
        'N° de contrat   AU 1234 1234567',
        'MAAF est une marque de MAAF ASSURANCES SA, entreprise régie par le Code des assurances.',
      ],
      'MAAF ASSURANCES SA',
    ],
  ])('a brand that is a trading name (une marque) of a company: the company carries the risk (%#)', (text, insurer) => {
    expect(extract(...text).fields.insurer).toBe(insurer);
  });
});

describe('register matching of generic words', () => {
  it('does not take a lone generic word for a register name ("Health" in a letterhead)', () => {
    expect(matcher('UK', 'Health')).toBeNull();
    expect(matcher('UK', 'Underwriting')).toBeNull();
    expect(matcher('UK', 'Harbourside Demo Health')?.name).toBe('Harbourside Demo Health Assurance Limited');
  });
});
