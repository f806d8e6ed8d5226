/** United Kingdom: FCA register, Motor Insurance Database, current-format plates. */
import type { CountryProfile, PlateReading } from '../types.js';
import { PLAUSIBLE, readLettersDigitsLetters } from './rules.js';

const L = '[A-Z0-9]';
// Look-alikes are accepted in every position; the position then decides letter or digit.
const PLATE = new RegExp(`(?<![A-Z0-9])(${L}{2})(${L}{2}) ?(${L}{3})(?![A-Z0-9])`, 'g');

export const uk = {
  code: 'UK',
  name: 'United Kingdom',
  aliases: ['GB', 'GBR'],
  languages: ['en'],
  currencySymbols: ['£'],
  regulator: {
    name: 'FCA',
    checkSource: 'fca_register',
    reference: 'FCA Firm Reference Number (FRN)',
    referenceShort: 'FRN',
    completeRegister:
      'configure the FCA register API (COVERCHECK_FCA_API_KEY and COVERCHECK_FCA_API_EMAIL) or import FCA firm records (npm run register:import -- --format fca)',
    // The register's firm pages are keyed by an internal id; its search by FRN lands on the one firm.
    registerLink: ({ reference, scheme }) =>
      scheme === 'fca_frn' && /^\d{6,7}$/.test(reference) ? `https://register.fca.org.uk/s/search?q=${reference}&type=Companies` : null,
  },
  eiopa: { homeCodes: ['GB', 'UK'], scheme: 'eiopa_id' },
  registryName: 'Motor Insurance Database (MID)',
  formatRules: {
    motor: { pattern: /^[A-Z0-9]{8,20}$/, minDigits: 5, description: '8-20 letters or digits, at least 5 digits', basis: PLAUSIBLE },
    travel: { pattern: /^[A-Z0-9]{6,20}$/, minDigits: 4, description: '6-20 letters or digits, at least 4 digits', basis: PLAUSIBLE },
    health: {
      pattern: /^[A-Z0-9]{6,16}$/,
      minDigits: 5,
      description: '6-16 letters or digits, at least 5 digits (membership numbers)',
      basis: PLAUSIBLE,
    },
  },
  plateFormat: 'two letters, the two-digit age identifier, three letters (2001 on): AB12 CDE',
  readPlates: (text: string): PlateReading[] => readLettersDigitsLetters(text, PLATE, (a, b, c) => `${a}${b} ${c}`),
} as const satisfies CountryProfile<'en'>;
