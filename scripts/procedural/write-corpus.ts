/**
 * Writes procedural documents (pdf-documents.ts) to a folder: `<seed>.pdf` (or `.jpg`, `.png`) with its truth
 * `<seed>.json` beside it, and `manifest.json` listing them all. A document already in the folder with the same
 * truth and generator version is kept, so a folder fills in when asked for more and OCR layers are made once.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  GENERATOR_VERSION,
  proceduralDocument,
  renderProcedural,
  type ProceduralDocument,
  type ProceduralOptions,
} from './pdf-documents.js';

export interface ManifestEntry {
  file: string;
  generator: number;
  seed: number;
  split: ProceduralDocument['split'];
  technicality: ProceduralDocument['technicality'];
  variant: string;
  layout: string;
  language: string;
  country: string;
  scanned: boolean;
  negative?: string;
}

export type Truth = ProceduralDocument['truth'] & Omit<ManifestEntry, 'file'>;

/** Writes the documents of `seeds` to `dir`; `onDocument` hears of each as it is written (or found). */
export async function writeProceduralCorpus(
  dir: string,
  seeds: readonly number[],
  options: ProceduralOptions = {},
  onDocument?: (entry: ManifestEntry, made: boolean) => void,
): Promise<ManifestEntry[]> {
  mkdirSync(dir, { recursive: true });
  const manifest: ManifestEntry[] = [];
  for (const seed of seeds) {
    const doc = proceduralDocument(seed, options);
    const meta = {
      generator: GENERATOR_VERSION,
      seed,
      split: doc.split,
      technicality: doc.technicality,
      variant: doc.variant,
      layout: doc.layout,
      language: doc.language,
      country: doc.country,
      scanned: doc.scanned,
      ...(doc.negative ? { negative: doc.negative } : {}),
    };
    const truth: Truth = { ...doc.truth, ...meta };
    const json = path.join(dir, `${seed}.json`);
    const known = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as Truth & { file?: string }) : null;
    let file = known?.file;
    const made = !(
      known &&
      file &&
      existsSync(path.join(dir, file)) &&
      JSON.stringify({ ...known, file: undefined }) === JSON.stringify({ ...truth, file: undefined })
    );
    if (made) {
      const rendered = await renderProcedural(doc);
      file = `${seed}.${rendered.ext}`;
      writeFileSync(path.join(dir, file), rendered.bytes);
      writeFileSync(json, `${JSON.stringify({ ...truth, file }, null, 1)}\n`);
    }
    const entry = { file: file!, ...meta };
    manifest.push(entry);
    onDocument?.(entry, made);
  }
  writeFileSync(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}
