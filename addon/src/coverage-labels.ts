/**
 * Coverage values as people write them, in the user's language ("Third party, fire and theft", "Teilkasko",
 * "Tiers étendu (vol, incendie)" for third_party_fire_theft), from the language packs: what the PDF review
 * shows and the add-on writes into the sheet.
 */
import { LANGUAGE_PACKS, type TLanguage } from '../../shared/packs/index.js';
import type { ReviewItem } from '../../shared/review.js';

/** The label of a normalised coverage value, or the value itself when it has none (a health plan, a value a person typed). */
export function coverageLabel(key: string, value: string, lang: TLanguage): string {
  const labels = (LANGUAGE_PACKS[lang].addon.coverageValues as Record<string, Record<string, string>>)[key.replace(/^coverage\./, '')];
  return labels && Object.prototype.hasOwnProperty.call(labels, value) ? labels[value]! : value;
}

/**
 * Review items in the user's language: each named from the language pack, each coverage value as its
 * label; the printed wording is dropped where it now reads the same.
 */
export function labelledItems(items: ReviewItem[], lang: TLanguage): ReviewItem[] {
  const names = LANGUAGE_PACKS[lang].addon.reviewLabels;
  return items.map((named) => {
    const i = { ...named, label: names[named.key] ?? named.label };
    if (!i.key.startsWith('coverage.')) return i;
    const value = coverageLabel(i.key, i.value, lang);
    const { printed, ...rest } = i;
    return { ...rest, value, ...(printed && printed.toLowerCase() !== value.toLowerCase() ? { printed } : {}) };
  });
}
