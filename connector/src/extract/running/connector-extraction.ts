/** Adapts the extraction pool to the job queue's Extractor: unreadable documents become outcomes, not throws. */
import type { Extractor } from '../../jobs/extraction-port.js';
import { COUNTRIES } from '../../../../shared/policy.js';
import type { InsurerRecord, Store } from '../../store/types.js';
import { isExtractError } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import type { ExtractionPool } from './thread-pool.js';
import { createProcessExtractionPool } from './process-pool.js';

export function poolExtractor(pool: ExtractionPool): Extractor {
  return {
    busy: () => pool.queueFull(),
    async extract(pdf) {
      try {
        const r = await pool.run(pdf);
        return { ok: true, fields: r.fields, pages: r.pages, ocrPages: r.ocrPages };
      } catch (err) {
        // A full queue, or an extraction process that crashed through no fault of this document, propagates and the job is retried.
        if (isExtractError(err)) return { ok: false, code: err.code, message: err.publicMessage };
        throw err;
      }
    },
  };
}

/** The pool the connector runs (in its extraction process), matching insurer names against the register as the store holds it now. */
export async function createConnectorExtraction(
  store: Pick<Store, 'insurers'>,
  opts: { threads: number; limits: ExtractLimits; maxQueue?: number; hostFile?: string },
): Promise<{ pool: ExtractionPool; extractor: Extractor }> {
  const rows: InsurerRecord[] = [];
  for (const c of COUNTRIES) rows.push(...(await store.insurers.listByCountry(c)));
  const pool = createProcessExtractionPool({
    rows,
    threads: opts.threads,
    limits: opts.limits,
    ...(opts.maxQueue ? { maxQueue: opts.maxQueue } : {}),
    hostFile: opts.hostFile,
  });
  return { pool, extractor: poolExtractor(pool) };
}
