/**
 * Document bytes -> text lines, within the document's budget. A PDF page is read from its text layer where
 * that layer can be trusted (text-trust.ts), with its form fields' values; a page without one, or whose
 * layer lies, is read by OCR. A JPEG or PNG upload is read as a one-page scan.
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ExtractError } from '../errors.js';
import type { ExtractLimits } from '../limits.js';
import { ocrAgrees } from './crop-check.js';
import { readFormValues } from './form-fields.js';
import { decodeImage, sniffImage } from './image-input.js';
import type { Line } from './lines.js';
import type { Ocr } from './ocr.js';
import { checkedPages, openPdf, toExtractError } from './open-pdf.js';
import { sheetAtSlant, straightenSheet } from './perspective.js';
import { readScan, type ScanReading } from './read-scan.js';
import { flattenLight, sharpen, type GreyImage } from './scan-image.js';
import { OCR_DPI, OCR_TEXT_THRESHOLD, planOcrRender, renderPageGrey } from './render.js';
import { scanStreams } from './stream-scan.js';
import { linesOfItems, readTextItems, slantedShare, stretchedShare, textLength, type PlacedItem } from './text-layer.js';
import { judgeLayer } from './text-trust.js';

export interface ExtractOptions {
  /**
   * The document's budget (limits.ts; config.ts holds the defaults, which extraction code does not
   * import: config.ts loads zod, several MB in every thread). Time and memory are the pools' to enforce.
   */
  limits: ExtractLimits;
  /** Resolution pages are rendered at for OCR (lower for pages over limits.maxPagePixels). */
  dpi?: number;
  /**
   * Sees each page's lines as read, with the OCR confidence for a scanned page (scripts/measure-ocr.ts) and,
   * for a page whose text layer was doubted, what was judged (`layer`).
   */
  onPage?: (page: { n: number; lines: Line[]; ocrConfidence?: number; turned?: number; passes?: number; layer?: string[] }) => void;
}

/** A document's text as lines (each tagged with its page and whether OCR read it), before field parsing. */
export interface DocumentLines {
  lines: Line[];
  pages: number;
  ocrPages: number;
  /** Mean OCR word confidence over the OCRed pages, when there were any. */
  ocrConfidence?: number;
}

/** Share of a page's text at a slant (text-layer.ts) from which its layer is taken for an OCR layer over a photo. */
const SLANTED_LAYER = 0.5;
/** Share of a page's text stretched to its boxes (text-layer.ts) from which its layer is taken for an OCR engine's. */
const FITTED_LAYER = 0.5;
/** Pixels on the longer side of the quick look at a page for the photo under its layer: findSheet works on 320. */
const PHOTO_LOOK = 640;
/**
 * The longer side, in pixels, a photographed sheet is read at when its photo is smaller: an A4 page at about 200
 * dpi. On the generator's photos, reading at 1.5 to 2.5 times their size read the same fields (with a threshold
 * per neighbourhood; with one threshold for the page, enlarging alone gained nothing).
 */
const PHOTO_SHEET_SIDE = 2400;
/** A photographed sheet is enlarged at most this much: beyond it, interpolation adds pixels and no detail. */
const MAX_PHOTO_SCALE = 2.5;

/** The pixels a document may still render or OCR (limits.maxTotalPixels), shared by every step that draws. */
class PixelBudget {
  rendered = 0;
  constructor(private readonly max: number) {}
  /** Spends `pixels` when there is room; false (nothing spent) when not. */
  spend = (pixels: number): boolean => {
    if (this.rendered + pixels > this.max) return false;
    this.rendered += pixels;
    return true;
  };
}

/**
 * The text of every page: the text layer, or OCR where a page has (almost) none or its layer cannot be
 * trusted; an image upload is one scanned page. Throws ExtractError as extractFields does.
 */
export async function readDocumentLines(bytes: Uint8Array, ocr: Ocr, options: ExtractOptions): Promise<DocumentLines> {
  const image = sniffImage(bytes);
  if (image) return readImageLines(await decodeImage(bytes, image, options.limits), ocr, options);
  const { limits } = options;
  await scanStreams(bytes, limits);
  const doc = await openPdf(bytes, limits);
  const budget = new PixelBudget(limits.maxTotalPixels);
  const lines: Line[] = [];
  let ocrPages = 0;
  let ocrConfSum = 0;
  try {
    const pages = await checkedPages(doc, limits);
    for (const [i, page] of pages.entries()) {
      const n = i + 1;
      const text = await readPageText(doc, page, n, ocr, budget);
      let pageLines = text.lines;
      if (!text.readable) {
        const plan = planOcrRender(page.getViewport({ scale: 1 }), n, options.dpi ?? OCR_DPI, limits, budget.rendered);
        budget.rendered += plan.pixels;
        const image = await renderPageGrey(doc, page, plan.dpi).catch((err: unknown) => {
          throw new ExtractError('corrupt_pdf', `drawing page ${n}: ${err instanceof Error ? err.message : String(err)}`, {
            cause: err,
            publicMessage: `Page ${n} of the PDF could not be drawn for OCR; the file may be damaged. Upload the original PDF.`,
          });
        });
        const result = await readScannedImage(image, ocr, budget, limits.maxPagePixels);
        pageLines = result.lines;
        ocrPages++;
        ocrConfSum += result.confidence;
        options.onPage?.({
          n,
          lines: pageLines,
          ocrConfidence: result.confidence,
          turned: result.turned,
          passes: result.passes,
          ...layerNotes(text),
        });
      } else {
        options.onPage?.({ n, lines: pageLines, ...layerNotes(text) });
      }
      for (const l of pageLines) lines.push({ ...l, page: n, ...(text.readable ? {} : { ocr: true }) });
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

const layerNotes = (text: { notes: string[] }) => (text.notes.length ? { layer: text.notes } : {});

/**
 * A page's text layer, judged: `readable` with its lines (form values placed among them) when it has
 * enough trusted text, else not, and the page is OCRed. Text of fonts judged broken is never in the lines.
 */
async function readPageText(
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  n: number,
  ocr: Ocr,
  budget: PixelBudget,
): Promise<{ readable: boolean; lines: Line[]; notes: string[] }> {
  const pdfjs = (err: unknown): never => {
    throw toExtractError(err, `text of page ${n}`);
  };
  const items = await readTextItems(page).catch(pdfjs);
  if (textLength(items) < OCR_TEXT_THRESHOLD) return { readable: false, lines: [], notes: [] };
  // Lines at a slant are a photo's, with an OCR engine's text laid over it: reading the photo ourselves
  // straightens it first, where that layer's words, one box each, no longer meet their labels on a line.
  if (slantedShare(items) >= SLANTED_LAYER)
    return { readable: false, lines: [], notes: ['text layer at a slant: an OCR layer over a photo'] };
  // An OCR engine's layer whose words lie straight may still be over a photo taken at a slant, read as it was; our own
  // reading straightens the sheet first and reads what that engine lost (a value column, a date).
  if (stretchedShare(items) >= FITTED_LAYER && (await photoAtSlant(doc, page, budget)))
    return { readable: false, lines: [], notes: ["an OCR engine's layer over a photo at a slant"] };
  const judged = await judgeLayer(items, (fontItems: PlacedItem[]) => ocrAgrees(doc, page, fontItems, ocr, budget.spend));
  const kept = judged.kept;
  if (judged.unreadable || textLength(kept) < OCR_TEXT_THRESHOLD) {
    return { readable: false, lines: [], notes: judged.notes };
  }
  const formValues = await readFormValues(page, kept).catch(pdfjs);
  return { readable: true, lines: linesOfItems([...kept, ...formValues]), notes: judged.notes };
}

/** True when the page, drawn small, is a photo of a sheet lying at a slant; false too when the budget has no room to look. */
async function photoAtSlant(doc: PDFDocumentProxy, page: PDFPageProxy, budget: PixelBudget): Promise<boolean> {
  const { width, height } = page.getViewport({ scale: 1 });
  const dpi = (72 * PHOTO_LOOK) / Math.max(width, height, 1);
  if (!budget.spend(Math.ceil((width * dpi) / 72) * Math.ceil((height * dpi) / 72))) return false;
  // A page that cannot be drawn keeps its layer here; reading it by OCR would fail the same way.
  const image = await renderPageGrey(doc, page, dpi).catch(() => null);
  return !!image && sheetAtSlant(image);
}

/** A JPEG or PNG upload: one page, read as a scan. */
async function readImageLines(image: GreyImage, ocr: Ocr, options: ExtractOptions): Promise<DocumentLines> {
  const budget = new PixelBudget(options.limits.maxTotalPixels);
  budget.spend(image.width * image.height);
  const result = await readScannedImage(image, ocr, budget, options.limits.maxPagePixels);
  options.onPage?.({ n: 1, lines: result.lines, ocrConfidence: result.confidence, turned: result.turned, passes: result.passes });
  const lines = result.lines.map((l) => ({ ...l, page: 1, ocr: true }));
  if (textLength(lines) < OCR_TEXT_THRESHOLD) {
    throw new ExtractError('no_readable_text', `only ${textLength(lines)} characters of text in the image`, {
      publicMessage: 'No text could be read from the image. Send a sharper photo, taken square on, or the original PDF.',
    });
  }
  return { lines, pages: 1, ocrPages: 1, ocrConfidence: result.confidence };
}

/**
 * OCR of a page image. A phone photo shows the sheet at a slant on a table: tesseract wants it square on,
 * without the table, and sharp (a photo is a little out of focus, and the warp softens it again). Photos are
 * lit unevenly too; tesseract's one threshold for the whole page loses the darker side. A photo's sheet is
 * also small: a sent photo's page is some 1,000 by 1,400 pixels, 120 dpi, where soft small print breaks up; it
 * is warped at a size near PHOTO_SHEET_SIDE and read with a threshold per neighbourhood (ocr.ts). Another pass
 * at the page (to turn it) spends the document's pixel budget: without room, the reading so far stands.
 */
function readScannedImage(image: GreyImage, ocr: Ocr, budget: PixelBudget, maxPagePixels: number): Promise<ScanReading> {
  const enlarge = (width: number, height: number): number =>
    Math.max(1, Math.min(MAX_PHOTO_SCALE, PHOTO_SHEET_SIDE / Math.max(width, height), Math.sqrt(maxPagePixels / (width * height))));
  const sheet = straightenSheet(image, enlarge);
  if (sheet === image) return readScan(flattenLight(image), ocr, budget.spend);
  return readScan(sharpen(flattenLight(sheet)), ocr, budget.spend, { photo: true });
}
