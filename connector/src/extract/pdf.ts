/** Opens a PDF with pdf.js in Node (legacy build, no font faces, no eval) and maps its failures to ExtractError codes. */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { getDocument, GlobalWorkerOptions, type PDFDocumentProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { ExtractError } from './errors.js';

/** A policy is a few pages; more than this is refused before any page is read. */
export const MAX_PAGES = 20;

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
 */
export async function openPdf(pdf: Uint8Array, maxPages = MAX_PAGES): Promise<PDFDocumentProxy> {
  // pdf.js may detach the buffer it is given; hand it a copy so the caller's Buffer stays usable.
  const data = new Uint8Array(pdf);
  const task = getDocument({
    data,
    disableFontFace: true,
    isEvalSupported: false,
    useSystemFonts: false,
    standardFontDataUrl: STANDARD_FONTS,
    verbosity: 0,
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
  if (doc.numPages > maxPages) {
    await doc.destroy();
    throw new ExtractError('too_many_pages', `PDF has ${doc.numPages} pages, the limit is ${maxPages}`);
  }
  if (doc.numPages < 1) {
    await doc.destroy();
    throw new ExtractError('corrupt_pdf', 'PDF has no pages');
  }
  return doc;
}

/** pdf.js error -> ExtractError. pdf.js marks its exceptions by `name`, which also survives its worker boundary. */
export function toExtractError(err: unknown): ExtractError {
  const name = typeof err === 'object' && err !== null ? String((err as { name?: unknown }).name) : '';
  const message = err instanceof Error ? err.message : String(err);
  if (name === 'PasswordException') return new ExtractError('encrypted_pdf', `pdf.js: ${message}`, { cause: err });
  return new ExtractError('corrupt_pdf', `pdf.js ${name || 'error'}: ${message}`, { cause: err });
}
