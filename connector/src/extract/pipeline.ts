/** PDF bytes -> ExtractedFields: text layer per page, OCR for pages without one, then field parsing. */
import type { TExtractedFields } from '../../../shared/job.js';
import { ExtractError } from './errors.js';
import { extractFieldsFromLines, type InsurerMatcher, type Language } from './fields.js';
import type { Line } from './lines.js';
import type { Ocr } from './ocr.js';
import { MAX_PAGES, openPdf } from './pdf.js';
import { OCR_DPI, OCR_TEXT_THRESHOLD, renderPageForOcr } from './render.js';
import { readTextLines, textLength } from './text-layer.js';

export interface ExtractDeps {
  ocr: Ocr;
  matcher: InsurerMatcher;
}

export interface ExtractOptions {
  maxPages?: number;
  /** Resolution pages are rendered at for OCR. */
  dpi?: number;
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
 * `too_many_pages`, or `no_readable_text` when neither text layer nor OCR yields any text.
 */
export async function extractFields(pdf: Uint8Array, deps: ExtractDeps, options: ExtractOptions = {}): Promise<ExtractResult> {
  const doc = await openPdf(pdf, options.maxPages ?? MAX_PAGES);
  const pages = doc.numPages;
  const lines: Line[] = [];
  let ocrPages = 0;
  let ocrConfSum = 0;
  try {
    for (let n = 1; n <= pages; n++) {
      const page = await doc.getPage(n);
      let pageLines: Line[];
      try {
        pageLines = await readTextLines(page);
      } catch (err) {
        throw new ExtractError('corrupt_pdf', `page ${n}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
      }
      if (textLength(pageLines) < OCR_TEXT_THRESHOLD) {
        const image = await renderPageForOcr(doc, page, options.dpi ?? OCR_DPI);
        const result = await deps.ocr.recognize(image);
        pageLines = result.lines;
        ocrPages++;
        ocrConfSum += result.confidence;
      }
      lines.push(...pageLines);
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  if (textLength(lines) < OCR_TEXT_THRESHOLD) {
    throw new ExtractError('no_readable_text', `only ${textLength(lines)} characters of text in ${pages} page(s)`);
  }
  const ocrConfidence = ocrPages > 0 ? ocrConfSum / ocrPages : undefined;
  const { fields, language } = extractFieldsFromLines({ lines, ...(ocrConfidence !== undefined ? { ocrConfidence } : {}) }, deps.matcher);
  return { fields, pages, ocrPages, ...(language ? { language } : {}) };
}
