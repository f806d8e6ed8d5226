/**
 * bench/fields: field parsing alone (extract/fields/: document-fields.ts ranking and coverage.ts, as extract/pipeline.ts runs them after reading), over
 * the cached text lines of both corpora, timed against a fixed baseline workload run in the same process.
 *
 * The machine is shared: other processes' load changes every wall time, so each round times the baseline and the
 * extractor back to back and the figure is their ratio; its median over the rounds is comparable between runs,
 * the milliseconds are not. The baseline is string work of the same kind (normalising, folding, regular
 * expressions over the same lines) written here, so no change to the extractor moves it.
 *
 * With --against=REV the baseline is the extractor itself at a git revision (its connector/ and shared/ checked out
 * under .cache/bench-against/), run on the same documents in the same process, interleaved document by document:
 * the ratio is then this code's time over that revision's, the direct measure of a change.
 *
 * With --pages (and --against) it times whole text pages instead: pdf.js, the text layer and field parsing, each
 * revision's own extractFields on the text PDFs of both corpora.
 *
 *   npm run bench -- fields            (or: tsx bench/fields.ts [--rounds=N] [--dump=file.json] [--against=REV [--pages]])
 *
 * --dump writes every document's fields, confidences and coverage, for checking that an optimisation changes no result.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { findCoverage } from '../connector/src/extract/fields/coverage.js';
import { extractFields } from '../connector/src/extract/pipeline.js';
import { extractFieldsFromLines } from '../connector/src/extract/fields/document-fields.js';
import type { Line } from '../connector/src/extract/reading/lines.js';
import { loadShippedRegisterRows, matcherFromRows } from '../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../connector/src/extract/reading/ocr.js';
import { OCR_LANGUAGES } from '../connector/src/extract/reading/ocr-languages.js';
import { documentLines, loadCorpus, type CorpusName } from '../scripts/extract-eval/corpora.js';
import { fmt, median } from './lib.js';
import { gc } from '../test/helpers/gc.js';

interface Doc {
  id: string;
  scanned: boolean;
  lines: Line[];
  ocrConfidence?: number;
}

const CURRENT: Parser = { extractFieldsFromLines, findCoverage, extractFields };
const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The extractor at a git revision: its connector/ and shared/ written under .cache/bench-against/<commit>/ and imported. */
async function parserAt(rev: string): Promise<Parser> {
  const commit = execFileSync('git', ['rev-parse', '--verify', `${rev}^{commit}`], { cwd: ROOT, encoding: 'utf8' }).trim();
  const dir = path.join(ROOT, '.cache/bench-against', commit);
  if (!existsSync(path.join(dir, 'connector'))) {
    mkdirSync(dir, { recursive: true });
    const tar = execFileSync('git', ['archive', commit, 'connector/src', 'shared'], { cwd: ROOT, maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
  }
  // The file at its path in that revision: extract/fields/ since the split into three folders, extract/ before.
  const at = (...paths: string[]): string | undefined =>
    paths.map((p) => path.join(dir, 'connector/src/extract', p)).find((f) => existsSync(f));
  const fields = (await import(at('fields/document-fields.ts', 'fields.ts')!)) as Parser;
  const pipeline = (await import(path.join(dir, 'connector/src/extract/pipeline.ts'))) as Parser;
  const coverageFile = at('fields/coverage.ts', 'coverage.ts');
  const coverage = coverageFile ? ((await import(coverageFile)) as Parser) : null;
  return {
    extractFieldsFromLines: fields.extractFieldsFromLines,
    extractFields: pipeline.extractFields,
    ...(coverage?.findCoverage ? { findCoverage: coverage.findCoverage } : {}),
  };
}

const REGISTER = fileURLToPath(new URL('../connector/data/register/', import.meta.url));

type Parser = {
  extractFieldsFromLines: typeof extractFieldsFromLines;
  findCoverage?: typeof findCoverage;
  extractFields: typeof extractFields;
};

/** What pipeline.ts does after reading a document: the ranked fields, then coverage from them. */
function parse(doc: Doc, matcher: ReturnType<typeof matcherFromRows>, { extractFieldsFromLines, findCoverage }: Parser = CURRENT) {
  const { fields } = extractFieldsFromLines(
    { lines: doc.lines, ...(doc.ocrConfidence !== undefined ? { ocrConfidence: doc.ocrConfidence } : {}) },
    matcher,
  );
  // Revisions before coverage details had none to find.
  const coverage = findCoverage?.({
    lines: doc.lines,
    type: fields.insurance_type,
    start: fields.start_date,
    end: fields.end_date,
    ocrConfidence: doc.ocrConfidence,
  });
  return coverage ? { ...fields, coverage } : fields;
}

const BASE_PATTERNS = [
  /\b\d{2}[./]\d{2}[./]\d{4}\b/g,
  /\b[A-Z]{2,4}[-/ ]?\d{4,}\b/g,
  /\b(?:policy|police|versicherung|assur\w*|insur\w*)\b/gi,
  /\s{2,}/g,
];

/** The fixed workload: fold every line, match a few patterns, sort the words, serialise. Touches no extractor code. */
function baseline(docs: Doc[]): number {
  let n = 0;
  for (const d of docs) {
    for (const l of d.lines) {
      const folded = l.text
        .normalize('NFD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase();
      for (const re of BASE_PATTERNS) n += folded.match(re)?.length ?? 0;
      n += folded.split(/\s+/).sort().join(' ').length;
      n += JSON.stringify(l).length;
    }
  }
  return n;
}

/** Baseline passes per document: about as long as parsing it, so the two share the same moments of load. */
const BASE_REPEAT = 20;

export async function benchFields(opts: { rounds?: number; dump?: string; against?: string } = {}): Promise<Record<string, number>> {
  const rounds = opts.rounds ?? 15;
  const against = opts.against ? await parserAt(opts.against) : null;
  const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
  let ocr: Ocr | null = null;
  const getOcr = async (): Promise<Ocr> => (ocr ??= await createOcr({ workers: 1, languages: OCR_LANGUAGES }));
  const docs: Doc[] = [];
  for (const corpus of ['own', 'shared'] as CorpusName[]) {
    for (const d of loadCorpus(corpus)) {
      const read = await documentLines(d, getOcr, true);
      docs.push({
        id: `${corpus}/${d.id}`,
        scanned: d.scanned,
        lines: read.lines,
        ...(read.ocrConfidence !== undefined ? { ocrConfidence: read.ocrConfidence } : {}),
      });
    }
  }
  if (ocr) await (ocr as Ocr).terminate();
  if (opts.dump) {
    writeFileSync(opts.dump, JSON.stringify(Object.fromEntries(docs.map((d) => [d.id, parse(d, matcher)])), null, 1));
    console.log(`bench/fields: ${docs.length} documents' fields written to ${opts.dump}`);
  }
  const text = docs.filter((d) => !d.scanned);
  const scanned = docs.filter((d) => d.scanned);
  // Warm-up: compile the patterns, let the JIT settle.
  for (let i = 0; i < 3; i++) {
    baseline(docs);
    for (const d of docs) parse(d, matcher);
    if (against) for (const d of docs) parse(d, matcher, against);
  }
  // Each document's baseline (BASE_REPEAT passes over its lines) and its parsing are timed back to back, so both
  // see the same load from other processes; a round sums them over every document.
  const per = { base: [] as number[], text: [] as number[], scan: [] as number[], ratio: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    // A full collection before each round, so no round pays for the garbage of the one before (collecting
    // before every document would be fairer still, but takes longer than the parsing on a loaded machine).
    gc();
    let base = 0;
    let tText = 0;
    let tScan = 0;
    for (const d of docs) {
      // Which of the two runs first alternates by round: the second one finds the document's strings in cache.
      const runBase = (): number => {
        const t = performance.now();
        if (against) parse(d, matcher, against);
        else for (let k = 0; k < BASE_REPEAT; k++) baseline([d]);
        return performance.now() - t;
      };
      const runOwn = (): number => {
        const t = performance.now();
        parse(d, matcher);
        return performance.now() - t;
      };
      let own: number;
      if (r % 2 === 0) {
        base += runBase();
        own = runOwn();
      } else {
        own = runOwn();
        base += runBase();
      }
      if (d.scanned) tScan += own;
      else tText += own;
    }
    per.base.push(base);
    per.text.push(tText / text.length);
    per.scan.push(tScan / scanned.length);
    per.ratio.push((tText + tScan) / base);
  }
  const out = { base_ms: median(per.base), text_doc_ms: median(per.text), scanned_doc_ms: median(per.scan), ratio: median(per.ratio) };
  const baseName = opts.against ? `the extractor at ${opts.against}` : 'baseline workload';
  console.log(
    `bench/fields: field parsing (ranked fields + coverage) over cached lines, ${text.length} text and ${scanned.length} scanned documents, median of ${rounds} rounds`,
  );
  console.log(
    `  per text document ${fmt(out.text_doc_ms, 2)} ms, per scanned document ${fmt(out.scanned_doc_ms, 2)} ms; ${baseName}: ${fmt(out.base_ms / docs.length, 2)} ms per document`,
  );
  console.log(
    `  all documents / ${baseName}, same round: ${fmt(out.ratio, 3)} (compare this between runs; per-round range ${fmt(Math.min(...per.ratio), 3)}-${fmt(Math.max(...per.ratio), 3)})`,
  );
  return out;
}

/** Text pages as pipeline.ts reads them (pdf.js, text layer, then field parsing), own code against a revision's, interleaved. */
export async function benchTextPages(against: string, rounds = 5): Promise<Record<string, number>> {
  const old = await parserAt(against);
  const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
  const noOcr: Ocr = {
    recognize: () => Promise.reject(new Error('a text document needed OCR')),
    terminate: () => Promise.resolve(),
  };
  const pdfs = (['own', 'shared'] as CorpusName[])
    .flatMap((c) => loadCorpus(c).filter((d) => !d.scanned))
    .map((d) => readFileSync(d.pdfPath));
  const run = async (p: Parser, pdf: Buffer): Promise<[number, number]> => {
    const t = performance.now();
    const r = await p.extractFields(new Uint8Array(pdf), { ocr: noOcr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    return [performance.now() - t, r.pages];
  };
  for (const pdf of pdfs) {
    await run(CURRENT, pdf);
    await run(old, pdf);
  }
  const ratios: number[] = [];
  const ownMs: number[] = [];
  const oldMs: number[] = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    let [own, base, pages] = [0, 0, 0];
    for (const pdf of pdfs) {
      const first = r % 2 === 0 ? old : CURRENT;
      const a = await run(first, pdf);
      const b = await run(first === old ? CURRENT : old, pdf);
      const [mine, theirs] = first === old ? [b, a] : [a, b];
      own += mine[0];
      base += theirs[0];
      pages += mine[1];
    }
    ratios.push(own / base);
    ownMs.push(own / pages);
    oldMs.push(base / pages);
  }
  const out = { text_page_ms: median(ownMs), against_text_page_ms: median(oldMs), ratio: median(ratios) };
  console.log(
    `bench/fields: whole text pages (pdf.js, text layer, field parsing), ${pdfs.length} text PDFs of both corpora, median of ${rounds} rounds`,
  );
  console.log(
    `  ${fmt(out.text_page_ms, 2)} ms per page; the extractor at ${against}: ${fmt(out.against_text_page_ms, 2)} ms; ratio in the same rounds ${fmt(out.ratio, 3)} (per-round ${fmt(Math.min(...ratios), 3)}-${fmt(Math.max(...ratios), 3)})`,
  );
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const rounds = arg('rounds');
  const dump = arg('dump');
  const against = arg('against');
  if (against && process.argv.includes('--pages')) await benchTextPages(against, rounds ? Number(rounds) : undefined);
  else await benchFields({ ...(rounds ? { rounds: Number(rounds) } : {}), ...(dump ? { dump } : {}), ...(against ? { against } : {}) });
}
