/** The add-on's choice of column for each extracted value (addon/src/extracted-columns.ts), without a sheet. */
import { describe, expect, it } from 'vitest';
import { placeValues } from '../../addon/src/extracted-columns.js';

const travel = {
  policy_number: 'TRV-1',
  insurance_type: 'travel',
  end_date: '2026-12-31',
  'coverage.trip_type': 'annual_multi_trip',
  'coverage.region': 'europe',
} as const;

describe('placeValues', () => {
  it('each value under the header that names it, whatever the order; values without a header get one, labelled', () => {
    expect(placeValues(['Trip type', 'Policy no', 'Insurance type'], travel)).toEqual({
      row: ['annual_multi_trip', 'TRV-1', 'travel', '2026-12-31', 'europe'],
      newHeaders: ['End date', 'Area'],
    });
  });

  it('a generic word does not take a detail\'s column: "Trip type" alone is the trip\'s, the type gets its own', () => {
    expect(placeValues(['Trip type'], travel).row[0]).toBe('annual_multi_trip');
    expect(placeValues(['Trip type'], travel).newHeaders).toContain('Insurance type');
  });

  it('"Fin de garantie" is the end date\'s, "Formule" the cover level\'s', () => {
    const { row, newHeaders } = placeValues(['Police', 'Fin de garantie', 'Formule'], {
      policy_number: 'FR-9',
      end_date: '2026-03-31',
      'coverage.motor_cover': 'comprehensive',
    });
    expect(row).toEqual(['FR-9', '2026-03-31', 'comprehensive']);
    expect(newHeaders).toEqual([]);
  });

  it('two values never share a cell: a header both name goes to the first, the other gets a column of its own', () => {
    const { row, newHeaders } = placeValues(['Plan type'], { insurance_type: 'health', 'coverage.health_plan': 'Personal Health — Core' });
    expect(row).toEqual(['health', 'Personal Health — Core']);
    expect(newHeaders).toEqual(['Plan']);
  });

  it('on an empty sheet: a header per value read, in the review order, and none for values not read', () => {
    expect(placeValues([], { insurer: 'Bupa', 'coverage.health_plan': 'Bupa By You — Comprehensive' })).toEqual({
      row: ['Bupa', 'Bupa By You — Comprehensive'],
      newHeaders: ['Insurer', 'Plan'],
    });
  });

  describe('the link to the Drive file', () => {
    const file = { text: 'policy.pdf', label: 'Drive file' };
    it('goes under a header that names a file, in English, German or French, once the values have taken theirs', () => {
      for (const h of ['Source file', 'PDF', 'Datei', 'Fichier', 'Document', 'Drive link'])
        expect(placeValues(['Policy number', h], { policy_number: 'P-1' }, file)).toEqual({
          row: ['P-1', 'policy.pdf'],
          newHeaders: [],
          fileCol: 1,
        });
    });
    it("takes a column of its own, after the values' new ones, where no header names a file", () => {
      expect(placeValues(['Policy number', 'Notes'], { policy_number: 'P-1', insurer: 'Aviva' }, file)).toEqual({
        row: ['P-1', '', 'Aviva', 'policy.pdf'],
        newHeaders: ['Insurer', 'Drive file'],
        fileCol: 3,
      });
    });
    it('never takes a value\'s column: "Policy document number" is the policy number\'s', () => {
      expect(placeValues(['Policy document number'], { policy_number: 'P-1' }, file)).toEqual({
        row: ['P-1', 'policy.pdf'],
        newHeaders: ['Drive file'],
        fileCol: 1,
      });
    });
  });
});
