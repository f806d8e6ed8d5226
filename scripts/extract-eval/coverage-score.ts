/**
 * Scoring of coverage details for eval-coverage.ts and the coverage floor test: the
 * expected details of each corpus document, and one outcome per detail.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COVERAGE_FIELDS, type TCoverageField } from '../../shared/coverage-terms.js';
import type { TDocumentCoverage } from '../../shared/job.js';
import { fold } from '../../connector/src/extract/fields/text.js';
import type { Scored } from './calibration.js';
import type { CorpusDoc } from './corpora.js';

/** Expected coverage: the normalised value of each detail the document states (the plan name as printed). */
export type CoverageTruth = Partial<Record<TCoverageField, string>>;
export type CoverageOutcome = 'right' | 'wrong' | 'missed' | 'invented' | 'absent';

const squash = (s: string): string => fold(s).replace(/[^a-z0-9]/g, '');

/** Per detail: right, wrong (another value), missed (stated, not found), invented (found, not stated), absent (neither). */
export function scoreCoverage(
  truth: CoverageTruth,
  found: TDocumentCoverage | undefined,
): Record<TCoverageField, { outcome: CoverageOutcome; confidence?: number }> {
  return Object.fromEntries(
    COVERAGE_FIELDS.map((f) => {
      const want = truth[f];
      const got = found?.[f];
      const outcome: CoverageOutcome =
        want === undefined ? (got ? 'invented' : 'absent') : !got ? 'missed' : squash(got.value) === squash(want) ? 'right' : 'wrong';
      return [f, got ? { outcome, confidence: got.confidence } : { outcome }];
    }),
  ) as Record<TCoverageField, { outcome: CoverageOutcome; confidence?: number }>;
}

/**
 * The outside documents' ground truth has no coverage: this file records what they print, read by hand
 * before measuring. A document not listed there is not scored.
 */
const OUTSIDE_LABELS = fileURLToPath(new URL('../../test/fixtures/outside-coverage.json', import.meta.url));
let outside: Record<string, CoverageTruth> | null = null;

/** The coverage a document states, or null when nobody has recorded it (the document is then left out). */
export function coverageTruth(doc: CorpusDoc): CoverageTruth | null {
  if (doc.corpus === 'own') {
    const j = JSON.parse(readFileSync(doc.pdfPath.replace(/\.pdf$/, '.json'), 'utf8')) as { coverage?: CoverageTruth };
    return j.coverage ?? {};
  }
  outside ??= (JSON.parse(readFileSync(OUTSIDE_LABELS, 'utf8')) as { documents: Record<string, CoverageTruth> }).documents;
  return outside[doc.id] ?? null;
}

/** One detail of one document, scored; `ok` and `confidence` make it a row of the calibration table. */
export interface CoverageRow extends Scored {
  doc: CorpusDoc;
  field: TCoverageField;
  outcome: CoverageOutcome;
  want?: string;
  got?: string;
}

/** A row per coverage detail of the document; a detail neither stated nor found is `absent` and right. */
export function coverageRows(doc: CorpusDoc, truth: CoverageTruth, found: TDocumentCoverage | undefined): CoverageRow[] {
  const score = scoreCoverage(truth, found);
  return COVERAGE_FIELDS.map((field) => {
    const s = score[field];
    const want = truth[field];
    const got = found?.[field]?.value;
    return {
      doc,
      field,
      outcome: s.outcome,
      ok: s.outcome === 'right' || s.outcome === 'absent',
      ...(s.confidence !== undefined ? { confidence: s.confidence } : {}),
      ...(want ? { want } : {}),
      ...(got ? { got } : {}),
    };
  });
}
