/** Builds the extractor's insurer matcher from register rows (the shipped rows come from insurers/seed.ts). */
import { InsurerIndex } from '../../insurers/matcher.js';
import type { InsurerRecord } from '../../store/types.js';
import type { InsurerMatcher } from './document-fields.js';

/** A matcher over an InsurerIndex: the register's canonical name and the match score. */
export function matcherFromIndex(index: InsurerIndex): InsurerMatcher {
  return (country, text) => {
    const m = index.match(country, text);
    return m ? { name: m.record.name, score: m.score } : null;
  };
}

/**
 * A matcher over plain register rows (what a worker thread receives through workerData). A document's
 * insurer is the firm that carries the risk: intermediaries (a broker's trading name printed in the
 * letterhead) are left out, so the extractor never reads a broker as the insurer.
 */
export function matcherFromRows(rows: InsurerRecord[]): InsurerMatcher {
  return matcherFromIndex(new InsurerIndex(rows.filter((r) => r.kind === 'insurer')));
}

export { loadShippedRegisterRows } from '../../insurers/seed.js';
