/** Builds the extractor's insurer matcher from register rows, and loads the shipped rows without a store. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseRegisterFile, type RegisterFileExtra } from '../insurers/importers/index.js';
import { InsurerIndex } from '../insurers/matcher.js';
import { SHIPPED_REGISTER_FILES } from '../insurers/seed.js';
import type { InsurerRecord } from '../store/types.js';
import type { InsurerMatcher } from './fields.js';

/** A matcher over an InsurerIndex: the register's canonical name and the match score. */
export function matcherFromIndex(index: InsurerIndex): InsurerMatcher {
  return (country, text) => {
    const m = index.match(country, text);
    return m ? { name: m.record.name, score: m.score } : null;
  };
}

/** A matcher over plain register rows (what a worker thread receives through workerData). */
export function matcherFromRows(rows: InsurerRecord[]): InsurerMatcher {
  return matcherFromIndex(new InsurerIndex(rows));
}

/**
 * Parses the shipped register files in `dataDir` (connector/data/register) into rows, as seedRegister
 * does but without a store: for workers and scripts that only need the matcher.
 */
export async function loadShippedRegisterRows(dataDir: string, now = new Date().toISOString()): Promise<InsurerRecord[]> {
  const rows: InsurerRecord[] = [];
  for (const shipped of SHIPPED_REGISTER_FILES) {
    const text = await readFile(path.join(dataDir, shipped.file), 'utf8');
    const extra: RegisterFileExtra = {};
    if (shipped.extra?.claimsIaNamesText) extra.claimsIaNamesText = await readFile(path.join(dataDir, shipped.extra.claimsIaNamesText), 'utf8');
    rows.push(...parseRegisterFile(shipped.format, text, now, extra));
  }
  return rows;
}
