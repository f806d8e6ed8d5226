/** Runs the extraction pipeline over test/fixtures/policies and prints per-field accuracy, timings and peak RSS. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTRACTED_FIELDS } from '../shared/job.js';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { matcherFromRows, loadShippedRegisterRows } from '../connector/src/extract/matcher.js';
import { createOcr } from '../connector/src/extract/ocr.js';
import { extractFields } from '../connector/src/extract/pipeline.js';
import { normalisePlate } from '../connector/src/extract/plates.js';
import { normalisePolicyNumber } from '../connector/src/verify/normalise.js';
import { OCR_LANGUAGES } from '../connector/src/extract/ocr-languages.js';

const CORPUS = fileURLToPath(new URL('../test/fixtures/policies/', import.meta.url));
const REGISTER = fileURLToPath(new URL('../connector/data/register/', import.meta.url));
const verbose = process.argv.includes('--verbose');
const only = process.argv.find((a) => /^\d{3}$/.test(a));
const languages = process.argv.find((a) => a.startsWith('--lang='))?.slice(7) ?? OCR_LANGUAGES;

type Field = (typeof EXTRACTED_FIELDS)[number];
type Truth = Partial<Record<Field, string>> & { kind: 'text' | 'scanned'; language: string; layout: string; country: string };

/** Comparison after normalisation: policy numbers and plates without separators, everything else exact. */
function same(field: Field, expected: string | undefined, actual: string | undefined): boolean {
  if (expected === undefined) return actual === undefined;
  if (actual === undefined) return false;
  if (field === 'policy_number') return normalisePolicyNumber(expected) === normalisePolicyNumber(actual);
  if (field === 'vehicle_registration') return normalisePlate(expected) === normalisePlate(actual);
  return expected === actual;
}

const ids = readdirSync(CORPUS).filter((f) => f.endsWith('.pdf')).map((f) => f.slice(0, 3)).filter((id) => !only || id === only).sort();
const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
const tInit = performance.now();
const ocr = await createOcr({ workers: 1, languages });
const initMs = performance.now() - tInit;

const tally = { text: new Map<Field, [number, number]>(), scanned: new Map<Field, [number, number]>() };
const time = { text: [0, 0], scanned: [0, 0] };
let peakRss = process.memoryUsage().rss;
for (const id of ids) {
  const truth = JSON.parse(readFileSync(path.join(CORPUS, `${id}.json`), 'utf8')) as Truth;
  const pdf = readFileSync(path.join(CORPUS, `${id}.pdf`));
  const t0 = performance.now();
  const result = await extractFields(pdf, { ocr, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
  const ms = performance.now() - t0;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const bucket = time[truth.kind];
  bucket[0]! += ms;
  bucket[1]! += result.pages;
  const wrong: string[] = [];
  for (const field of EXTRACTED_FIELDS) {
    const ok = same(field, truth[field], result.fields[field] as string | undefined);
    const t = tally[truth.kind].get(field) ?? [0, 0];
    // A field absent from the truth (no plate on a travel policy) counts when the extractor also leaves it out.
    tally[truth.kind].set(field, [t[0] + (ok ? 1 : 0), t[1] + 1]);
    if (!ok) wrong.push(`${field}: want ${truth[field] ?? '(none)'} got ${result.fields[field] ?? '(none)'}`);
  }
  if (verbose && wrong.length) console.log(`${id} ${truth.kind} ${truth.country}/${truth.language}/${truth.layout}: ${wrong.join('; ')}`);
}
await ocr.terminate();

const pct = (a: number, b: number): string => (b === 0 ? '   -  ' : `${((100 * a) / b).toFixed(1).padStart(5)}%`);
console.log(`\nfield                  text       scanned    all`);
const sum = { text: [0, 0], scanned: [0, 0] };
for (const field of EXTRACTED_FIELDS) {
  const t = tally.text.get(field) ?? [0, 0];
  const s = tally.scanned.get(field) ?? [0, 0];
  sum.text[0]! += t[0]; sum.text[1]! += t[1]; sum.scanned[0]! += s[0]; sum.scanned[1]! += s[1];
  console.log(`${field.padEnd(22)} ${pct(t[0], t[1])}     ${pct(s[0], s[1])}     ${pct(t[0] + s[0], t[1] + s[1])}`);
}
console.log(`${'all fields'.padEnd(22)} ${pct(sum.text[0]!, sum.text[1]!)}     ${pct(sum.scanned[0]!, sum.scanned[1]!)}     ${pct(sum.text[0]! + sum.scanned[0]!, sum.text[1]! + sum.scanned[1]!)}`);
console.log(`\ndocuments: ${ids.length}; OCR languages ${languages}; OCR init ${initMs.toFixed(0)} ms (once per worker)`);
console.log(`ms per text page:    ${(time.text[0]! / Math.max(1, time.text[1]!)).toFixed(1)}`);
console.log(`ms per scanned page: ${(time.scanned[0]! / Math.max(1, time.scanned[1]!)).toFixed(1)}`);
console.log(`peak RSS: ${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1024 / 1024).toFixed(0)} MB`);
