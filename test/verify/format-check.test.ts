import { describe, expect, it } from 'vitest';
import { checkFormat, formatRules } from '../../connector/src/verify/format-check.js';
import { normalisePolicyNumber } from '../../connector/src/verify/normalise.js';
import type { TCountry, TInsuranceType } from '../../shared/policy.js';

// [country, type, valid examples, invalid examples] — examples as a user would type them.
const TABLE: [TCountry, TInsuranceType, string[], string[]][] = [
  [
    'UK',
    'motor',
    ['UKM-1000-0001', 'abc 123 456 78', 'P12345678'],
    ['1234', 'SMITH', 'AB12 CDE', 'UKM-1000-0001-0001-0001-99', 'POL#123456'],
  ],
  ['UK', 'travel', ['UKT-2000-0001', 'TR1234', 'ttt-9999-x'], ['TR12', 'TRAVEL', '12345678901234567890123']],
  ['UK', 'health', ['UKH-3000-0001', '87654321', 'bupa 12345'], ['1234', 'HEALTH-A-B', '12345678901234567']],
  ['DE', 'motor', ['KFZ-5096-000001', '12345', 'AB 123 456'], ['AB12', 'KFZ-ABCDEF', '123456789012345678', 'KFZ-5096-ÄÖÜ01']],
  ['DE', 'travel', ['REI-5441-000001', 'R123456789012345678901234567890123', '1A2B3C'], ['R12', 'REISE', 'R' + '1'.repeat(35)]],
  ['DE', 'health', ['KV-5549-000001', '00123'], ['KV12', 'KRANKEN']],
  ['FR', 'motor', ['AUTO-2109-000001', '123456', 'fr.987.654.321'], ['12345', 'AUTO-1234', 'AB-123-CD']],
  ['FR', 'travel', ['VOY-0228-000001', 'V1234X'], ['V123', 'VOYAGE-X']],
  ['FR', 'health', ['MUT-000123', '1234567890'], ['M1234', 'SANTE-AB', '1'.repeat(21)]],
];

describe('policy-number format table', () => {
  it('has exactly one rule per supported country and type', () => {
    expect(formatRules()).toHaveLength(9);
    for (const [country, type] of TABLE)
      expect(formatRules().filter((r) => r.country === country && r.insurance_type === type)).toHaveLength(1);
  });

  for (const [country, type, valid, invalid] of TABLE) {
    it(`${country} ${type}: accepts ${valid.length} typical numbers`, () => {
      for (const raw of valid) expect(checkFormat(normalisePolicyNumber(raw), country, type), raw).toMatchObject({ ok: true });
    });
    it(`${country} ${type}: rejects ${invalid.length} malformed numbers with a reason`, () => {
      for (const raw of invalid) {
        const out = checkFormat(normalisePolicyNumber(raw), country, type);
        expect(out.ok, raw).toBe(false);
        if (!out.ok) expect(out.reason.length).toBeGreaterThan(10);
      }
    });
  }
});

describe('normalisePolicyNumber', () => {
  it('folds case and drops spaces, dashes (incl. typographic) and dots', () => {
    expect(normalisePolicyNumber(' ukm-1000 0001 ')).toBe('UKM10000001');
    expect(normalisePolicyNumber('ukm\u20131000\u20140001')).toBe('UKM10000001');
    expect(normalisePolicyNumber('fr.987.654')).toBe('FR987654');
  });
  it('keeps other symbols so the format check can reject them', () => {
    expect(normalisePolicyNumber('POL#12/34')).toBe('POL#12/34');
  });
});
