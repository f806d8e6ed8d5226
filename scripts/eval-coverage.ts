/**
 * Measures the coverage details of extraction on the project's corpus and on
 * ../shared/data/documents: per detail, text and scan, readings right, missed, wrong and invented, and
 * the calibration table (the bands of eval-extract.ts) over every reading returned, per corpus.
 *
 *   npm run eval:coverage -- [--corpus=own|shared] [--cache] [--verbose]
 *
 * --cache reads each document's lines from .cache/extract-lines/ (shared with eval:extract) so rule
 * changes are measured without OCR. The outside documents' ground truth has no coverage;
 * test/fixtures/outside-coverage.json holds what they print, read by hand (documents not listed there are
 * not scored).
 */
import { loadShippedRegisterRows, matcherFromRows } from '../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../connector/src/extract/reading/ocr.js';
import { OCR_LANGUAGES } from '../connector/src/extract/reading/ocr-languages.js';
import { fieldsFromLines } from '../connector/src/extract/pipeline.js';
import { COVERAGE_FIELDS } from '../shared/coverage-terms.js';
import { calibrationLines } from './extract-eval/calibration.js';
import { documentLines, loadCorpus, type CorpusName } from './extract-eval/corpora.js';
import { coverageRows, coverageTruth, type CoverageRow } from './extract-eval/coverage-score.js';

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))?.replace(/^--[^=]+=?/, '');
const verbose = process.argv.includes('--verbose');
const useCache = process.argv.includes('--cache');
const corpora: CorpusName[] = arg('corpus') ? [arg('corpus') as CorpusName] : ['own', 'shared'];

const matcher = matcherFromRows(await loadShippedRegisterRows(new URL('../connector/data/register/', import.meta.url).pathname));
let ocr: Ocr | null = null;
const getOcr = async (): Promise<Ocr> => (ocr ??= await createOcr({ workers: 1, languages: OCR_LANGUAGES }));

try {
  for (const name of corpora) {
    const rows: CoverageRow[] = [];
    const docs = loadCorpus(name);
    let scored = 0;
    for (const doc of docs) {
      const truth = coverageTruth(doc);
      if (!truth) continue;
      scored++;
      const { fields } = fieldsFromLines(await documentLines(doc, getOcr, useCache), matcher);
      const mine = coverageRows(doc, truth, fields.coverage);
      rows.push(...mine);
      if (verbose)
        for (const r of mine)
          if (!r.ok)
            console.log(
              `${doc.id} ${doc.scanned ? 'scan' : 'text'} ${r.field}: ${r.outcome}, want ${r.want ?? '(none)'}, got ${JSON.stringify(fields.coverage?.[r.field] ?? null)}`,
            );
    }
    if (!docs.length) {
      console.log(`\n(corpus ${name}: no documents found${name === 'shared' ? '; set COVERCHECK_SHARED_DOCS' : ''})`);
      continue;
    }
    console.log(`\n=== corpus ${name}: ${scored} documents scored ===`);
    console.log('detail              stated  right  wrong  missed  invented   at conf>=0.9: right/all');
    for (const f of COVERAGE_FIELDS) {
      for (const scanned of [false, true]) {
        const xs = rows.filter((r) => r.field === f && r.doc.scanned === scanned);
        const n = (o: string): number => xs.filter((r) => r.outcome === o).length;
        const stated = n('right') + n('wrong') + n('missed');
        if (stated + n('invented') === 0) continue;
        const sure = xs.filter((r) => (r.confidence ?? 0) >= 0.9);
        console.log(
          `${`${f} ${scanned ? 'scan' : 'text'}`.padEnd(20)}${String(stated).padStart(6)}${String(n('right')).padStart(7)}${String(n('wrong')).padStart(7)}${String(n('missed')).padStart(8)}${String(n('invented')).padStart(10)}   ${sure.filter((r) => r.ok).length}/${sure.length}`,
        );
      }
    }
    // Only readings returned have a confidence, so the table counts those: right, or wrong / invented.
    console.log(
      [
        '',
        'coverage readings by confidence:',
        ...calibrationLines(
          rows,
          rows.filter((r) => !r.doc.scanned),
          rows.filter((r) => r.doc.scanned),
        ),
      ].join('\n'),
    );
  }
} finally {
  if (ocr) await (ocr as Ocr).terminate();
}
