/**
 * A quick OCR of a crop of a page, to settle whether a font's text layer says what the page shows: one text
 * item rendered at twice the OCR resolution, a few hundred by a few dozen pixels, read in well under a second.
 */
import type { PDFDocumentProxy, PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { Ocr } from './ocr.js';
import { OCR_DPI, renderPageGrey } from './render.js';
import { rotate, toPgm, type QuarterTurn } from './scan-image.js';
import type { PlacedItem } from './text-layer.js';
import { fold } from './text-trust.js';

/** Share of characters OCR and the layer must have in common (by edit distance) to agree. */
const AGREEMENT = 0.6;
/** Items tried before OCR is taken to have read nothing. */
const TRIES = 2;

/**
 * True when OCR reads the text of `items` (the longest, then the next) as the layer says it, false when it
 * reads something else, null when it reads nothing or `mayRender(pixels)` refuses the crop.
 */
export async function ocrAgrees(
  doc: PDFDocumentProxy,
  page: PDFPageProxy,
  items: readonly PlacedItem[],
  ocr: Ocr,
  mayRender: (pixels: number) => boolean,
): Promise<boolean | null> {
  const candidates = [...items].sort((a, b) => alnum(b.text).length - alnum(a.text).length).slice(0, TRIES);
  for (const item of candidates) {
    const said = alnum(item.text);
    if (said.length < 3) break;
    const m = 0.5 * item.height;
    const region = [item.box[0] - m, item.box[1] - m, item.box[2] + m, item.box[3] + m] as const;
    const dpi = 2 * OCR_DPI;
    const pixels = Math.ceil((((region[2] - region[0]) * dpi) / 72) * (((region[3] - region[1]) * dpi) / 72));
    if (!mayRender(pixels)) return null;
    // A page that cannot be drawn says nothing here; reading it by OCR then fails with the reason.
    const image = await renderPageGrey(doc, page, dpi, region).catch(() => null);
    if (!image) return null;
    const upright = rotate(image, ((360 - item.direction) % 360) as QuarterTurn);
    const read = alnum((await ocr.recognize(toPgm(upright))).lines.map((l) => l.text).join(''));
    if (read.length === 0) continue;
    return similarity(said, read) >= AGREEMENT;
  }
  return null;
}

/** Letters and digits only, folded: what OCR and a text layer are compared on. */
function alnum(text: string): string {
  return fold(text).replace(/[^\p{L}\p{N}]/gu, '');
}

/** 1 - edit distance / length of the longer string. */
function similarity(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = row;
  }
  return 1 - prev[b.length]! / Math.max(a.length, b.length, 1);
}
