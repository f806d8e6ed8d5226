/**
 * The language registry. Adding a language is a pack file and a line here; LANGUAGES and TLanguage
 * follow, and every Record<TLanguage, …> elsewhere then fails to compile until it has the new one.
 * Order matters where vocabularies are merged (labels are tried in this order).
 */
import type { TFlag } from '../../flags.js';
import type { LanguagePack } from '../types.js';
import { de } from './de.js';
import { en } from './en.js';
import { fr } from './fr.js';

export const LANGUAGE_PACKS = { en, de, fr } as const satisfies Record<string, LanguagePack<TFlag>>;

export type TLanguage = keyof typeof LANGUAGE_PACKS;
export const LANGUAGES = Object.keys(LANGUAGE_PACKS) as [TLanguage, ...TLanguage[]];

/** Every pack, in registry order, typed by the common interface. */
export const ALL_LANGUAGE_PACKS: readonly LanguagePack[] = LANGUAGES.map((l) => LANGUAGE_PACKS[l]);

/** One vocabulary of every pack as a regular-expression alternation ("a|b|c"), in registry order, each entry once. */
export function packAlternation(pick: (pack: LanguagePack) => readonly string[]): string {
  return [...new Set(ALL_LANGUAGE_PACKS.flatMap(pick))].join('|');
}
