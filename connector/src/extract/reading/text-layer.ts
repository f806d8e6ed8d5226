/** Reads a PDF page's text layer with pdf.js and rebuilds reading-order lines (items grouped by baseline, sorted by x). */
import type { PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { linesFromBoxes, type Line, type WordBox } from './lines.js';

/** The page's text as lines, top to bottom; empty when the page has no text layer (a scan). */
export async function readTextLines(page: PDFPageProxy): Promise<Line[]> {
  const content = await page.getTextContent();
  const viewport = page.getViewport({ scale: 1 });
  const boxes: WordBox[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const it = item as TextItem;
    if (!it.str.trim()) continue;
    const [, , , d, e, f] = it.transform as number[];
    const height = Math.abs(d ?? 0) || it.height || 10;
    // pdf.js coordinates grow upwards; lines.ts expects a top-down y.
    boxes.push({ text: it.str, x0: e ?? 0, x1: (e ?? 0) + it.width, y: viewport.height - (f ?? 0), height });
  }
  return linesFromBoxes(boxes);
}

/** Characters of real text on a page, to decide whether it needs OCR. */
export function textLength(lines: Line[]): number {
  return lines.reduce((n, l) => n + l.text.replace(/\s+/g, '').length, 0);
}
