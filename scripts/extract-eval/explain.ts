/**
 * Prints a document's best candidates for one field with their scores and features:
 * npx tsx scripts/extract-eval/explain.ts shared P001 insurer [--cache]; for a procedural document,
 * `procedural <seed> <field> [--dir=DIR]` (default: the eval's 200 validation documents under .cache/procedural/).
 */
import { fileURLToPath } from 'node:url';
import type { RankedField } from '../../connector/src/extract/fields/candidates/index.js';
import { documentCandidates } from '../../connector/src/extract/fields/document-fields.js';
import { loadShippedRegisterRows, matcherFromRows } from '../../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { rank, SHIPPED_MODEL } from '../../connector/src/extract/fields/ranker.js';
import { documentLines, loadCorpus, loadProceduralCorpus, type CorpusName } from './corpora.js';

const [corpus, id, field] = process.argv.slice(2) as [CorpusName | 'procedural', string, RankedField];
const dir =
  process.argv.find((a) => a.startsWith('--dir='))?.slice(6) ??
  fileURLToPath(new URL('../../.cache/procedural/validation-1-200/', import.meta.url));
const matcher = matcherFromRows(await loadShippedRegisterRows(fileURLToPath(new URL('../../connector/data/register/', import.meta.url))));
const doc = (corpus === 'procedural' ? loadProceduralCorpus(dir) : loadCorpus(corpus)).find((d) => d.id === id);
if (!doc) throw new Error(`no document ${id} in corpus ${corpus}`);
let ocr: Ocr | null = null;
const read = await documentLines(doc, async () => (ocr ??= await createOcr({ workers: 1 })), process.argv.includes('--cache'));
if (ocr) await (ocr as Ocr).terminate();
const c = documentCandidates({ lines: read.lines }, matcher);
console.log(`country ${c.country ?? '-'}, type ${c.type?.type ?? '-'}; truth: ${doc.truth[field] ?? '(none)'}`);
for (const r of rank(SHIPPED_MODEL, field, c.candidates[field]).slice(0, 8))
  console.log(r.raw.toFixed(3), JSON.stringify(r.candidate.value), JSON.stringify(r.candidate.features));
