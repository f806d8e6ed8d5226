/** The extraction eval's corpora (own generated corpus, the outside documents, procedural documents) with their truth, and their text lines, cached on disk on request. */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { readDocumentLines, type DocumentLines } from '../../connector/src/extract/reading/read-document.js';
import type { ManifestEntry } from '../procedural/write-corpus.js';
import type { Field } from './compare.js';

export type CorpusName = 'own' | 'shared';

export interface CorpusDoc {
  corpus: CorpusName | 'procedural';
  id: string;
  country: string;
  type: string;
  scanned: boolean;
  /** Layout (own corpus) or family (outside documents). */
  group: string;
  truth: Partial<Record<Field, string>>;
  pdfPath: string;
  /** Procedural documents: the technicality the document carries, and which form of it. */
  technicality?: string;
  variant?: string;
  /** Procedural documents that are no policy (an invoice, a bank statement, a letter). */
  negative?: string;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const OWN_DIR = path.join(ROOT, 'test/fixtures/policies');
/** Where the outside documents are: COVERCHECK_SHARED_DOCS, else ../shared/data/documents beside the repository (or beside a worktree's parent). */
export function sharedDir(): string | null {
  const candidates = [
    process.env.COVERCHECK_SHARED_DOCS,
    path.join(ROOT, '../shared/data/documents'),
    path.join(ROOT, '../../shared/data/documents'),
  ];
  return candidates.find((d): d is string => !!d && existsSync(path.join(d, 'manifest.json'))) ?? null;
}
/** Git-ignored: text lines per document, keyed by the PDF's hash, so rule changes can be tried without OCR. */
const CACHE_DIR = path.join(ROOT, '.cache/extract-lines');

const FIELDS: Field[] = ['policy_number', 'insurer', 'insurance_type', 'start_date', 'end_date', 'vehicle_registration'];
const pickTruth = (j: Record<string, unknown>): Partial<Record<Field, string>> =>
  Object.fromEntries(FIELDS.filter((f) => typeof j[f] === 'string').map((f) => [f, j[f] as string]));

/** A folder of procedural documents (scripts/procedural/write-corpus.ts), as listed by its manifest. */
export function loadProceduralCorpus(dir: string): CorpusDoc[] {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as ManifestEntry[];
  return manifest.map((m) => {
    const j = JSON.parse(readFileSync(path.join(dir, `${m.seed}.json`), 'utf8')) as Record<string, unknown>;
    return {
      corpus: 'procedural' as const,
      id: String(m.seed),
      country: m.country,
      type: typeof j.insurance_type === 'string' ? j.insurance_type : 'none',
      scanned: m.scanned,
      group: m.layout,
      truth: pickTruth(j),
      pdfPath: path.join(dir, m.file),
      technicality: m.technicality,
      variant: m.variant,
      ...(m.negative ? { negative: m.negative } : {}),
    };
  });
}

export function loadCorpus(name: CorpusName): CorpusDoc[] {
  if (name === 'own') {
    return readdirSync(OWN_DIR)
      .filter((f) => /^\d{3}\.pdf$/.test(f))
      .sort()
      .map((f) => {
        const id = f.slice(0, 3);
        const j = JSON.parse(readFileSync(path.join(OWN_DIR, `${id}.json`), 'utf8')) as Record<string, string>;
        return {
          corpus: name,
          id,
          country: j.country!,
          type: j.insurance_type!,
          scanned: j.kind === 'scanned',
          group: j.layout!,
          truth: pickTruth(j),
          pdfPath: path.join(OWN_DIR, f),
        };
      });
  }
  const dir = sharedDir();
  if (!dir) return [];
  const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Array<{
    name: string;
    country: string;
    type: string;
    family: string;
    scanned: boolean;
  }>;
  return manifest.map((m) => {
    const j = JSON.parse(readFileSync(path.join(dir, `${m.name}.json`), 'utf8')) as Record<string, unknown>;
    return {
      corpus: name,
      id: m.name,
      country: m.country,
      type: m.type,
      scanned: m.scanned,
      group: m.family,
      truth: pickTruth(j),
      pdfPath: path.join(dir, `${m.name}.pdf`),
    };
  });
}

export interface ReadLines extends DocumentLines {
  /** Time reading took (0 when it came from the cache). */
  ms: number;
  cached: boolean;
}

/** The document's lines: from the cache when `useCache` and present, else read (text layer, OCR) and, with `useCache`, stored. */
export async function documentLines(doc: CorpusDoc, ocr: () => Promise<Ocr>, useCache: boolean): Promise<ReadLines> {
  const pdf = readFileSync(doc.pdfPath);
  const file = path.join(CACHE_DIR, `${doc.corpus}-${doc.id}-${createHash('sha1').update(pdf).digest('hex').slice(0, 12)}.json`);
  if (useCache && existsSync(file)) return { ...(JSON.parse(readFileSync(file, 'utf8')) as DocumentLines), ms: 0, cached: true };
  const t0 = performance.now();
  const read = await readDocumentLines(pdf, await ocr(), { limits: EXTRACT_LIMIT_DEFAULTS });
  const ms = performance.now() - t0;
  if (useCache) {
    mkdirSync(CACHE_DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(read));
  }
  return { ...read, ms, cached: false };
}
