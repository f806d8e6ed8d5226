/** One entry point for the official sanctions list files: format name -> importer, and loading one into the store. */
import type { SanctionStore } from '../../store/types.js';
import { parseEuFsf } from './eu.js';
import type { ParsedSanctionsList } from './listing.js';
import { parseOfsiConList } from './ofsi.js';
import { parseUkSanctionsListXml } from './uksl.js';

export { parseEuFsf, parseEuFsfCsv, parseEuFsfXml } from './eu.js';
export { parseOfsiConList, parseOfsiConListCsv, parseOfsiConListXml } from './ofsi.js';
export { parseUkSanctionsListXml } from './uksl.js';
export { MAX_SANCTIONS_TEXT, type ParsedSanctionsList } from './listing.js';

/**
 * The list files an operator can load: `ofsi` the OFSI consolidated list (CSV or XML), `uksl` the UK
 * Sanctions List (XML), `eu` the EU financial sanctions list (XML or CSV).
 */
export const SANCTIONS_FORMATS = ['ofsi', 'uksl', 'eu'] as const;
export type SanctionsFormat = (typeof SANCTIONS_FORMATS)[number];

/** True when `value` names a supported sanctions list format. */
export function isSanctionsFormat(value: string): value is SanctionsFormat {
  return (SANCTIONS_FORMATS as readonly string[]).includes(value);
}

/**
 * Parses one list file in the given format. Throws on a file that is not that format and on one that
 * lists no entity, since loading it would empty the list it replaces.
 */
export function parseSanctionsFile(format: SanctionsFormat, text: string): ParsedSanctionsList {
  const parsed = format === 'ofsi' ? parseOfsiConList(text) : format === 'uksl' ? parseUkSanctionsListXml(text) : parseEuFsf(text);
  if (parsed.records.length === 0) {
    throw new Error(`${parsed.kind}: no entity with a name in the file, so it would empty the ${parsed.list} list; nothing loaded`);
  }
  return parsed;
}

/** Replaces the parsed list's rows in the store; returns how many were stored. */
export async function storeSanctionsList(store: SanctionStore, parsed: ParsedSanctionsList): Promise<number> {
  return store.replaceList(parsed.list, parsed.records);
}
