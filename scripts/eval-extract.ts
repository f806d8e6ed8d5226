/**
 * Runs the extractor over the corpora (own generated corpus in test/fixtures/policies, the outside documents in
 * ../shared/data/documents) and prints fields right per corpus, country, family and field, text vs scan, a
 * calibration table (accuracy per confidence band), timings and peak RSS.
 *
 *   npm run eval:extract [-- --corpus=own|shared|procedural] [--cache] [--verbose] [--only=ID[,ID|FROM-TO...]] [--json[=file]]
 *
 * --corpus=procedural reads procedural documents (scripts/procedural/pdf-documents.ts), each carrying one real-world
 * PDF technicality, and reports per technicality and variant too: from --dir=DIR (written by npm run
 * corpus:procedural), or generated from seeds (--count=200 --seed=1 --split=validation) into .cache/procedural/,
 * where they are kept for the next run.
 *
 * --cache keeps each document's text lines (text layer or OCR) under .cache/extract-lines/ so rule changes can be
 * tried without OCR; the figures that count come from an uncached run.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { extractFieldsFromLines } from '../connector/src/extract/fields/document-fields.js';
import { matcherFromRows, loadShippedRegisterRows } from '../connector/src/extract/fields/insurer-matcher.js';
import { createOcr, type Ocr } from '../connector/src/extract/reading/ocr.js';
import { OCR_LANGUAGES } from '../connector/src/extract/reading/ocr-languages.js';
import { EXTRACTED_FIELDS, sameField, type Field } from './extract-eval/compare.js';
import { calibration, calibrationLines } from './extract-eval/calibration.js';
import {
  documentLines,
  loadCorpus,
  loadProceduralCorpus,
  type CorpusDoc,
  type CorpusName,
  type ReadLines,
} from './extract-eval/corpora.js';
import { seedsOf, TECHNICALITIES, type Split } from './procedural/pdf-documents.js';
import { writeProceduralCorpus } from './procedural/write-corpus.js';

const REGISTER = fileURLToPath(new URL('../connector/data/register/', import.meta.url));
const arg = (name: string): string | undefined =>
  process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))?.replace(/^--[^=]+=?/, '');
const verbose = process.argv.includes('--verbose');
const useCache = process.argv.includes('--cache');
/** --only=ID, a list (001,004) or ranges (001-066): e.g. to time the documents an older revision also had. */
const onlyIds = (() => {
  const spec = arg('only');
  if (!spec) return null;
  const ids = new Set<string>();
  for (const part of spec.split(',')) {
    const range = /^(\d+)-(\d+)$/.exec(part);
    if (!range) ids.add(part);
    else for (let i = Number(range[1]); i <= Number(range[2]); i++) ids.add(String(i).padStart(range[1]!.length, '0'));
  }
  return ids;
})();
const jsonOut = arg('json');
type EvalCorpus = CorpusName | 'procedural';
const corpora: EvalCorpus[] = arg('corpus') ? [arg('corpus') as EvalCorpus] : ['own', 'shared'];

/** The procedural documents: a folder written by corpus:procedural, or the split's seeds generated (once) under .cache/procedural/. */
async function proceduralDocs(): Promise<CorpusDoc[]> {
  const given = arg('dir');
  if (given) return loadProceduralCorpus(given);
  const count = Number(arg('count') ?? 200);
  const from = Number(arg('seed') ?? 1);
  const split = (arg('split') ?? 'validation') as Split | 'all';
  const dir = fileURLToPath(new URL(`../.cache/procedural/${split}-${from}-${count}/`, import.meta.url));
  const t = performance.now();
  await writeProceduralCorpus(dir, seedsOf(split, count, from));
  console.log(
    `(procedural: ${count} ${split} documents from seed ${from} in ${dir}, ${((performance.now() - t) / 1000).toFixed(1)} s to generate or check)`,
  );
  return loadProceduralCorpus(dir);
}

interface Outcome {
  doc: CorpusDoc;
  field: Field;
  ok: boolean;
  /** Confidence of the value returned; undefined when the field was left out. */
  confidence?: number;
  expected?: string;
  actual?: string;
}

const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
let ocr: Ocr | null = null;
let initMs = 0;
const getOcr = async (): Promise<Ocr> => {
  if (!ocr) {
    const t = performance.now();
    ocr = await createOcr({ workers: 1, languages: OCR_LANGUAGES });
    initMs = performance.now() - t;
  }
  return ocr;
};

const outcomes: Outcome[] = [];
const time = { text: { ms: 0, pages: 0 }, scanned: { ms: 0, pages: 0 } };
/** Field parsing (extractFieldsFromLines) per document, cached or not: one cold pass, so bench/fields is the figure to compare. */
const parsing = { text: { ms: 0, docs: 0 }, scanned: { ms: 0, docs: 0 } };
/** Reading time per technicality (procedural documents), uncached documents only. */
const byTechnicality = new Map<string, { ms: number; docs: number }>();
/** Documents the reader refused (no readable text, a limit): every field of theirs counts as missed. */
const refused: string[] = [];
let peakRss = process.memoryUsage().rss;
for (const name of corpora) {
  const all = name === 'procedural' ? await proceduralDocs() : loadCorpus(name);
  const docs = all.filter((d) => !onlyIds || onlyIds.has(d.id));
  if (docs.length === 0) console.log(`(corpus ${name}: no documents found${name === 'shared' ? '; set COVERCHECK_SHARED_DOCS' : ''})`);
  for (const doc of docs) {
    const t0 = performance.now();
    const read: ReadLines = await documentLines(doc, getOcr, useCache).catch((err: unknown) => {
      refused.push(`${name} ${doc.id} ${doc.technicality ?? ''}: ${err instanceof Error ? err.message : String(err)}`);
      return { lines: [], pages: 1, ocrPages: 0, ms: performance.now() - t0, cached: false };
    });
    if (doc.technicality && !read.cached) {
      const t = byTechnicality.get(doc.technicality) ?? { ms: 0, docs: 0 };
      t.ms += read.ms;
      t.docs++;
      byTechnicality.set(doc.technicality, t);
    }
    const tParse = performance.now();
    const result = extractFieldsFromLines(
      { lines: read.lines, ...(read.ocrConfidence !== undefined ? { ocrConfidence: read.ocrConfidence } : {}) },
      matcher,
    );
    const p = parsing[doc.scanned ? 'scanned' : 'text'];
    p.ms += performance.now() - tParse;
    p.docs++;
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    if (!read.cached) {
      const t = time[doc.scanned ? 'scanned' : 'text'];
      t.ms += read.ms;
      t.pages += read.pages;
    }
    const wrong: string[] = [];
    for (const field of EXTRACTED_FIELDS) {
      const actual = result.fields[field] as string | undefined;
      const ok = sameField(field, doc.truth[field], actual);
      const confidence = result.fields.confidence[field];
      outcomes.push({
        doc,
        field,
        ok,
        ...(confidence !== undefined ? { confidence } : {}),
        ...(doc.truth[field] ? { expected: doc.truth[field] } : {}),
        ...(actual ? { actual } : {}),
      });
      if (!ok)
        wrong.push(
          `${field}: want ${doc.truth[field] ?? '(none)'} got ${actual ?? '(none)'}${confidence !== undefined ? ` @${confidence}` : ''}`,
        );
    }
    if (verbose && wrong.length)
      console.log(
        `${name} ${doc.id} ${doc.scanned ? 'scan' : 'text'} ${doc.country}/${doc.group}${doc.technicality ? ` ${doc.technicality}/${doc.variant}` : ''}: ${wrong.join('; ')}`,
      );
  }
}
if (ocr) await (ocr as Ocr).terminate();

const rate = (xs: Outcome[]): { right: number; total: number; pct: number | null } => {
  const right = xs.filter((o) => o.ok).length;
  return { right, total: xs.length, pct: xs.length ? (100 * right) / xs.length : null };
};
const pct = (xs: Outcome[]): string => {
  const r = rate(xs);
  return r.pct === null ? '     -     ' : `${r.pct.toFixed(1).padStart(5)}% ${`${r.right}/${r.total}`.padStart(7)}`;
};
const kinds = [false, true];
const row = (label: string, xs: Outcome[]): string =>
  `${label.padEnd(24)} ${kinds.map((s) => pct(xs.filter((o) => o.doc.scanned === s)).padEnd(16)).join(' ')} ${pct(xs)}`;
const header = (label: string): string => `${label.padEnd(24)} ${'text'.padEnd(16)} ${'scan'.padEnd(16)} all`;

const report: Record<string, unknown> = {};
for (const name of corpora) {
  const xs = outcomes.filter((o) => o.doc.corpus === name);
  if (xs.length === 0) continue;
  const docs = new Set(xs.map((o) => o.doc.id)).size;
  console.log(`\n=== corpus ${name}: ${docs} documents ===`);
  console.log(header('field'));
  for (const f of EXTRACTED_FIELDS)
    console.log(
      row(
        f,
        xs.filter((o) => o.field === f),
      ),
    );
  console.log(row('all fields', xs));
  console.log(`\n${header('country')}`);
  const countries = [...new Set(xs.map((o) => o.doc.country))].sort();
  for (const c of countries)
    console.log(
      row(
        c,
        xs.filter((o) => o.doc.country === c),
      ),
    );
  console.log(`\n${header('country / field')}`);
  for (const c of countries)
    for (const f of EXTRACTED_FIELDS)
      console.log(
        row(
          `${c} ${f}`,
          xs.filter((o) => o.doc.country === c && o.field === f),
        ),
      );
  console.log(`\n${header('layout / family')}`);
  const groups = [...new Set(xs.map((o) => o.doc.group))].sort();
  for (const g of groups)
    console.log(
      row(
        g,
        xs.filter((o) => o.doc.group === g),
      ),
    );
  const techs = TECHNICALITIES.filter((t) => xs.some((o) => o.doc.technicality === t));
  if (techs.length) {
    console.log(`\n${header('technicality')}`);
    for (const t of techs)
      console.log(
        row(
          t,
          xs.filter((o) => o.doc.technicality === t),
        ),
      );
    console.log(`\n${header('technicality / field')}`);
    for (const t of techs)
      for (const f of EXTRACTED_FIELDS)
        console.log(
          row(
            `${t} ${f}`.slice(0, 24),
            xs.filter((o) => o.doc.technicality === t && o.field === f),
          ),
        );
    console.log(`\n${header('technicality / variant')}`);
    const variants = [...new Set(xs.map((o) => `${o.doc.technicality}:${o.doc.variant}`))].sort();
    for (const v of variants)
      console.log(
        row(
          v.replace(/^(\w+):\1$/, '$1').slice(0, 24),
          xs.filter((o) => `${o.doc.technicality}:${o.doc.variant}` === v),
        ),
      );
    const negatives = [...new Set(xs.filter((o) => o.doc.negative).map((o) => o.doc.id))];
    const invented = new Set(xs.filter((o) => o.doc.negative && o.actual !== undefined).map((o) => o.doc.id));
    console.log(
      `\nno policy at all (invoices, bank statements, letters): ${negatives.length} documents, ${invented.size} with a field invented`,
    );
  }
  const calText = xs.filter((o) => !o.doc.scanned);
  const calScan = xs.filter((o) => o.doc.scanned);
  console.log(['', ...calibrationLines(xs, calText, calScan)].join('\n'));
  const byField = Object.fromEntries(
    EXTRACTED_FIELDS.map((f) => [
      f,
      { text: rate(xs.filter((o) => o.field === f && !o.doc.scanned)), scan: rate(xs.filter((o) => o.field === f && o.doc.scanned)) },
    ]),
  );
  const byCountry = Object.fromEntries(
    countries.map((c) => [
      c,
      {
        text: rate(xs.filter((o) => o.doc.country === c && !o.doc.scanned)),
        scan: rate(xs.filter((o) => o.doc.country === c && o.doc.scanned)),
        fields: Object.fromEntries(
          EXTRACTED_FIELDS.map((f) => [
            f,
            {
              text: rate(xs.filter((o) => o.doc.country === c && o.field === f && !o.doc.scanned)),
              scan: rate(xs.filter((o) => o.doc.country === c && o.field === f && o.doc.scanned)),
            },
          ]),
        ),
      },
    ]),
  );
  report[name] = {
    documents: docs,
    all: { text: rate(xs.filter((o) => !o.doc.scanned)), scan: rate(xs.filter((o) => o.doc.scanned)), all: rate(xs) },
    fields: byField,
    countries: byCountry,
    groups: Object.fromEntries(
      groups.map((g) => [
        g,
        {
          text: rate(xs.filter((o) => o.doc.group === g && !o.doc.scanned)),
          scan: rate(xs.filter((o) => o.doc.group === g && o.doc.scanned)),
        },
      ]),
    ),
    calibration: { all: calibration(xs), text: calibration(calText), scan: calibration(calScan) },
    ...(techs.length
      ? {
          technicalities: Object.fromEntries(
            techs.map((t) => {
              const ts = xs.filter((o) => o.doc.technicality === t);
              return [
                t,
                {
                  all: rate(ts),
                  fields: Object.fromEntries(EXTRACTED_FIELDS.map((f) => [f, rate(ts.filter((o) => o.field === f))])),
                  calibration: calibration(ts),
                },
              ];
            }),
          ),
        }
      : {}),
    misses: xs
      .filter((o) => !o.ok)
      .map((o) => ({
        id: o.doc.id,
        scanned: o.doc.scanned,
        field: o.field,
        expected: o.expected ?? null,
        actual: o.actual ?? null,
        confidence: o.confidence ?? null,
      })),
  };
}

const perPage = (t: { ms: number; pages: number }): number | null => (t.pages ? t.ms / t.pages : null);
const perDoc = (t: { ms: number; docs: number }): number | null => (t.docs ? t.ms / t.docs : null);
report.timing = {
  msPerTextPage: perPage(time.text),
  msPerScannedPage: perPage(time.scanned),
  msFieldsPerTextDoc: perDoc(parsing.text),
  msFieldsPerScannedDoc: perDoc(parsing.scanned),
  ocrInitMs: initMs,
  peakRssMb: Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1024 / 1024,
  cached: useCache,
};
console.log(
  `\nOCR languages ${OCR_LANGUAGES}; OCR init ${initMs.toFixed(0)} ms (once per worker)${useCache ? '; --cache: timings only cover documents not in the cache' : ''}`,
);
if (time.text.pages) console.log(`ms per text page:    ${perPage(time.text)!.toFixed(1)} (reading: pdf.js and the text layer)`);
if (time.scanned.pages) console.log(`ms per scanned page: ${perPage(time.scanned)!.toFixed(1)} (reading: rendering and OCR)`);
if (parsing.text.docs || parsing.scanned.docs) {
  const ms = (t: { ms: number; docs: number }): string => (t.docs ? `${(t.ms / t.docs).toFixed(1)} ms` : '-');
  console.log(
    `field parsing per document, after reading: text ${ms(parsing.text)}, scanned ${ms(parsing.scanned)} (one cold pass; npm run bench -- fields compares runs)`,
  );
}
if (byTechnicality.size)
  console.log(
    `reading per document by technicality: ${[...byTechnicality].map(([t, x]) => `${t} ${(x.ms / x.docs).toFixed(0)} ms`).join(', ')}`,
  );
if (refused.length) console.log(`refused by the reader (every field missed):\n  ${refused.join('\n  ')}`);
console.log(`peak RSS: ${(report.timing as { peakRssMb: number }).peakRssMb.toFixed(0)} MB`);
if (jsonOut !== undefined) {
  const json = JSON.stringify(report, null, 2);
  if (jsonOut) writeFileSync(jsonOut, json);
  else console.log(json);
}
