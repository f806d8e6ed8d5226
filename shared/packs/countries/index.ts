/**
 * The country registry. Adding a country is a profile file and a line here (and a language pack if
 * its language is new); COUNTRIES and TCountry follow, and every Record<TCountry, …> elsewhere then
 * fails to compile until it has the new country.
 */
import type { TLanguage } from '../languages/index.js';
import type { CountryProfile } from '../types.js';
import { de } from './de.js';
import { fr } from './fr.js';
import { uk } from './uk.js';

export const COUNTRY_PROFILES = { UK: uk, DE: de, FR: fr } as const satisfies Record<string, CountryProfile<TLanguage>>;
export type TCountry = keyof typeof COUNTRY_PROFILES;
export const COUNTRIES = Object.keys(COUNTRY_PROFILES) as [TCountry, ...TCountry[]];

/** The profile of a country, typed by the common interface. */
export function countryProfile(country: TCountry): CountryProfile<TLanguage> {
  return COUNTRY_PROFILES[country];
}

/** The register check names in checks[].source, one per country (spec 2.2 keeps verification_sources to fca_register). */
export const REGISTER_CHECK_SOURCES = [...new Set(COUNTRIES.map((c) => COUNTRY_PROFILES[c].regulator.checkSource))];
