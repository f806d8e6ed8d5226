/** Opens a PDF with pdf.js in Node (legacy build, no font faces, no eval) and maps its failures to ExtractError codes. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ExtractError } from '../errors.js';
import { count, overLimit, type ExtractLimits } from '../limits.js';

const require = createRequire(import.meta.url);
const PDFJS_DIR = path.dirname(require.resolve('pdfjs-dist/package.json'));
/** pdf.js reads these when a PDF uses the 14 standard fonts without embedding them (needed to render, not to read text). */
const STANDARD_FONTS = path.join(PDFJS_DIR, 'standard_fonts') + path.sep;

// In Node pdf.js runs its "worker" in-process (a fake worker it imports from workerSrc); point it at the
// local file so it never depends on a path relative to a bundle.
GlobalWorkerOptions.workerSrc = pathToFileURL(path.join(PDFJS_DIR, 'legacy', 'build', 'pdf.worker.mjs')).href;

/**
 * Opens `pdf` and returns the document. Throws ExtractError `corrupt_pdf`, `encrypted_pdf` or
 * `too_many_pages` (when it has more than `maxPages`). The caller must `destroy()` the document.
 * pdf.js leaves out any image above `maxImagePixels` without decoding it ("Images above this value
 * will not be rendered", getDocument's maxImageSize in pdfjs-dist's types/src/display/api.d.ts; its
 * evaluator checks width * height before it decodes): the bound for images whose size
 * stream-scan.ts could not read.
 */
export async function openPdf(pdf: Uint8Array, limits: Pick<ExtractLimits, 'maxPages' | 'maxImagePixels'>): Promise<PDFDocumentProxy> {
  // pdf.js may detach the buffer it is given; hand it a copy so the caller's Buffer stays usable.
  const data = new Uint8Array(pdf);
  const task = getDocument({
    data,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: STANDARD_FONTS,
    verbosity: 0,
    maxImageSize: limits.maxImagePixels,
    // An encrypted file would otherwise sit waiting for a password callback that never comes.
    password: '',
  });
  let doc: PDFDocumentProxy;
  try {
    doc = await task.promise;
  } catch (err) {
    await task.destroy().catch(() => undefined);
    throw toExtractError(err);
  }
  if (doc.numPages > limits.maxPages) {
    await doc.destroy();
    const message = `The PDF has ${count(doc.numPages)} pages; the limit is ${limits.maxPages}. Upload only the policy schedule or certificate.`;
    throw new ExtractError('too_many_pages', message, { publicMessage: message });
  }
  if (doc.numPages < 1) {
    await doc.destroy();
    throw new ExtractError('corrupt_pdf', 'PDF has no pages');
  }
  return doc;
}

/**
 * Every page of `doc`, after checking each one's size against the limits: pdf.js reads a page's
 * dictionary here, not its content, so a document of huge pages is refused before any is drawn.
 * A page pdf.js cannot find (a page tree that loops, a missing page) makes the document corrupt_pdf.
 */
export async function checkedPages(
  doc: PDFDocumentProxy,
  limits: Pick<ExtractLimits, 'maxPageAreaPt2' | 'maxTotalAreaPt2'>,
): Promise<PDFPageProxy[]> {
  const pages: PDFPageProxy[] = [];
  let total = 0;
  for (let n = 1; n <= doc.numPages; n++) {
    const page = await doc.getPage(n).catch((err: unknown) => {
      throw toExtractError(err, `page ${n}`);
    });
    // At scale 1 a viewport is in points, after the page's UserUnit and rotation.
    const { width, height } = page.getViewport({ scale: 1 });
    const area = width * height;
    if (area > limits.maxPageAreaPt2) {
      throw overLimit(
        `Page ${n} is ${count(width)} x ${count(height)} pt (${count(area)} pt²); the limit is ${count(limits.maxPageAreaPt2)} pt² per page (A0 is 2,384 x 3,370 pt).`,
      );
    }
    total += area;
    if (total > limits.maxTotalAreaPt2) {
      throw overLimit(
        `Pages 1 to ${n} measure ${count(total)} pt² together; the limit is ${count(limits.maxTotalAreaPt2)} pt² per document.`,
      );
    }
    pages.push(page);
  }
  return pages;
}

/** pdf.js error -> ExtractError. pdf.js marks its exceptions by `name`, which also survives its worker boundary. */
export function toExtractError(err: unknown, where = 'document'): ExtractError {
  const name = typeof err === 'object' && err !== null ? String((err as { name?: unknown }).name) : '';
  const message =
    typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string'
      ? (err as { message: string }).message
      : String(err);
  if (name === 'PasswordException') return new ExtractError('encrypted_pdf', `pdf.js: ${message}`, { cause: err });
  return new ExtractError('corrupt_pdf', `pdf.js ${name || 'error'} (${where}): ${message}`, { cause: err });
}
