/** France: ACPR register (ACAM codes), Fichier des véhicules assurés, SIV plates. */
import type { CountryProfile, PlateReading } from '../types.js';
import { PLAUSIBLE, readLettersDigitsLetters } from './rules.js';

const L = '[A-Z0-9]';
const PLATE = new RegExp(`(?<![A-Z0-9])(${L}{2})[- ](${L}{3})[- ](${L}{2})(?![A-Z0-9])`, 'g');

export const fr = {
  code: 'FR',
  name: 'France',
  aliases: ['FRA'],
  languages: ['fr'],
  currencySymbols: [],
  regulator: {
    name: 'ACPR',
    checkSource: 'acpr_register',
    reference: 'ACAM/ACPR code',
    referenceShort: 'ACAM code',
    completeRegister: 'load the EIOPA register export (npm run register:import -- --format eiopa)',
    // REGAFI lists banks and investment firms and ORIAS intermediaries by their ORIAS number: neither
    // has a page for an insurer's ACAM code, so no link rather than a wrong one.
    registerLink: () => null,
  },
  eiopa: { homeCodes: ['FR'], scheme: 'eiopa_id' },
  registryName: 'Fichier des véhicules assurés (FVA)',
  formatRules: {
    motor: {
      pattern: /^[A-Z0-9]{6,20}$/,
      minDigits: 5,
      description: '6-20 letters or digits, at least 5 digits (numero de police)',
      basis: PLAUSIBLE,
    },
    travel: { pattern: /^[A-Z0-9]{6,20}$/, minDigits: 4, description: '6-20 letters or digits, at least 4 digits', basis: PLAUSIBLE },
    health: {
      pattern: /^[A-Z0-9]{6,20}$/,
      minDigits: 5,
      description: "6-20 letters or digits, at least 5 digits (numero d'adherent)",
      basis: PLAUSIBLE,
    },
  },
  plateFormat: 'SIV, since 2009: AB-123-CD',
  readPlates: (text: string): PlateReading[] => readLettersDigitsLetters(text, PLATE, (a, b, c) => `${a}-${b}-${c}`),
} as const satisfies CountryProfile<'fr'>;
