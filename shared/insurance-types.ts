/**
 * The insurance types the service verifies (spec 1, 2.1). The one list: every per-type table
 * elsewhere is a Record<TInsuranceType, …> (country format rules, language type words), so adding
 * a type here makes the compiler name each table that lacks it.
 */
export const INSURANCE_TYPES = ['motor', 'travel', 'health'] as const;
export type TInsuranceType = (typeof INSURANCE_TYPES)[number];
