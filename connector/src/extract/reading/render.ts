/** Renders a PDF page to PNG bytes for OCR of pages without a text layer, within the document's pixel budget. */
import { AnnotationMode, type PDFDocumentProxy, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { count, overLimit, type ExtractLimits } from '../limits.js';
import { toPgm, type GreyImage } from './scan-image.js';

/**
 * A page with fewer text-layer characters than this is treated as a scan and OCRed. Real text pages
 * carry hundreds of characters; scanners sometimes add a few (a page number, an invisible stamp).
 */
export const OCR_TEXT_THRESHOLD = 20;

/**
 * 150 dpi: on the corpus it reads scans better than 200 dpi (99.2% of fields against 96.2%: the scans
 * themselves are lower resolution, and upsampling them only enlarges their noise), faster, and with a
 * smaller peak memory (682 MB against 792 MB in npm run eval:extract).
 */
export const OCR_DPI = 150;

/** Canvas size of a `width` x `height` pt page at `dpi`, as withRenderedPage makes it. */
function canvasPixels(width: number, height: number, dpi: number): number {
  return Math.ceil((width * dpi) / 72) * Math.ceil((height * dpi) / 72);
}

/**
 * The resolution page `n` (`width` x `height` pt) is rendered at for OCR, decided before any canvas
 * exists: `dpi`, or lower for a page that would pass maxPagePixels (by default larger than A3 at 150 dpi;
 * nearly always a photo or scan written at one point per pixel, whose A4 sheet still gets 150-250 dpi). Throws `over_limit`
 * when the page would take the document's rendered pixels, `renderedBefore` so far, past maxTotalPixels.
 */
export function planOcrRender(
  page: { width: number; height: number },
  n: number,
  dpi: number,
  limits: Pick<ExtractLimits, 'maxPagePixels' | 'maxTotalPixels'>,
  renderedBefore: number,
): { dpi: number; pixels: number } {
  let at = dpi;
  if (canvasPixels(page.width, page.height, at) > limits.maxPagePixels) {
    at = 72 * Math.sqrt(limits.maxPagePixels / (page.width * page.height));
    // Rounding each side up may still pass the limit by a row or a column.
    while (at > 0 && canvasPixels(page.width, page.height, at) > limits.maxPagePixels) at *= 0.999;
  }
  const pixels = canvasPixels(page.width, page.height, at);
  if (renderedBefore + pixels > limits.maxTotalPixels) {
    throw overLimit(
      `Reading page ${n} by OCR would bring the pixels rendered for this document to ${count(renderedBefore + pixels)}; the limit is ${count(limits.maxTotalPixels)} per document. Upload only the pages of the policy schedule or certificate.`,
    );
  }
  return { dpi: at, pixels };
}

interface NodeCanvas {
  width: number;
  height: number;
  toBuffer(mime: 'image/png'): Buffer;
}
interface NodeContext {
  getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray };
}
interface CanvasAndContext {
  canvas: NodeCanvas;
  context: NodeContext;
}

/**
 * Renders `page` of `doc` at `dpi` onto a white canvas and hands it to `read`; `region` (points from the
 * top left of the page as shown: x0, y0, x1, y1) renders only that part. The canvas comes from
 * the document's own canvas factory: pdf.js ships its own @napi-rs/canvas copy and polyfills Path2D
 * from it, and a canvas from another copy rejects those paths ("not a valid enum value of type
 * CanvasFillRule").
 */
async function withRenderedPage<T>(
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  dpi: number,
  read: (target: CanvasAndContext) => T,
  region?: readonly [number, number, number, number],
): Promise<T> {
  const scale = dpi / 72;
  const viewport = region
    ? page.getViewport({ scale, offsetX: -region[0] * scale, offsetY: -region[1] * scale })
    : page.getViewport({ scale });
  const width = region ? (region[2] - region[0]) * scale : viewport.width;
  const height = region ? (region[3] - region[1]) * scale : viewport.height;
  const factory = doc.canvasFactory as { create(w: number, h: number): CanvasAndContext; destroy(c: CanvasAndContext): void };
  const target = factory.create(Math.max(1, Math.ceil(width)), Math.max(1, Math.ceil(height)));
  try {
    // background: pdf.js paints white first, so transparent areas do not OCR as black. Annotations are drawn
    // as a viewer shows them, form fields with their values included: OCR reads what a person sees.
    await page.render({
      canvasContext: target.context as never,
      canvas: null,
      viewport,
      background: 'rgb(255,255,255)',
      annotationMode: AnnotationMode.ENABLE,
    }).promise;
    return read(target);
  } finally {
    factory.destroy(target);
  }
}

/** Renders a page to PNG bytes (the corpus script makes its scans from these). */
export function renderPage(doc: PDFDocumentProxy, page: PDFPageProxy, dpi = OCR_DPI): Promise<Buffer> {
  return withRenderedPage(doc, page, dpi, (t) => t.canvas.toBuffer('image/png'));
}

/**
 * Renders a page for OCR as an 8-bit greyscale PGM (binary PNM, which tesseract's Leptonica reads
 * natively). Tesseract greys every image before it reads it, so the text it reads is the same as
 * from a colour PNG (checked on the corpus scans), but nothing is PNG-encoded here or decoded in
 * the WASM heap, and the page there is 8 bits a pixel instead of 32: measured on four scans, 28%
 * less time per page and a peak RSS 30 MB lower that no longer grows page after page.
 */
export async function renderPageForOcr(doc: PDFDocumentProxy, page: PDFPageProxy, dpi = OCR_DPI): Promise<Buffer> {
  return toPgm(await renderPageGrey(doc, page, dpi));
}

/**
 * Renders a page, or the `region` of it (points from the top left of the page as shown), as 8-bit greyscale
 * pixels (the same luma as renderPageForOcr), for the steps before OCR.
 */
export function renderPageGrey(
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  dpi = OCR_DPI,
  region?: readonly [number, number, number, number],
): Promise<GreyImage> {
  return withRenderedPage(
    doc,
    page,
    dpi,
    ({ canvas, context }) => ({
      width: canvas.width,
      height: canvas.height,
      data: rgbaToGrey(context.getImageData(0, 0, canvas.width, canvas.height).data),
    }),
    region,
  );
}

/** RGBA pixels -> one luma byte per pixel, by the ITU-R BT.601 weights (77/150/29 of 256). */
function rgbaToGrey(rgba: Uint8ClampedArray | Uint8Array): Uint8Array {
  const out = new Uint8Array(rgba.length >> 2);
  for (let i = 0, j = 0; i < rgba.length; i += 4, j++) out[j] = (rgba[i]! * 77 + rgba[i + 1]! * 150 + rgba[i + 2]! * 29) >> 8;
  return out;
}

/** RGBA pixels -> binary PGM, luma by the ITU-R BT.601 weights (77/150/29 of 256). */
export function rgbaToPgm(rgba: Uint8ClampedArray | Uint8Array, width: number, height: number): Buffer {
  if (rgba.length !== width * height * 4) throw new RangeError(`expected ${width * height * 4} RGBA bytes, got ${rgba.length}`);
  return toPgm({ width, height, data: rgbaToGrey(rgba) });
}
