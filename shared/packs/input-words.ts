/**
 * Countries and insurance types as staff type them in a request or a sheet cell: the codes, the country
 * profiles' aliases, and every language pack's countryNames and insuranceTypeWords.
 */
import { INSURANCE_TYPES, type TInsuranceType } from '../insurance-types.js';
import { COUNTRIES, COUNTRY_PROFILES, type TCountry } from './countries/index.js';
import { LANGUAGE_PACKS, LANGUAGES } from './languages/index.js';
import type { LanguagePack } from './types.js';

/**
 * Case, accents, spaces, hyphens and punctuation folded away ("Kfz-Haftpflicht" and "kfz haftpflicht"
 * are "kfzhaftpflicht", "SANTÉ" is "sante"), so a word is compared whole, never as a prefix: "car" is not "card".
 * German typed without umlauts or ß ("Koenigreich", "Grossbritannien") folds as it does with them.
 */
export function foldInput(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '')
    .replace(/([aou])e/g, '$1');
}

/**
 * A lookup of typed words. A word that names two values is refused (null) rather than guessed; the
 * packs' test keeps every such clash out, so this only guards a pack edited without running it.
 */
export function inputIndex<T extends string>(entries: Iterable<readonly [string, T]>): (raw: string) => T | null {
  const index = new Map<string, T | null>();
  let longest = 0;
  for (const [word, value] of entries) {
    const key = foldInput(word);
    const known = index.get(key);
    index.set(key, known === undefined || known === value ? value : null);
    longest = Math.max(longest, word.length);
  }
  // Room for spacing, punctuation and decomposed accents around the longest word; a longer value names
  // nothing, and folding megabytes of it would hold the event loop for hundreds of milliseconds.
  const bound = 2 * longest + 32;
  return (raw) => (raw.length > bound ? null : (index.get(foldInput(raw)) ?? null));
}

// Typed by the country list here, where both registries are known: a pack that lacks a country does not compile.
const PACKS: ReadonlyArray<Pick<LanguagePack<string, TCountry>, 'countryNames' | 'insuranceTypeWords'>> = LANGUAGES.map(
  (l) => LANGUAGE_PACKS[l],
);

const countryIndex = inputIndex(
  COUNTRIES.flatMap((c) => [c, ...COUNTRY_PROFILES[c].aliases, ...PACKS.flatMap((p) => p.countryNames[c])].map((w) => [w, c] as const)),
);
const typeIndex = inputIndex(
  INSURANCE_TYPES.flatMap((t) => [t, ...PACKS.flatMap((p) => p.insuranceTypeWords[t])].map((w) => [w, t] as const)),
);

/** A country as a client or a sheet cell gives it (UK, gb, Deutschland, Royaume-Uni), or null when unsupported. */
export function countryFromInput(raw: string): TCountry | null {
  return countryIndex(raw);
}

/** An insurance type as a client or a sheet cell gives it (motor, Kfz, assurance voyage, santé), or null when unsupported. */
export function insuranceTypeFromInput(raw: string): TInsuranceType | null {
  return typeIndex(raw);
}

/** One name per country, in the country's own language ("Deutschland"), for messages and documentation. */
export const COUNTRY_NAME_EXAMPLES: readonly string[] = COUNTRIES.map(
  (c) => LANGUAGE_PACKS[COUNTRY_PROFILES[c].languages[0]].countryNames[c][0] ?? c,
);

/** One word per insurance type, each from the next language pack, so an example list shows the languages too ("car, Reise, santé"). */
export const INSURANCE_TYPE_WORD_EXAMPLES: readonly string[] = INSURANCE_TYPES.map(
  (t, i) => PACKS[i % PACKS.length]!.insuranceTypeWords[t][0] ?? t,
);
