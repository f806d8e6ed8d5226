/** Prints a document's best candidates for one field with their scores and features: npx tsx scripts/extract-eval/explain.ts shared P001 insurer [--cache]. */
import { fileURLToPath } from 'node:url';
import type { RankedField } from '../../connector/src/extract/fields/candidates/index.js';
import { documentCandidates } from '../../connector/src/extract/fields/document-fields.js';
import { loadShippedRegisterRows, matcherFromRows } from '../../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { rank, SHIPPED_MODEL } from '../../connector/src/extract/fields/ranker.js';
import { documentLines, loadCorpus, type CorpusName } from './corpora.js';

const [corpus, id, field] = process.argv.slice(2) as [CorpusName, string, RankedField];
const matcher = matcherFromRows(await loadShippedRegisterRows(fileURLToPath(new URL('../../connector/data/register/', import.meta.url))));
const doc = loadCorpus(corpus).find((d) => d.id === id);
if (!doc) throw new Error(`no document ${id} in corpus ${corpus}`);
let ocr: Ocr | null = null;
const read = await documentLines(doc, async () => (ocr ??= await createOcr({ workers: 1 })), process.argv.includes('--cache'));
if (ocr) await (ocr as Ocr).terminate();
const c = documentCandidates({ lines: read.lines }, matcher);
console.log(`country ${c.country ?? '-'}, type ${c.type?.type ?? '-'}; truth: ${doc.truth[field] ?? '(none)'}`);
for (const r of rank(SHIPPED_MODEL, field, c.candidates[field]).slice(0, 8))
  console.log(r.raw.toFixed(3), JSON.stringify(r.candidate.value), JSON.stringify(r.candidate.features));
