/** Vehicle registration plates: each country profile's reader (shared/packs/countries/), tagged with the country. */
import { COUNTRIES, COUNTRY_PROFILES, type TCountry } from '../../../../shared/packs/index.js';

/** A plate found in a string, in its country's canonical form (UK "AB12 CDE", DE "M-AB 1234", FR "AB-123-CD"). */
export interface FoundPlate {
  plate: string;
  country: TCountry;
  /** 1 when read as printed, lower when OCR look-alikes had to be swapped. */
  certainty: number;
}

/** Plates in `s`, for the given countries (every supported one when not known). */
export function findPlates(s: string, countries: readonly TCountry[] = COUNTRIES): FoundPlate[] {
  return countries.flatMap((country) => COUNTRY_PROFILES[country].readPlates(s).map((r) => ({ ...r, country })));
}

/** Plates compare without spaces, dashes and case. */
export function normalisePlate(p: string): string {
  return p.toUpperCase().replace(/[^A-Z0-9ÄÖÜ]/g, '');
}
