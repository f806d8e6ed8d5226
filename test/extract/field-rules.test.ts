/**
 * The field-finding rules for the ways documents print fields that readers miss, one case each; the procedural
 * test (procedural-fields.test.ts) holds them over many random layouts and wordings.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { findDates } from '../../connector/src/extract/fields/dates.js';
import { documentCandidates, extractFieldsFromLines, type InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { closeUpLetterSpacing } from '../../connector/src/extract/fields/letter-spacing.js';
import { isPrintChrome } from '../../connector/src/extract/fields/print-chrome.js';
import type { Line } from '../../connector/src/extract/reading/lines.js';
import { lines, shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
beforeAll(async () => {
  matcher = await shippedMatcher();
});
const extract = (...texts: string[]) => extractFieldsFromLines({ lines: lines(...texts) }, matcher).fields;
/** A line of cells at the given x positions. */
const row = (...cells: Array<[number, string]>): Line => ({
  text: cells.map(([, t]) => t).join('   '),
  cells: cells.map(([x, text]) => ({ x, text })),
});

describe('letter-spaced words', () => {
  it('closes up a spaced-out label, and joins one-word cells into one label', () => {
    expect(closeUpLetterSpacing(row([60, "D A T E D ' E F F E T"], [260, '01/03/2026'])).text).toBe("DATED'EFFET   01/03/2026");
    const joined = closeUpLetterSpacing(row([60, 'N °'], [80, 'D E'], [100, 'C O N T R A T'], [260, '12345678']));
    expect(joined.cells.map((c) => c.text)).toEqual(['N° DE CONTRAT', '12345678']);
  });

  it('leaves initials, grades and short lists alone', () => {
    const l = row([60, 'J. R. Smith, class A B'], [260, '1 2 3']);
    expect(closeUpLetterSpacing(l)).toBe(l);
  });

  it('finds fields after letter-spaced labels whose word gaps are lost', () => {
    const f = extract(
      'Kestrelford Insurance plc',
      'Certificate of Motor Insurance',
      'P O L I C Y N U M B E R   KF12345678',
      'D A T E O F C O M M E N C E M E N T   01/03/2026',
      'E X P I R Y D A T E   28/02/2027',
    );
    expect(f).toMatchObject({ policy_number: 'KF12345678', start_date: '2026-03-01', end_date: '2027-02-28' });
  });

  it('closes up the short words a reader left spaced beside the long ones it closed ("POLICY N O .")', () => {
    const f = extract(
      'Wessexstone Insurance Company Limited',
      'Travel Insurance Policy Schedule',
      'CUSTOMER NUMBER   7262770',
      'POLICY N O .   9137701314',
      'D A T E   O F   I S S U E   02/04/2026',
    );
    expect(f.policy_number).toBe('9137701314');
  });

  it('finds fields after labels the reader already closed up without their word gaps', () => {
    // A text layer's evenly spaced characters arrive joined (reading/text-layer.ts), with no gap left to close.
    const f = extract(
      'Mutuelle Valroc',
      "Certificat d'adhésion – frais de soins",
      'NUMÉRODEPOLICE   90203575',
      "PRISED'EFFET   19 novembre 2025",
      "DATED'ÉCHÉANCE   18/11/2026",
    );
    expect(f).toMatchObject({ policy_number: '90203575', start_date: '2025-11-19', end_date: '2026-11-18' });
  });
});

describe('labels in sentences', () => {
  // A three-week trip beside the date the document was issued: no one-year span tells the period's dates apart.
  it.each([
    ['Date of issue: 10/02/2026', 'Cover begins on 01/03/2026 and expires on 21/03/2026.'],
    ['Date of issue: 10/02/2026', 'The insurance commences on 1st March 2026 and ends at midnight on 21st March 2026.'],
    ['Ausgestellt am: 10.02.2026', 'Ihr Vertrag beginnt am 01.03.2026 und endet am 21.03.2026.'],
    ['Ausgestellt am: 10.02.2026', 'Der Versicherungsschutz beginnt am 1. März 2026 und läuft bis zum 21. März 2026.'],
    ['Édité le : 10/02/2026', 'Le contrat prend effet le 1 mars 2026 et expire le 21/03/2026.'],
    ['Édité le : 10/02/2026', 'La garantie prend effet le 01/03/2026 et prend fin le 21 mars 2026.'],
  ])('reads the period of "%s" / "%s"', (issued, sentence) => {
    const f = extract('Travel insurance', issued, 'Policy number: TR-2026-004411', sentence);
    expect(f).toMatchObject({ start_date: '2026-03-01', end_date: '2026-03-21' });
  });
});

describe('a header merged over sub-headers', () => {
  it('reads the dates under "Début" and "Fin" and the plate under its own header two rows up', () => {
    const f = extractFieldsFromLines(
      {
        lines: [
          row([60, "Attestation d'assurance automobile"]),
          row([60, 'Fait le : 14/10/2025']),
          row([60, 'N° de contrat : KR-55120397']),
          row([60, 'Immatriculation'], [230, 'Période de garantie']),
          row([180, 'Début'], [300, 'Fin']),
          row([60, 'AB-123-CD'], [180, '01/11/2025'], [300, '31/10/2026']),
        ],
      },
      matcher,
    ).fields;
    expect(f).toMatchObject({ vehicle_registration: 'AB-123-CD', start_date: '2025-11-01', end_date: '2026-10-31' });
  });
});

describe('who carries the risk', () => {
  it('never takes a legal form alone ("Limited", "GmbH") for a name, wherever OCR breaks the line', () => {
    const c = documentCandidates(
      {
        lines: lines(
          'Travel insurance',
          'Policy number: TRV6503892',
          'Seaview Demo policies are underwritten by Seaview Demo, Insurance Company Limited, registered office 40 Esplanade',
          'Versicherer: GmbH',
        ),
      },
      matcher,
    );
    expect(c.candidates.insurer.map((x) => x.value)).not.toContain('Limited');
    expect(c.candidates.insurer.map((x) => x.value)).not.toContain('GmbH');
  });

  it.each([
    ['Intermédiaire', 'Assureur', 'Valciel Courtage SAS', 'Mutuelle Clairchamp'],
    ['Broker', 'Insurer', 'Larkmere Insurance Brokers Ltd', 'Larkgate & Cairngate Insurance Limited'],
    ['Vermittler', 'Versicherer', 'Tannhof Versicherungsmakler GmbH', 'Rheinfeld Versicherung AG'],
  ])('takes the carrier, not the name under the "%s" heading of a label row', (brokerHead, carrierHead, broker, carrier) => {
    const f = extractFieldsFromLines(
      {
        lines: [
          row([60, broker]),
          row([60, 'Certificate / Attestation / Versicherungsbestätigung']),
          row([60, brokerHead], [300, carrierHead]),
          row([60, broker], [300, carrier]),
          row([60, 'Policy number / N° de contrat'], [300, 'Start date / Date d’effet']),
          row([60, 'TR-2026-004411'], [300, '01/03/2026']),
        ],
      },
      matcher,
    ).fields;
    expect(f.insurer).toBe(carrier);
  });

  it('takes the underwriter, not the broker who arranged the cover and printed the letterhead', () => {
    const f = extract(
      'Mail - Anna Schmidt - Outlook',
      'Kestrelford Insurance Brokers Ltd',
      'Travel Insurance Certificate',
      'This insurance is arranged by Kestrelford Insurance Brokers Ltd and underwritten by Harrowmere Insurance (Gibraltar) Limited.',
      'Policy number: TR-2026-004411',
    );
    expect(f.insurer).toBe('Harrowmere Insurance (Gibraltar) Limited');
  });

  it.each([
    ['Vermittler: Elbstein Finanz GmbH', 'Versicherer: Nordhof Versicherung AG', 'Nordhof Versicherung AG'],
    ['Courtier : Cabinet Valfleur SARL', 'Assureur : Montciel Assurances SA', 'Montciel Assurances SA'],
  ])('takes the carrier of "%s" / "%s"', (broker, carrier, expected) => {
    const head = broker.split(/:\s*/)[1]!;
    expect(extract(head, 'Attestation / Versicherungsbestätigung', broker, carrier, 'Policy number: TR-2026-004411').insurer).toBe(
      expected,
    );
  });

  it('knows print chrome', () => {
    expect(isPrintChrome('Mail - John Taylor - Outlook')).toBe(true);
    expect(isPrintChrome('Gmail - Your policy documents')).toBe(true);
    expect(isPrintChrome('https://outlook.office.com/mail/inbox/id/AAQk 1/2')).toBe(true);
    expect(isPrintChrome('Allianz Versicherungs-AG - Königinstraße 28 - 80802 München')).toBe(false);
  });
});

describe('numbers', () => {
  it('reads a number printed in groups across cells, not the mail box of the address', () => {
    const f = extractFieldsFromLines(
      {
        lines: [
          row([60, 'Lunerive IARD SA']),
          row([60, 'Service Clients – CS 14184 – 62434 Lyon Cedex']),
          row([60, "Attestation d'assurance voyage"]),
          row([60, 'Numéro de contrat'], [260, '5914'], [300, '2866'], [340, '1009']),
        ],
      },
      matcher,
    ).fields;
    expect(f.policy_number).toBe('5914 2866 1009');
  });

  it('splits a period printed day first with a dash, and reads OCR\'s "Ler" as the 1st', () => {
    expect(findDates('Cover period: 12/03/2025 - 11/03/2026').map((d) => d.iso)).toEqual(['2025-03-12', '2026-03-11']);
    expect(findDates('Prise d’effet : Ler septembre 2025').map((d) => d.iso)).toEqual(['2025-09-01']);
  });
});

describe('not a policy at all', () => {
  it('returns no field from an invoice, and says what it is', () => {
    const f = extract(
      'Elbstein Haustechnik GmbH',
      'Rechnung',
      'Rechnungsnummer: RE-2025-00417   Rechnungsdatum: 14.10.2025',
      'Leistungszeitraum 01.10.2025 bis 31.10.2025',
      'Nettobetrag   1.200,00 €',
      'MwSt. 19 %   228,00 €',
      'Gesamtbetrag   1.428,00 €',
    );
    expect(f).toEqual({ confidence: {}, document_type: { value: 'invoice', confidence: expect.any(Number) } });
  });

  it('keeps a premium notice, full of invoice words, an insurance document', () => {
    const f = extract(
      'Montciel Assurances SA',
      "Avis d'échéance – assurance automobile",
      'Contrat n° 40217733',
      'Période du 01/03/2026 au 28/02/2027',
      'Cotisation annuelle TTC   612,40 €',
      'Montant HT   540,00 €',
      'TVA   72,40 €',
    );
    expect(f.document_type?.value).toBe('insurance');
    expect(f.policy_number).toBe('40217733');
  });
});
