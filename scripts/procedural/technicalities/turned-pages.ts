/**
 * Pages stored turned. `upright`: the content is drawn rotated in a page whose /Rotate turns it back, so a
 * viewer shows the page as drawn (a landscape form stored as a portrait page, a scanner's saved rotation);
 * a reader that ignores /Rotate sees every line as a column. `sideways`: the same content and no /Rotate, a
 * page built rotated, which a viewer shows on its side.
 */
import { PDFArray, PDFDocument, PDFName, PDFNumber, type PDFRef } from 'pdf-lib';

export type Turn = 90 | 180 | 270;

/** Every page of `pdf` turned by `turn` degrees clockwise in storage, shown `upright` or `sideways`. */
export async function turnPages(pdf: Uint8Array, turn: Turn, shown: 'upright' | 'sideways' = 'upright'): Promise<Uint8Array> {
  const doc = await PDFDocument.load(pdf);
  for (const page of doc.getPages()) {
    const { width: w, height: h } = page.getSize();
    // The matrix takes a point of the page as drawn to where it lies on the stored page, which /Rotate
    // (clockwise) brings back: 90 -> (x, y) to (h - y, x) on an h x w page, and so on.
    const matrix: Record<Turn, number[]> = { 90: [0, 1, -1, 0, h, 0], 180: [-1, 0, 0, -1, w, h], 270: [0, -1, 1, 0, 0, w] };
    const stored = turn === 180 ? [w, h] : [h, w];
    const before = doc.context.register(doc.context.flateStream(`q ${matrix[turn].join(' ')} cm\n`));
    const after = doc.context.register(doc.context.flateStream('\nQ\n'));
    const contents = page.node.get(PDFName.of('Contents'));
    const parts: PDFRef[] = [];
    const existing = contents ? doc.context.lookup(contents) : undefined;
    if (existing instanceof PDFArray) for (let i = 0; i < existing.size(); i++) parts.push(existing.get(i) as PDFRef);
    else if (contents) parts.push(contents as PDFRef);
    page.node.set(PDFName.of('Contents'), doc.context.obj([before, ...parts, after]));
    page.node.set(PDFName.of('MediaBox'), doc.context.obj([0, 0, stored[0]!, stored[1]!]));
    page.node.delete(PDFName.of('CropBox'));
    if (shown === 'upright') page.node.set(PDFName.of('Rotate'), PDFNumber.of(turn));
    else page.node.delete(PDFName.of('Rotate'));
  }
  return doc.save({ useObjectStreams: false });
}
