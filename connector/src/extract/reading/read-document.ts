/** PDF bytes -> text lines: the text layer per page, OCR for pages without one, within the document's budget. */
import { ExtractError } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import type { Line } from './lines.js';
import type { Ocr } from './ocr.js';
import { checkedPages, openPdf, toExtractError } from './open-pdf.js';
import { straightenSheet } from './perspective.js';
import { readScan } from './read-scan.js';
import { flattenLight, sharpen } from './scan-image.js';
import { OCR_DPI, OCR_TEXT_THRESHOLD, planOcrRender, renderPageGrey } from './render.js';
import { scanStreams } from './stream-scan.js';
import { readTextLines, textLength } from './text-layer.js';

export interface ExtractOptions {
  /**
   * The document's budget (limits.ts; config.ts holds the defaults, which extraction code does not
   * import: config.ts loads zod, several MB in every thread). Time and memory are the pools' to enforce.
   */
  limits: ExtractLimits;
  /** Resolution pages are rendered at for OCR (lower for pages over limits.maxPagePixels). */
  dpi?: number;
  /** Sees each page's lines as read, with the OCR confidence for a scanned page (scripts/measure-ocr.ts). */
  onPage?: (page: { n: number; lines: Line[]; ocrConfidence?: number; turned?: number; passes?: number }) => void;
}

/** A document's text as lines (each tagged with its page and whether OCR read it), before field parsing. */
export interface DocumentLines {
  lines: Line[];
  pages: number;
  ocrPages: number;
  /** Mean OCR word confidence over the OCRed pages, when there were any. */
  ocrConfidence?: number;
}

/** The text of every page: the text layer, or OCR where a page has (almost) none. Throws ExtractError as extractFields does. */
export async function readDocumentLines(pdf: Uint8Array, ocr: Ocr, options: ExtractOptions): Promise<DocumentLines> {
  const { limits } = options;
  await scanStreams(pdf, limits);
  const doc = await openPdf(pdf, limits);
  const lines: Line[] = [];
  let ocrPages = 0;
  let ocrConfSum = 0;
  let rendered = 0;
  try {
    const pages = await checkedPages(doc, limits);
    for (const [i, page] of pages.entries()) {
      const n = i + 1;
      const textLines = await readTextLines(page).catch((err: unknown) => {
        throw toExtractError(err, `text of page ${n}`);
      });
      let pageLines = textLines;
      if (textLength(pageLines) < OCR_TEXT_THRESHOLD) {
        const plan = planOcrRender(page.getViewport({ scale: 1 }), n, options.dpi ?? OCR_DPI, limits, rendered);
        rendered += plan.pixels;
        const image = await renderPageGrey(doc, page, plan.dpi).catch((err: unknown) => {
          throw new ExtractError('corrupt_pdf', `drawing page ${n}: ${err instanceof Error ? err.message : String(err)}`, {
            cause: err,
            publicMessage: `Page ${n} of the PDF could not be drawn for OCR; the file may be damaged. Upload the original PDF.`,
          });
        });
        // A phone photo shows the sheet at a slant on a table: tesseract wants it square on, without the table,
        // and sharp (a photo is a little out of focus, and the warp softens it again). Photos are lit unevenly too;
        // tesseract's one threshold for the whole page loses the darker side.
        const sheet = straightenSheet(image);
        const prepared = sheet === image ? flattenLight(image) : sharpen(flattenLight(sheet));
        const result = await readScan(prepared, ocr, (pixels) => {
          // Another pass at the page spends the document's pixel budget too: without room, the reading so far stands.
          if (rendered + pixels > limits.maxTotalPixels) return false;
          rendered += pixels;
          return true;
        });
        pageLines = result.lines;
        ocrPages++;
        ocrConfSum += result.confidence;
        options.onPage?.({ n, lines: pageLines, ocrConfidence: result.confidence, turned: result.turned, passes: result.passes });
      } else {
        options.onPage?.({ n, lines: pageLines });
      }
      const fromOcr = pageLines !== textLines;
      for (const l of pageLines) lines.push({ ...l, page: n, ...(fromOcr ? { ocr: true } : {}) });
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
  if (textLength(lines) < OCR_TEXT_THRESHOLD) {
    throw new ExtractError('no_readable_text', `only ${textLength(lines)} characters of text in ${doc.numPages} page(s)`);
  }
  const ocrConfidence = ocrPages > 0 ? ocrConfSum / ocrPages : undefined;
  return { lines, pages: doc.numPages, ocrPages, ...(ocrConfidence !== undefined ? { ocrConfidence } : {}) };
}
