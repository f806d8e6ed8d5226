/**
 * Measures the coverage details of extraction (issue 20 item 5) on the project's corpus and on
 * ../shared/data/documents: per detail, text and scan, readings right, missed, wrong and invented, and
 * how many of those at confidence >= 0.9 are right. `scoreCoverage` is the comparison, for eval-extract.ts.
 *
 *   npm run eval:coverage -- [--verbose] [--own-only|--outside-only] [--outside=DIR]
 *
 * The outside documents' ground truth has no coverage; test/fixtures/outside-coverage.json holds what
 * their text layers print, read by hand (documents not listed there are not scored).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COVERAGE_FIELDS, type TCoverageField } from '../shared/coverage-terms.js';
import type { TDocumentCoverage } from '../shared/job.js';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { loadShippedRegisterRows, matcherFromRows } from '../connector/src/extract/matcher.js';
import { createOcr } from '../connector/src/extract/ocr.js';
import { extractFields } from '../connector/src/extract/pipeline.js';
import { fold } from '../connector/src/extract/text.js';

/** Expected coverage: the normalised value of each detail the document states (the plan name as printed). */
export type CoverageTruth = Partial<Record<TCoverageField, string>>;
export type CoverageOutcome = 'right' | 'wrong' | 'missed' | 'invented' | 'absent';

const squash = (s: string): string => fold(s).replace(/[^a-z0-9]/g, '');

/** Per detail: right, wrong (another value), missed (stated, not found), invented (found, not stated), absent (neither). */
export function scoreCoverage(truth: CoverageTruth, found: TDocumentCoverage | undefined): Record<TCoverageField, { outcome: CoverageOutcome; confidence?: number }> {
  return Object.fromEntries(
    COVERAGE_FIELDS.map((f) => {
      const want = truth[f];
      const got = found?.[f];
      const outcome: CoverageOutcome = want === undefined ? (got ? 'invented' : 'absent') : !got ? 'missed' : squash(got.value) === squash(want) ? 'right' : 'wrong';
      return [f, got ? { outcome, confidence: got.confidence } : { outcome }];
    }),
  ) as Record<TCoverageField, { outcome: CoverageOutcome; confidence?: number }>;
}

interface Doc {
  id: string;
  pdf: string;
  scanned: boolean;
  truth: CoverageTruth;
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OWN = path.join(ROOT, 'test/fixtures/policies');
/** ../shared/data/documents beside the repository (one level further up from a git worktree), or --outside=DIR. */
const OUTSIDE =
  process.argv.find((a) => a.startsWith('--outside='))?.slice(10) ??
  [path.resolve(ROOT, '../shared/data/documents'), path.resolve(ROOT, '../../shared/data/documents')].find((d) => existsSync(path.join(d, 'manifest.json'))) ??
  path.resolve(ROOT, '../shared/data/documents');
const OUTSIDE_LABELS = path.join(ROOT, 'test/fixtures/outside-coverage.json');

function ownDocs(): Doc[] {
  return readdirSync(OWN)
    .filter((f) => /^\d{3}\.json$/.test(f))
    .sort()
    .map((f) => {
      const t = JSON.parse(readFileSync(path.join(OWN, f), 'utf8')) as { kind: string; coverage?: CoverageTruth };
      return { id: f.slice(0, 3), pdf: path.join(OWN, f.replace('.json', '.pdf')), scanned: t.kind === 'scanned', truth: t.coverage ?? {} };
    });
}

function outsideDocs(): Doc[] {
  if (!existsSync(path.join(OUTSIDE, 'manifest.json'))) return [];
  const manifest = JSON.parse(readFileSync(path.join(OUTSIDE, 'manifest.json'), 'utf8')) as Array<{ name: string; scanned: boolean }>;
  const labels = JSON.parse(readFileSync(OUTSIDE_LABELS, 'utf8')) as { documents: Record<string, CoverageTruth> };
  return manifest.filter((m) => labels.documents[m.name]).map((m) => ({ id: m.name, pdf: path.join(OUTSIDE, `${m.name}.pdf`), scanned: m.scanned, truth: labels.documents[m.name]! }));
}

async function main(): Promise<void> {
  const verbose = process.argv.includes('--verbose');
  const corpora: Array<[string, Doc[]]> = [];
  if (!process.argv.includes('--outside-only')) corpora.push(['own corpus (test/fixtures/policies)', ownDocs()]);
  if (!process.argv.includes('--own-only')) corpora.push(['../shared/data/documents', outsideDocs()]);
  const matcher = matcherFromRows(await loadShippedRegisterRows(path.join(ROOT, 'connector/data/register/')));
  const ocr = await createOcr({ workers: 1 });
  try {
    for (const [name, docs] of corpora) {
      const tally = new Map<string, Record<CoverageOutcome, number> & { sure: number; sureRight: number }>();
      for (const doc of docs) {
        const r = await extractFields(readFileSync(doc.pdf), { ocr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
        const score = scoreCoverage(doc.truth, r.fields.coverage);
        for (const f of COVERAGE_FIELDS) {
          const key = `${f} ${doc.scanned ? 'scan' : 'text'}`;
          const t = tally.get(key) ?? { right: 0, wrong: 0, missed: 0, invented: 0, absent: 0, sure: 0, sureRight: 0 };
          const s = score[f];
          t[s.outcome]++;
          if ((s.confidence ?? 0) >= 0.9) (t.sure++, s.outcome === 'right' && t.sureRight++);
          tally.set(key, t);
          if (verbose && s.outcome !== 'right' && s.outcome !== 'absent') console.log(`${doc.id} ${f}: ${s.outcome}, want ${doc.truth[f] ?? '(none)'}, got ${JSON.stringify(r.fields.coverage?.[f] ?? null)}`);
        }
      }
      console.log(`\n${name}: ${docs.length} documents`);
      console.log('detail              stated  right  wrong  missed  invented   at conf>=0.9: right/all');
      for (const [key, t] of [...tally].sort()) {
        const stated = t.right + t.wrong + t.missed;
        if (stated + t.invented === 0) continue;
        console.log(`${key.padEnd(20)}${String(stated).padStart(6)}${String(t.right).padStart(7)}${String(t.wrong).padStart(7)}${String(t.missed).padStart(8)}${String(t.invented).padStart(10)}   ${t.sureRight}/${t.sure}`);
      }
    }
  } finally {
    await ocr.terminate();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
