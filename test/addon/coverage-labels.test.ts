/** Coverage values in the PDF review and the cells the add-on writes: in words, in the user's language, never as the normalised code. */
import { describe, expect, it } from 'vitest';
import { labelledItems, coverageLabel } from '../../addon/src/coverage-labels.js';
import { MOTOR_COVER_LEVELS, TRAVEL_REGIONS, TRIP_TYPES } from '../../shared/coverage-terms.js';
import { LANGUAGES } from '../../shared/packs/index.js';
import { reviewItems } from '../../shared/review.js';

const fields = {
  policy_number: 'AB123',
  confidence: { policy_number: 0.97 },
  coverage: {
    motor_cover: { value: 'third_party_fire_theft' as const, printed: 'Teilkasko', confidence: 0.85 },
    trip_type: { value: 'annual_multi_trip' as const, confidence: 0.95 },
    region: { value: 'worldwide_excluding_usa' as const, confidence: 0.95 },
    health_plan: { value: 'Gold', confidence: 0.95 },
  },
};

describe('coverage labels', () => {
  it('every normalised value has words in every language, none of them the code itself', () => {
    const lists = { motor_cover: MOTOR_COVER_LEVELS, trip_type: TRIP_TYPES, region: TRAVEL_REGIONS };
    for (const lang of LANGUAGES) {
      for (const [detail, values] of Object.entries(lists)) {
        for (const v of values) {
          const label = coverageLabel(`coverage.${detail}`, v, lang);
          expect(label, `${lang} ${detail} ${v}`).not.toBe(v);
          expect(label).not.toMatch(/_/);
        }
      }
    }
  });

  it('the review shows each value in words in EN, DE and FR; the printed wording only where it says something else; a plan and a typed value as they are', () => {
    const shown = (lang: 'en' | 'de' | 'fr') => labelledItems(reviewItems(fields), lang).map((i) => [i.value, i.printed ?? null]);
    expect(shown('en')).toEqual([
      ['AB123', null],
      ['Third party, fire and theft', 'Teilkasko'],
      ['Annual multi-trip', null],
      ['Worldwide excluding USA and Canada', null],
      ['Gold', null],
    ]);
    expect(shown('de')).toEqual([
      ['AB123', null],
      ['Teilkasko', null],
      ['Jahresvertrag (mehrere Reisen)', null],
      ['Weltweit ohne USA und Kanada', null],
      ['Gold', null],
    ]);
    expect(shown('fr')).toEqual([
      ['AB123', null],
      ['Tiers étendu (vol, incendie)', 'Teilkasko'],
      ['Multi-voyages annuel', null],
      ['Monde entier hors USA et Canada', null],
      ['Gold', null],
    ]);
    // Each value is named in the user's language too (before, every name was English).
    const names = (lang: 'en' | 'de' | 'fr') => labelledItems(reviewItems(fields), lang).map((i) => i.label);
    expect(names('en')).toEqual(['Policy number', 'Cover level', 'Trip', 'Area', 'Plan']);
    expect(names('de')).toEqual(['Versicherungsscheinnummer', 'Deckungsumfang', 'Reise', 'Geltungsbereich', 'Tarif']);
    expect(names('fr')).toEqual(['Numéro de contrat', 'Formule de garantie', 'Voyage', 'Zone de couverture', 'Formule']);
    expect(coverageLabel('coverage.motor_cover', 'Vollkasko plus', 'de')).toBe('Vollkasko plus');
    expect(coverageLabel('coverage.motor_cover', 'toString', 'en')).toBe('toString');
  });
});
