/**
 * The policy-number format check. The rules themselves are each country's `formatRules`
 * (shared/packs/countries/), one per insurance type; the compiler holds every country to every type.
 *
 * No country publishes one format for policy numbers: they are insurer-specific (see
 * connector/data/register/SOURCES.md). Where a standard fixes the shape of the field a profile
 * follows it (Germany: GDV's Versicherungsschein-Nummer is letters and digits only, 17 characters
 * in the legacy Kfz record, 35 in newer records); elsewhere the rules are plausibility bounds that
 * real numbers pass and typing mistakes (a name in the number field, a date, a plate, stray
 * symbols) fail. Every rule runs on the normalised number (upper case, no spaces, dashes or dots).
 */
import {
  COUNTRIES,
  COUNTRY_PROFILES,
  INSURANCE_TYPES,
  type FormatRule,
  type TCountry,
  type TInsuranceType,
} from '../../../shared/packs/index.js';
import type { TPolicy } from '../../../shared/policy.js';
import { AppError } from '../errors.js';
import { normalisePolicyNumber } from './normalise.js';

export interface NamedFormatRule extends FormatRule {
  /** "de-motor": how checks[] and the docs name the rule. */
  id: string;
  country: TCountry;
  insurance_type: TInsuranceType;
}

export function formatRule(country: TCountry, type: TInsuranceType): NamedFormatRule {
  return { ...COUNTRY_PROFILES[country].formatRules[type], id: `${country.toLowerCase()}-${type}`, country, insurance_type: type };
}

/** Every rule, country by country in registry order, types in contract order. */
export function formatRules(): NamedFormatRule[] {
  return COUNTRIES.flatMap((c) => INSURANCE_TYPES.map((t) => formatRule(c, t)));
}

export type FormatCheck = { ok: true; rule: NamedFormatRule } | { ok: false; rule: NamedFormatRule; reason: string };

/** Why an already normalised number fails a rule, in words a user can act on; null when it passes. */
function failure(normalised: string, rule: FormatRule): string | null {
  if (!/^[A-Z0-9]*$/.test(normalised)) return 'it contains characters other than letters, digits, spaces, dashes and dots';
  if (!rule.pattern.test(normalised)) return `expected ${rule.description}, got ${normalised.length} characters`;
  const digits = normalised.replace(/[^0-9]/g, '').length;
  if (digits < rule.minDigits) return `expected ${rule.description}, got ${digits} digits`;
  return null;
}

/** Checks an already normalised number; the reason names what is wrong in words a user can act on. */
export function checkFormat(normalised: string, country: TCountry, type: TInsuranceType): FormatCheck {
  const rule = formatRule(country, type);
  const reason = failure(normalised, rule);
  return reason === null ? { ok: true, rule } : { ok: false, rule, reason };
}

/** checkFormat(...).ok without naming the rule: the extractor asks it of every number-like word of a document. */
export function passesFormat(normalised: string, country: TCountry, type: TInsuranceType): boolean {
  return failure(normalised, COUNTRY_PROFILES[country].formatRules[type]) === null;
}

/**
 * The policy's number against its country and type's rule: the rule it matches, or AppError
 * invalid_policy_number. The one refusal for a bad format, whether the async and batch submissions
 * check it on arrival or the engine before verifying.
 */
export function requireFormat(policy: Pick<TPolicy, 'policy_number' | 'country' | 'insurance_type'>): NamedFormatRule {
  const format = checkFormat(normalisePolicyNumber(policy.policy_number), policy.country, policy.insurance_type);
  if (format.ok) return format.rule;
  throw new AppError(
    'invalid_policy_number',
    `Policy number "${policy.policy_number}" is not a recognised ${policy.country} ${policy.insurance_type} format: ${format.reason}.`,
  );
}
