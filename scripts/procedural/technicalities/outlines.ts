/**
 * Text as vector outlines: every glyph drawn as a filled path, no font and no text layer, as design tools and
 * some print drivers export a page ("convert text to outlines"). A reader finds nothing to extract and must OCR.
 */
import { PDFDocument } from 'pdf-lib';
import { addRawPage, fontFor, type Drawing, type DrawnText } from './drawing.js';

const paths = new Map<string, string>();

/** One glyph's outline in font units, read once per character and weight. */
function glyphPath(ch: string, bold: boolean): { path: string; advance: number } {
  const font = fontFor(bold);
  const id = font.glyphId(ch.codePointAt(0)!);
  const key = `${bold ? 'b' : 'r'}${id}`;
  const glyph = font.glyph(id);
  if (!paths.has(key)) paths.set(key, glyph.path);
  return { path: paths.get(key)!, advance: glyph.advance };
}

function outlineOps(t: DrawnText): string {
  const font = fontFor(t.bold);
  const scale = t.size / font.unitsPerEm;
  let x = t.x;
  let out = '';
  for (const ch of t.text) {
    const g = glyphPath(ch, !!t.bold);
    if (g.path) out += `q ${scale.toFixed(5)} 0 0 ${scale.toFixed(5)} ${x.toFixed(2)} ${t.y} cm\n${g.path}f Q\n`;
    x += g.advance * scale;
  }
  return out;
}

/** The drawing with every run of text drawn as outlines. */
export async function drawAsOutlines(drawing: Drawing): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const page of drawing.pages) addRawPage(doc, page, page.texts.map(outlineOps).join(''));
  return doc.save({ useObjectStreams: false });
}
