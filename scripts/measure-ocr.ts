/**
 * Measures how well scans are read: per scanned document, which ground-truth values appear in the OCR text
 * (after folding case, accents, spaces and punctuation) and how many fields the extractor gets right, by
 * document and by degradation. Usage: npx tsx scripts/measure-ocr.ts [--own] [--dump=DIR] [P004 ...]
 * Default corpus: ../shared/data/documents (its scanned documents); --own: test/fixtures/policies' scans.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { distance } from 'fastest-levenshtein';
import { EXTRACT_LIMIT_DEFAULTS } from '../connector/src/config.js';
import { loadShippedRegisterRows, matcherFromRows } from '../connector/src/extract/fields/insurer-matcher.js';
import { createOcr } from '../connector/src/extract/reading/ocr.js';
import { extractFields } from '../connector/src/extract/pipeline.js';
import type { Line } from '../connector/src/extract/reading/lines.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHARED = path.resolve(ROOT, '..', 'shared', 'data', 'documents');
const SHARED_FALLBACK = '/work/shared/data/documents';
const OWN = path.join(ROOT, 'test', 'fixtures', 'policies');
const REGISTER = path.join(ROOT, 'connector', 'data', 'register');

const args = process.argv.slice(2);
const own = args.includes('--own');
const dumpDir = args.find((a) => a.startsWith('--dump='))?.slice(7);
const only = new Set(args.filter((a) => !a.startsWith('--')));

const VALUE_FIELDS = ['policy_number', 'insurer', 'start_date', 'end_date', 'vehicle_registration'] as const;
const ALL_FIELDS = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'] as const;
type Field = (typeof ALL_FIELDS)[number];
type Truth = Partial<Record<Field, string>>;

interface Doc {
  id: string;
  pdf: string;
  truth: Truth;
  /** Values as printed, when the corpus records them (the own corpus); else derived from the truth. */
  printed?: Partial<Record<Field, string>>;
  degradation: string;
}

function documents(): Doc[] {
  if (own) return listOwn();
  let dir = SHARED;
  let manifest: Array<{ name: string; scanned: boolean; degradation?: string }>;
  try {
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  } catch {
    dir = SHARED_FALLBACK;
    manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  }
  const list = Array.isArray(manifest) ? manifest : (manifest as { documents: typeof manifest }).documents;
  return list
    .filter((d) => d.scanned && (only.size === 0 || only.has(d.name)))
    .map((d) => ({
      id: d.name,
      pdf: path.join(dir, `${d.name}.pdf`),
      truth: JSON.parse(readFileSync(path.join(dir, `${d.name}.json`), 'utf8')) as Truth,
      degradation: d.degradation ?? 'scan',
    }));
}

function listOwn(): Doc[] {
  const out: Doc[] = [];
  for (let i = 1; i < 1000; i++) {
    const id = String(i).padStart(3, '0');
    let truth: Truth & { kind?: string; degradation?: string; printed?: Record<string, string> };
    try {
      truth = JSON.parse(readFileSync(path.join(OWN, `${id}.json`), 'utf8'));
    } catch {
      break;
    }
    if (truth.kind !== 'scanned' || (only.size > 0 && !only.has(id))) continue;
    const p = truth.printed ?? {};
    out.push({
      id,
      pdf: path.join(OWN, `${id}.pdf`),
      truth,
      printed: { policy_number: p.policy, insurer: p.insurer, start_date: p.start, end_date: p.end, vehicle_registration: p.plate },
      degradation: truth.degradation ?? 'scan',
    });
  }
  return out;
}

/** Lower case, no accents, letters and digits only: how values and text are compared. */
const fold = (s: string): string =>
  s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]/g, '');

const LEGAL_FORMS = /\b(limited|ltd|plc|ag|se|sa|s\.a\.|a\.\s?g\.|gmbh|vvag|aktiengesellschaft)(?=\W|$)/gi;

const MONTHS = {
  en: ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'],
  de: ['januar', 'februar', 'marz', 'april', 'mai', 'juni', 'juli', 'august', 'september', 'oktober', 'november', 'dezember'],
  fr: ['janvier', 'fevrier', 'mars', 'avril', 'mai', 'juin', 'juillet', 'aout', 'septembre', 'octobre', 'novembre', 'decembre'],
};

/** The ways an ISO date is printed on UK, German and French documents, folded. */
function dateForms(iso: string): string[] {
  const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
  const dd = String(d).padStart(2, '0');
  const mm = String(m).padStart(2, '0');
  const yy = String(y).slice(2);
  const forms = [`${dd}${mm}${y}`, `${d}${m}${y}`, `${dd}${mm}${yy}`, `${y}${mm}${dd}`];
  for (const months of Object.values(MONTHS)) {
    const month = months[m - 1] as string;
    forms.push(`${d}${month}${y}`, `${dd}${month}${y}`, `${d}${month.slice(0, 3)}${y}`, `${month}${d}${y}`);
  }
  forms.push(
    `${d}st${MONTHS.en[m - 1]}${y}`,
    `${d}nd${MONTHS.en[m - 1]}${y}`,
    `${d}rd${MONTHS.en[m - 1]}${y}`,
    `${d}th${MONTHS.en[m - 1]}${y}`,
    `1er${MONTHS.fr[m - 1]}${y}`,
  );
  return [...new Set(forms)];
}

/** The folded forms a truth value may take in the text. */
function forms(field: Field, value: string, printed: string | undefined): string[] {
  if (printed) return [fold(printed)];
  if (field === 'start_date' || field === 'end_date') return dateForms(value);
  if (field === 'insurer') return [fold(value.replace(LEGAL_FORMS, ' '))];
  return [fold(value)];
}

/** Text folded as `fold` does, remembering where a space or punctuation stood between two kept characters. */
interface Folded {
  text: string;
  /** breakBefore[i]: something was dropped between text[i - 1] and text[i]. */
  breakBefore: boolean[];
}
function foldText(s: string): Folded {
  const parts = s
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const breakBefore: boolean[] = [];
  for (const p of parts) for (let i = 0; i < p.length; i++) breakBefore.push(i === 0);
  return { text: parts.join(''), breakBefore };
}

/** A form found in the text, not inside a longer number (1april2026 in 11 april 2026). */
function occurs(folded: Folded, form: string): boolean {
  const { text, breakBefore } = folded;
  for (let i = text.indexOf(form); i >= 0; i = text.indexOf(form, i + 1)) {
    const end = i + form.length;
    if (/\d/.test(form[0]!) && i > 0 && !breakBefore[i] && /\d/.test(text[i - 1]!)) continue;
    if (/\d/.test(form.at(-1)!) && end < text.length && !breakBefore[end] && /\d/.test(text[end]!)) continue;
    return true;
  }
  return false;
}

/** Fewest edits between the form and any stretch of the text of about its length. */
function nearest(text: string, form: string): number {
  let best = form.length;
  for (let len = form.length - 1; len <= form.length + 1; len++) {
    for (let i = 0; i + len <= text.length; i++) best = Math.min(best, distance(text.slice(i, i + len), form));
  }
  return best;
}

/** Comparison of an extracted field with the truth, after the shared README's rules. */
function right(field: Field, want: string | undefined, got: string | undefined): boolean {
  if (want === undefined) return got === undefined;
  if (got === undefined) return false;
  if (field === 'insurer') return fold(want.replace(LEGAL_FORMS, ' ')) === fold(got.replace(LEGAL_FORMS, ' '));
  return fold(want) === fold(got);
}

interface Row {
  id: string;
  degradation: string;
  pages: number;
  ms: number;
  /** Processor time of the whole process (tesseract's thread included): steadier than wall time on a shared machine. */
  cpuMs: number;
  confidence: number;
  found: number;
  near: number;
  values: number;
  fieldsRight: number;
  fields: number;
  missing: string[];
  wrong: string[];
}

const docs = documents();
const matcher = matcherFromRows(await loadShippedRegisterRows(REGISTER));
const ocr = await createOcr({ workers: 1 });
if (dumpDir) mkdirSync(dumpDir, { recursive: true });
const rows: Row[] = [];
let peakRss = process.memoryUsage().rss;
for (const doc of docs) {
  const pages: Array<{ lines: Line[]; ocrConfidence?: number; turned?: number; passes?: number }> = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const result = await extractFields(
    readFileSync(doc.pdf),
    { ocr, matcher },
    { limits: EXTRACT_LIMIT_DEFAULTS, onPage: (p) => pages.push(p) },
  ).catch((err: unknown) => {
    console.log(`${doc.id}: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
  const text = pages.map((p) => p.lines.map((l) => l.text).join('\n')).join('\n\f\n');
  if (dumpDir) writeFileSync(path.join(dumpDir, `${doc.id}.txt`), text);
  const folded = foldText(text);
  const row: Row = {
    id: doc.id,
    degradation: doc.degradation,
    pages: pages.length,
    ms,
    cpuMs,
    confidence: 0,
    found: 0,
    near: 0,
    values: 0,
    fieldsRight: 0,
    fields: 0,
    missing: [],
    wrong: [],
  };
  const confs = pages.flatMap((p) => (p.ocrConfidence === undefined ? [] : [p.ocrConfidence]));
  row.confidence = confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0;
  for (const field of VALUE_FIELDS) {
    const value = doc.truth[field];
    if (!value) continue;
    row.values++;
    const fs = forms(field, value, doc.printed?.[field]);
    if (fs.some((f) => occurs(folded, f))) row.found++;
    else {
      const d = Math.min(...fs.map((f) => nearest(folded.text, f)));
      if (d <= 1) row.near++;
      row.missing.push(`${field}=${value}${d <= 1 ? ' (1 edit)' : ''}`);
    }
  }
  for (const field of ALL_FIELDS) {
    const want = doc.truth[field];
    const got = result?.fields[field] as string | undefined;
    row.fields++;
    if (right(field, want, got)) row.fieldsRight++;
    else row.wrong.push(`${field}: want ${want ?? '-'} got ${got ?? '-'}`);
  }
  rows.push(row);
  console.log(
    `${row.id} ${row.degradation.padEnd(22)} ${String(row.pages)}p ${(row.ms / 1000).toFixed(1).padStart(5)} s (cpu ${(row.cpuMs / 1000).toFixed(1)} s)  conf ${row.confidence.toFixed(2)}  values in text ${row.found}/${row.values}  fields right ${row.fieldsRight}/${row.fields}  (turned ${pages.map((p) => p.turned ?? 0).join('/')}, passes ${pages.map((p) => p.passes ?? 1).join('/')})`,
  );
  if (row.missing.length) console.log(`      not in text: ${row.missing.join('; ')}`);
  if (row.wrong.length) console.log(`      wrong: ${row.wrong.join('; ')}`);
}
await ocr.terminate();

const pct = (a: number, b: number): string => (b ? `${((100 * a) / b).toFixed(1)}%` : '-');
const tags = new Map<string, Row[]>();
for (const r of rows) for (const tag of r.degradation.split('+')) tags.set(tag, [...(tags.get(tag) ?? []), r]);
console.log('\nby degradation (a document counts under each of its tags)');
console.log('degradation         docs   values in text          fields right');
const line = (name: string, rs: Row[]): void => {
  const sum = (k: 'found' | 'near' | 'values' | 'fieldsRight' | 'fields'): number => rs.reduce((a, r) => a + r[k], 0);
  console.log(
    `${name.padEnd(20)}${String(rs.length).padStart(4)}   ${`${sum('found')}/${sum('values')}`.padStart(7)} ${pct(sum('found'), sum('values')).padStart(7)} (+${sum('near')} within 1 edit)   ${`${sum('fieldsRight')}/${sum('fields')}`.padStart(7)} ${pct(sum('fieldsRight'), sum('fields')).padStart(7)}`,
  );
};
for (const [tag, rs] of [...tags].sort()) line(tag, rs);
line('all', rows);
const pageCount = rows.reduce((a, r) => a + r.pages, 0);
const perPage = (k: 'ms' | 'cpuMs'): string => (rows.reduce((a, r) => a + r[k], 0) / Math.max(1, pageCount)).toFixed(0);
console.log(`\nper scanned page: ${perPage('ms')} ms wall, ${perPage('cpuMs')} ms processor (${pageCount} pages)`);
console.log(`peak RSS: ${(Math.max(peakRss, process.resourceUsage().maxRSS * 1024) / 1024 / 1024).toFixed(0)} MB`);
