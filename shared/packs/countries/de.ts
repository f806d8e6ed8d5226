/** Germany: BaFin register (EIOPA export), GDV field rules, German plates. */
import { toDigits, toLetters } from '../lookalikes.js';
import type { CountryProfile, PlateReading } from '../types.js';
import { isDigits, isLetters, reading } from './rules.js';

const GDV_17 = 'GDV VU-Vermittler standard, Satzart 0230.050: Versicherungsschein-Nummer AN 17, letters and digits only';
const GDV_35 = 'GDV Schaden-Service Vorsatz: 35-character VSNr, letters and digits only';
// District (1-3 letters), 1-2 letters, 1-4 digits, an optional E (electric) or H (historic) suffix.
const PLATE = /(?<![A-ZÄÖÜ0-9])([A-ZÄÖÜ]{1,3})[- ]([A-Z0-9]{1,2}) ([0-9OIlSB]{1,4})([EH])?(?![A-Z0-9])/g;

export const de = {
  code: 'DE',
  name: 'Deutschland',
  aliases: ['DEU'],
  languages: ['de'],
  currencySymbols: [],
  regulator: {
    name: 'BaFin',
    checkSource: 'bafin_register',
    reference: 'BaFin register number',
    referenceShort: 'BaFin register number',
    completeRegister: 'load the EIOPA register export (npm run register:import -- --format eiopa)',
    // The company database keys its detail pages by an internal BaFin-ID, not the register number we
    // hold, so the link is its search by the insurer's name.
    registerLink: ({ scheme, name }) =>
      scheme === 'bafin_reg_nr'
        ? `https://portal.mvp.bafin.de/database/InstInfo/sucheForm.do?sucheButtonInstitut=Suche&institutName=${encodeURIComponent(name)}`
        : null,
  },
  eiopa: {
    homeCodes: ['DE'],
    scheme: 'bafin_reg_nr',
    // BaFin numbers carry a two-letter branch suffix in the export ("5096AB"); the register files the number.
    baseCode: (code: string) => /^(\d{4})[A-Z]{2}$/.exec(code)?.[1] ?? code,
  },
  registryName: 'GDV / eVB',
  formatRules: {
    motor: { pattern: /^[A-Z0-9]{5,17}$/, minDigits: 3, description: '5-17 letters or digits, at least 3 digits', basis: GDV_17 },
    travel: { pattern: /^[A-Z0-9]{5,35}$/, minDigits: 3, description: '5-35 letters or digits, at least 3 digits', basis: GDV_35 },
    health: { pattern: /^[A-Z0-9]{5,35}$/, minDigits: 3, description: '5-35 letters or digits, at least 3 digits', basis: GDV_35 },
  },
  plateFormat: 'district (1-3 letters), 1-2 letters, 1-4 digits, optional E or H: M-AB 1234',
  readPlates(text: string): PlateReading[] {
    const out: PlateReading[] = [];
    for (const m of text.matchAll(PLATE)) {
      const district = m[1]!;
      const letters = toLetters(m[2]!);
      const num = toDigits(m[3]!);
      if (!isLetters(letters) || !isDigits(num) || num.startsWith('0')) continue;
      out.push(reading(`${district}-${letters} ${num}${m[4] ?? ''}`, m[2]! + m[3]!, letters + num));
    }
    return out;
  },
} as const satisfies CountryProfile<'de'>;
