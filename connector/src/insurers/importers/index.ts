/** One entry point for every register file format: format name -> importer. */
import type { InsurerRecord } from '../../store/types.js';
import { parseDeVuCsv } from './de-vu.js';
import { parseDemoInsurers } from './demo.js';
import { parseEiopaRegisterCsv } from './eiopa.js';
import { parseFcaFirmRecords } from './fca.js';
import { parseFrAcamCsv } from './fr-acam.js';
import { parseUkFrnCsv } from './uk-frn.js';

export { parseDeVuCsv, parseDemoInsurers, parseEiopaRegisterCsv, parseFcaFirmRecords, parseFrAcamCsv, parseUkFrnCsv };
export { EIOPA_REQUIRED_COLUMNS } from './eiopa.js';

/** File formats the register can be loaded from. */
export const REGISTER_FORMATS = ['eiopa', 'fca', 'uk-frn', 'de-vu', 'fr-acam', 'demo'] as const;
export type RegisterFormat = (typeof REGISTER_FORMATS)[number];

/** Inputs some formats take besides the file itself. */
export interface RegisterFileExtra {
  /** fr-acam only: text of fr_insurers_claimsia_codes.csv, whose legal names become aliases. */
  claimsIaNamesText?: string;
}

/** True when `value` names a supported register format. */
export function isRegisterFormat(value: string): value is RegisterFormat {
  return (REGISTER_FORMATS as readonly string[]).includes(value);
}

/** Parses one register file in the given format; `now` (ISO) becomes every row's updated_at. Throws on a bad file. */
export function parseRegisterFile(format: RegisterFormat, text: string, now: string, extra: RegisterFileExtra = {}): InsurerRecord[] {
  switch (format) {
    case 'eiopa':
      return parseEiopaRegisterCsv(text, now);
    case 'fca':
      return parseFcaFirmRecords(text, now);
    case 'uk-frn':
      return parseUkFrnCsv(text, now);
    case 'de-vu':
      return parseDeVuCsv(text, now);
    case 'fr-acam':
      return parseFrAcamCsv(text, now, extra.claimsIaNamesText);
    case 'demo':
      return parseDemoInsurers(text, now);
  }
}
