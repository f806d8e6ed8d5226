/** PDF bytes -> ExtractedFields: the document's pages read (reading/), then its fields found in their lines (fields/). */
import type { TExtractedFields } from '../../../shared/job.js';
import { findCoverage } from './fields/coverage.js';
import { extractFieldsFromLines, type InsurerMatcher, type Language } from './fields/document-fields.js';
import type { Ocr } from './reading/ocr.js';
import { readDocumentLines, type DocumentLines, type ExtractOptions } from './reading/read-document.js';

export interface ExtractDeps {
  ocr: Ocr;
  matcher: InsurerMatcher;
}

export interface ExtractResult {
  fields: TExtractedFields;
  pages: number;
  /** Pages that had no usable text layer and were OCRed. */
  ocrPages: number;
  language?: Language;
}

/**
 * Extracts the contract fields from a policy PDF. Throws ExtractError: `corrupt_pdf`, `encrypted_pdf`,
 * `too_many_pages`, `over_limit` (a limit of the budget, checked before the step it pays for), or
 * `no_readable_text` when neither text layer nor OCR yields any text. Whatever pdf.js or the canvas
 * throws while reading the document is the document's: it becomes `corrupt_pdf`, never a crash.
 */
export async function extractFields(pdf: Uint8Array, deps: ExtractDeps, options: ExtractOptions): Promise<ExtractResult> {
  const read = await readDocumentLines(pdf, deps.ocr, options);
  const { fields, language } = fieldsFromLines(read, deps.matcher);
  return { fields, pages: read.pages, ocrPages: read.ocrPages, ...(language ? { language } : {}) };
}

/**
 * The fields and coverage details of a document's lines: what extractFields does after reading. Its own
 * function so the evals can score cached lines (scripts/extract-eval/corpora.ts) exactly as an upload is read.
 */
export function fieldsFromLines(
  read: Pick<DocumentLines, 'lines' | 'ocrConfidence'>,
  matcher: InsurerMatcher,
): { fields: TExtractedFields; language?: Language } {
  const { lines, ocrConfidence } = read;
  const { fields, language } = extractFieldsFromLines({ lines, ...(ocrConfidence !== undefined ? { ocrConfidence } : {}) }, matcher);
  const coverage = findCoverage({ lines, type: fields.insurance_type, start: fields.start_date, end: fields.end_date, ocrConfidence });
  if (coverage) fields.coverage = coverage;
  return { fields, ...(language ? { language } : {}) };
}
