/**
 * The policy-number format table, per country and insurance type.
 *
 * No country publishes one format for policy numbers: they are insurer-specific (see
 * connector/data/register/SOURCES.md). Where a standard fixes the shape of the field we follow it
 * (Germany: GDV's Versicherungsschein-Nummer is letters and digits only, 17 characters in the
 * legacy Kfz record, 35 in newer records); elsewhere the rules are plausibility bounds that real
 * numbers pass and typing mistakes (a name in the number field, a date, a plate, stray symbols)
 * fail. Every rule runs on the normalised number (upper case, no spaces, dashes or dots).
 * The "Policy-number formats" table of docs/reference-data.md is generated from this one.
 */
import type { TCountry, TInsuranceType } from '../../../shared/policy.js';

export interface FormatRule {
  id: string;
  country: TCountry;
  insurance_type: TInsuranceType;
  pattern: RegExp;
  /** Minimum count of digits; insurer numbers are mostly numeric, names and plates are not. */
  minDigits: number;
  description: string;
  basis: string;
}

const PLAUSIBLE = 'Covercheck plausibility rule (no public standard; formats are insurer-specific)';
const GDV_17 = 'GDV VU-Vermittler standard, Satzart 0230.050: Versicherungsschein-Nummer AN 17, letters and digits only';
const GDV_35 = 'GDV Schaden-Service Vorsatz: 35-character VSNr, letters and digits only';

export const FORMAT_RULES: readonly FormatRule[] = [
  { id: 'uk-motor', country: 'UK', insurance_type: 'motor', pattern: /^[A-Z0-9]{8,20}$/, minDigits: 5, description: '8-20 letters or digits, at least 5 digits', basis: PLAUSIBLE },
  { id: 'uk-travel', country: 'UK', insurance_type: 'travel', pattern: /^[A-Z0-9]{6,20}$/, minDigits: 4, description: '6-20 letters or digits, at least 4 digits', basis: PLAUSIBLE },
  { id: 'uk-health', country: 'UK', insurance_type: 'health', pattern: /^[A-Z0-9]{6,16}$/, minDigits: 5, description: '6-16 letters or digits, at least 5 digits (membership numbers)', basis: PLAUSIBLE },
  { id: 'de-motor', country: 'DE', insurance_type: 'motor', pattern: /^[A-Z0-9]{5,17}$/, minDigits: 3, description: '5-17 letters or digits, at least 3 digits', basis: GDV_17 },
  { id: 'de-travel', country: 'DE', insurance_type: 'travel', pattern: /^[A-Z0-9]{5,35}$/, minDigits: 3, description: '5-35 letters or digits, at least 3 digits', basis: GDV_35 },
  { id: 'de-health', country: 'DE', insurance_type: 'health', pattern: /^[A-Z0-9]{5,35}$/, minDigits: 3, description: '5-35 letters or digits, at least 3 digits', basis: GDV_35 },
  { id: 'fr-motor', country: 'FR', insurance_type: 'motor', pattern: /^[A-Z0-9]{6,20}$/, minDigits: 5, description: '6-20 letters or digits, at least 5 digits (numero de police)', basis: PLAUSIBLE },
  { id: 'fr-travel', country: 'FR', insurance_type: 'travel', pattern: /^[A-Z0-9]{6,20}$/, minDigits: 4, description: '6-20 letters or digits, at least 4 digits', basis: PLAUSIBLE },
  { id: 'fr-health', country: 'FR', insurance_type: 'health', pattern: /^[A-Z0-9]{6,20}$/, minDigits: 5, description: '6-20 letters or digits, at least 5 digits (numero d\'adherent)', basis: PLAUSIBLE },
];

const BY_KEY = new Map(FORMAT_RULES.map((r) => [`${r.country}:${r.insurance_type}`, r]));

export function formatRule(country: TCountry, type: TInsuranceType): FormatRule {
  const rule = BY_KEY.get(`${country}:${type}`);
  if (!rule) throw new Error(`No format rule for ${country} ${type}`);
  return rule;
}

export type FormatCheck = { ok: true; rule: FormatRule } | { ok: false; rule: FormatRule; reason: string };

/** Checks an already normalised number; the reason names what is wrong in words a user can act on. */
export function checkFormat(normalised: string, country: TCountry, type: TInsuranceType): FormatCheck {
  const rule = formatRule(country, type);
  if (!/^[A-Z0-9]*$/.test(normalised)) {
    return { ok: false, rule, reason: 'it contains characters other than letters, digits, spaces, dashes and dots' };
  }
  if (!rule.pattern.test(normalised)) return { ok: false, rule, reason: `expected ${rule.description}, got ${normalised.length} characters` };
  const digits = normalised.replace(/[^0-9]/g, '').length;
  if (digits < rule.minDigits) return { ok: false, rule, reason: `expected ${rule.description}, got ${digits} digits` };
  return { ok: true, rule };
}
