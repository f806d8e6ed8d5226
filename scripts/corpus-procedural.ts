/**
 * Writes procedural documents (scripts/procedural/pdf-documents.ts): random layouts, each with one real-world PDF
 * technicality and its ground truth.
 *
 *   npm run corpus:procedural -- --count N [--seed S] [--split train|validation|all] [--technicality T] --out DIR
 *
 * Seeds are taken from S (default 1) on, keeping those of the split (default all): a fifth of all seeds are
 * validation seeds. The folder gets `<seed>.pdf|jpg|png`, `<seed>.json` and `manifest.json`; documents already
 * there are kept. `npm run eval:extract -- --corpus=procedural --dir=DIR` reads it.
 */
import { TECHNICALITIES, seedsOf, type Split, type Technicality } from './procedural/pdf-documents.js';
import { writeProceduralCorpus } from './procedural/write-corpus.js';

/** `--name value` or `--name=value`. */
function arg(name: string): string | undefined {
  const args = process.argv.slice(2);
  const i = args.findIndex((a) => a === `--${name}` || a.startsWith(`--${name}=`));
  if (i < 0) return undefined;
  return args[i]!.includes('=') ? args[i]!.slice(args[i]!.indexOf('=') + 1) : args[i + 1];
}

const out = arg('out');
const count = Number(arg('count') ?? 0);
const from = Number(arg('seed') ?? 1);
const split = (arg('split') ?? 'all') as Split | 'all';
const technicality = arg('technicality') as Technicality | undefined;
if (!out || !(count > 0) || !Number.isInteger(from) || !['train', 'validation', 'all'].includes(split)) {
  console.error('usage: npm run corpus:procedural -- --count N [--seed S] [--split train|validation|all] [--technicality T] --out DIR');
  process.exit(2);
}
if (technicality && !(TECHNICALITIES as readonly string[]).includes(technicality)) {
  console.error(`unknown technicality ${technicality}; known: ${TECHNICALITIES.join(', ')}`);
  process.exit(2);
}
const t0 = performance.now();
let made = 0;
const manifest = await writeProceduralCorpus(out, seedsOf(split, count, from), technicality ? { technicality } : {}, (e, fresh) => {
  if (fresh) made++;
  process.stdout.write(`${e.file} ${e.split} ${e.technicality}/${e.variant} ${e.layout} ${e.language}\n`);
});
const per = new Map<string, number>();
for (const e of manifest) per.set(e.technicality, (per.get(e.technicality) ?? 0) + 1);
console.log(`\n${manifest.length} documents in ${out} (${made} made, ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
console.log([...per].map(([t, n]) => `${t} ${n}`).join(', '));
