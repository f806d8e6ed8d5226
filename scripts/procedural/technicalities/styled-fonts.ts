/**
 * Other fonts and print sizes: the drawing in one of the standard families (Helvetica, Times, Courier), its text
 * shrunk to small print, and its headings white on a dark bar, as schedules and certificates print them. The text
 * layer stays true; what changes is what OCR and layout see.
 */
import { PDFDocument } from 'pdf-lib';
import { addRawPage, textWidth, winAnsiHex, type Drawing, type DrawnText } from './drawing.js';

export type FontFamily = 'helvetica' | 'times' | 'courier';

export interface PrintStyle {
  family: FontFamily;
  /** Every run's size times this (0.7 turns 10 pt print into 7 pt). */
  scale: number;
  /** Bold runs of 11 pt and more (titles, table headers) white on a dark bar. */
  darkHeadings: boolean;
}

const BASE: Record<FontFamily, [string, string]> = {
  helvetica: ['Helvetica', 'Helvetica-Bold'],
  times: ['Times-Roman', 'Times-Bold'],
  courier: ['Courier', 'Courier-Bold'],
};

/** Approximate advance of a run: Helvetica's metrics, Times a little narrower, Courier a fixed 0.6 em. */
function width(t: DrawnText, family: FontFamily, size: number): number {
  if (family === 'courier') return 0.6 * size * [...t.text].length;
  return textWidth(t.text, size, t.bold) * (family === 'times' ? 0.9 : 1);
}

/** The drawing as a text PDF in `style`. */
export async function drawStyled(drawing: Drawing, style: PrintStyle): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const [regular, bold] = BASE[style.family].map((base) =>
    doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: base, Encoding: 'WinAnsiEncoding' })),
  );
  for (const page of drawing.pages) {
    let content = '';
    for (const t of page.texts) {
      const size = Math.round(t.size * style.scale * 10) / 10;
      const font = t.bold ? 'SB' : 'SR';
      const show = `BT /${font} ${size} Tf ${t.x} ${t.y} Td <${winAnsiHex(t.text)}> Tj ET\n`;
      if (style.darkHeadings && t.bold && t.size >= 11) {
        const w = width(t, style.family, size);
        content += `q 0.18 g ${t.x - 4} ${t.y - 0.35 * size} ${w + 8} ${1.4 * size} re f 1 g ${show}Q\n`;
      } else content += show;
    }
    addRawPage(doc, page, content, { fonts: { SR: regular!, SB: bold! } });
  }
  return doc.save({ useObjectStreams: false });
}
