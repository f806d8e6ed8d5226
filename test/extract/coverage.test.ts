import { beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { findCoverage } from '../../connector/src/extract/fields/coverage.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { ZExtractedFieldsSchema, ZDocumentCoverageSchema } from '../../shared/job.js';
import { scoreCoverage } from '../../scripts/extract-eval/coverage-score.js';
import { corpusPdf, corpusTruth, lines, shippedMatcher } from './helpers.js';

let matcher: InsurerMatcher;
const noOcr: Ocr = { recognize: () => Promise.reject(new Error('OCR called for a text PDF')), terminate: () => Promise.resolve() };
beforeAll(async () => {
  matcher = await shippedMatcher();
});

describe("coverage from the corpus generator's PDFs (scripts/make-corpus.ts)", () => {
  // One text PDF per type and language, across the four layouts (letters state coverage in a sentence).
  it.each(['002', '003', '004', '006', '007', '008', '010', '014', '018'])(
    '%s: every coverage detail of its ground truth, and nothing else',
    async (id) => {
      const r = await extractFields(corpusPdf(id), { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
      const truth = corpusTruth(id) as unknown as { coverage: Record<string, string> };
      expect(Object.keys(truth.coverage).length).toBeGreaterThan(0);
      const score = scoreCoverage(truth.coverage, r.fields.coverage);
      for (const [detail, s] of Object.entries(score))
        expect(s.outcome, `${id} ${detail}: ${JSON.stringify(r.fields.coverage)}`).toMatch(/^(right|absent)$/);
      expect(ZExtractedFieldsSchema.parse(r.fields)).toEqual(r.fields);
      // The top-level confidence still lists exactly the top-level fields.
      expect(Object.keys(r.fields.confidence).every((k) => k in r.fields && k !== 'coverage')).toBe(true);
    },
  );
});

describe('findCoverage: motor cover level', () => {
  it.each([
    ['Type of cover: Comprehensive', 'comprehensive', 'Comprehensive'],
    ['Level of cover   Third Party, Fire and Theft', 'third_party_fire_theft', 'Third Party, Fire and Theft'],
    ['Your level of cover is Third Party Only.', 'third_party', 'Third Party Only'],
    ['Deckungsumfang: Kfz-Haftpflicht und Vollkasko (SB 300 €)', 'comprehensive', 'Kfz-Haftpflicht und Vollkasko (SB 300 €)'],
    ['Formule : Tiers étendu', 'third_party_fire_theft', 'Tiers étendu'],
    ['Vous avez choisi la formule Tous risques.', 'comprehensive', 'Tous risques'],
    ['Formule   Au tiers', 'third_party', 'Au tiers'],
  ])('%s -> %s, the printed wording kept', (text, value, printed) => {
    const c = findCoverage({ lines: lines('Motor policy schedule', text), type: 'motor' });
    expect(c?.motor_cover).toEqual({ value, printed, confidence: 0.95 });
    expect(ZDocumentCoverageSchema.parse(c)).toEqual(c);
  });

  it('a German cover table: the highest level listed is the cover (Haftpflicht and Teilkasko rows -> Teilkasko)', () => {
    const c = findCoverage({
      lines: lines(
        'Sparte   Umfang   Beitrag',
        'Kfz-Haftpflicht   100 Mio. EUR   283,24 €',
        'Teilkasko   Selbstbeteiligung 300 EUR   261,76 €',
      ),
      type: 'motor',
    });
    expect(c?.motor_cover).toMatchObject({ value: 'third_party_fire_theft', printed: 'Teilkasko' });
  });

  it('a level marked as not held does not count ("Vollkasko   nicht versichert")', () => {
    const c = findCoverage({
      lines: lines('Kfz-Haftpflicht   100 Mio. EUR', 'Vollkasko   nicht versichert', 'Teilkasko   nicht versichert'),
      type: 'motor',
    });
    expect(c?.motor_cover?.value).toBe('third_party');
  });

  it("wording about other cars the holder may drive is not the policy's cover", () => {
    const c = findCoverage({
      lines: lines(
        'The Policyholder may also drive, with the consent of the owner, any private',
        'motor car not belonging to them and not hired to them under a hire purchase or',
        'leasing agreement, for third party cover only.',
      ),
      type: 'motor',
    });
    expect(c).toBeUndefined();
  });

  it('is not read from other insurance types, nor without a type', () => {
    expect(findCoverage({ lines: lines('Plan: Comprehensive'), type: 'travel' })?.motor_cover).toBeUndefined();
    expect(findCoverage({ lines: lines('Type of cover: Comprehensive') })).toBeUndefined();
  });

  it('OCR text lowers the confidence as for the other fields', () => {
    const c = findCoverage({ lines: lines('Type of cover: Comprehensive'), type: 'motor', ocrConfidence: 0.5 });
    expect(c?.motor_cover?.confidence).toBe(0.76);
  });
});

describe('findCoverage: travel', () => {
  it.each([
    [
      ['Type of policy: Annual multi-trip', 'Territorial limits: Worldwide excluding USA, Canada and the Caribbean'],
      'annual_multi_trip',
      'worldwide_excluding_usa',
    ],
    [['Vertragsart: Einzelreise', 'Geltungsbereich: Europa'], 'single_trip', 'europe'],
    [
      ['Geltungsbereich / Area   weltweit ohne USA und Kanada / worldwide excl. USA', 'Tarif: Jahresreiseversicherung'],
      'annual_multi_trip',
      'worldwide_excluding_usa',
    ],
    [['Formule : Annuelle multi-voyages', 'Zone : Monde entier'], 'annual_multi_trip', 'worldwide'],
    [['Area of travel   UK only', 'Policy type   Single Trip'], 'single_trip', 'domestic'],
  ])('%j', (text, trip, region) => {
    const c = findCoverage({ lines: lines('Travel insurance', ...text), type: 'travel' });
    expect(c?.trip_type?.value).toBe(trip);
    expect(c?.region?.value).toBe(region);
    expect(c?.region?.confidence).toBe(0.95);
  });

  it("the home country counts only as a label's value, never from an address", () => {
    const c = findCoverage({
      lines: lines('Reiseversicherung', 'Hauptstraße 12, 80331 München, Deutschland', 'Einzelreise'),
      type: 'travel',
    });
    expect(c?.region).toBeUndefined();
  });

  it('without wording, the length of the period gives the trip type at a confidence that asks for review', () => {
    const short = findCoverage({ lines: lines('Travel insurance'), type: 'travel', start: '2026-03-01', end: '2026-03-15' });
    expect(short?.trip_type).toEqual({ value: 'single_trip', confidence: 0.7 });
    const year = findCoverage({ lines: lines('Travel insurance'), type: 'travel', start: '2026-03-01', end: '2027-02-28' });
    expect(year?.trip_type).toEqual({ value: 'annual_multi_trip', confidence: 0.6 });
    expect(findCoverage({ lines: lines('Travel insurance'), type: 'travel', start: '2026-03-01', end: '2026-09-01' })).toBeUndefined();
  });
});

describe('findCoverage: health plan', () => {
  it.each([
    ['Your plan: Treatment and Care', 'Treatment and Care'],
    ['Tarif   Komfort Plus (KVS2)', 'Komfort Plus (KVS2)'],
    ['Votre formule : Confort', 'Confort'],
    ['Niveau de garantie   Niveau 3', 'Niveau 3'],
  ])('%s -> %s', (text, value) => {
    expect(findCoverage({ lines: lines('Health insurance', text), type: 'health' })?.health_plan?.value).toBe(value);
  });

  it('a tariff column: every distinct tariff, in order', () => {
    const c = findCoverage({
      lines: lines(
        'Person   geb.   Tarif   Beitrag',
        'Anna Klein   01.09.1967   Z 90   379,12 €',
        'Anna Klein   01.09.1967   PVN   31,92 €',
        'Tom Klein   05.04.2022   Z 90   382,00 €',
        'Monatlicher Gesamtbeitrag   1.460,94 €',
      ),
      type: 'health',
    });
    expect(c?.health_plan).toEqual({ value: 'Z 90, PVN', confidence: 0.8 });
  });

  it('OCR specks between a label and its value are not a column; a label whose value was lost takes nothing from the next row', () => {
    expect(
      findCoverage({ lines: lines('Your plan   ;   Mid-Range Plan', 'Total premium   £866.55'), type: 'health' })?.health_plan,
    ).toEqual({ value: 'Mid-Range Plan', confidence: 0.88 });
    expect(findCoverage({ lines: lines('Your plan', 'Total premium   £866.55'), type: 'health' })).toBeUndefined();
  });

  it('a label inside a sentence is not a plan ("Tarife und Monatsbeiträge")', () => {
    expect(findCoverage({ lines: lines('Versicherte Personen, Tarife und Monatsbeiträge'), type: 'health' })).toBeUndefined();
  });

  describe("a plan printed without a label, as a certificate's title or the line under it", () => {
    const head = (plan: string, ...more: string[]) =>
      lines(
        'Membership certificate',
        plan,
        'Mrs Jane Doe   Membership number   13452408-69',
        '12 High Street   Start date   01/01/2026',
        ...more,
      );

    it.each([
      ['Bupa By You — Comprehensive'],
      ['Personal Health — Core'],
      ['Premier Health'],
      ['Komfort Plus'],
      ['Santé Équilibre'],
      ['Private Medical Insurance — Comprehensive'],
    ])('%s: the whole line as printed, below the review confidence', (plan) => {
      expect(findCoverage({ lines: head(plan), type: 'health' })?.health_plan).toEqual({ value: plan, confidence: 0.75 });
    });

    it('a labelled plan wins over a title line', () => {
      expect(findCoverage({ lines: head('Personal Health — Core', 'Your plan: Treatment and Care'), type: 'health' })?.health_plan).toEqual(
        { value: 'Treatment and Care', confidence: 0.92 },
      );
    });

    it('OCR lowers it as it lowers the other readings', () => {
      expect(findCoverage({ lines: head('Premier Health'), type: 'health', ocrConfidence: 0.5 })?.health_plan?.confidence).toBe(0.6);
    });

    it.each([
      ["a company's name", 'Premier Insurance Company Limited'],
      ["a company's name without a legal form", 'Premier Insurance'],
      ['a sentence', 'Thank you for choosing our premier service.'],
      ['a line without a plan word', 'Private medical insurance'],
      ['a line shared with another cell', 'Premier Health   Membership number'],
    ])('not %s', (_, line) => {
      expect(findCoverage({ lines: head(line), type: 'health' })).toBeUndefined();
    });

    it('not far down the page, nor on other insurance types', () => {
      const deep = lines(...Array.from({ length: 8 }, (_, i) => `Line ${i}   x`), 'Personal Health — Core');
      expect(findCoverage({ lines: deep, type: 'health' })).toBeUndefined();
      expect(findCoverage({ lines: head('Personal Health — Core'), type: 'motor' })).toBeUndefined();
    });
  });
});
