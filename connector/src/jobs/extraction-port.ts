/** What the job queue needs from PDF extraction; extract/running/connector-extraction.ts adapts the extraction pool to it. */
import type { TExtractedFields } from '../../../shared/job.js';

export type ExtractionOutcome =
  | { ok: true; fields: TExtractedFields; pages: number; ocrPages: number }
  /** The document can't be read (corrupt, encrypted, no readable text, too many pages). */
  | { ok: false; code: string; message: string };

export interface Extractor {
  extract(pdf: Buffer): Promise<ExtractionOutcome>;
  /** True when the pool's queue is full: callers should come back later rather than pile on. */
  busy(): boolean;
}
