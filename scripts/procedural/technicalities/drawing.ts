/**
 * A document as a drawing: pages of positioned text runs, each marked as a field's label, its value or
 * neither. A generator describes a document once this way; each technicality turns a drawing (or the PDF
 * drawn from it) into the PDF as it really arrives: a lying font, a form, a turned page, a scan.
 */
import { PDFDocument, PDFHexString, PDFName, type PDFRef } from 'pdf-lib';
import { liberationSans, type TrueTypeFont } from './truetype.js';

/** A form control a value can sit in when the document is a fillable form. */
export type Control = { kind: 'text' } | { kind: 'comb'; cells: number } | { kind: 'choice'; options: string[] } | { kind: 'check' };

export interface DrawnText {
  text: string;
  /** Baseline start in PDF points, y up from the bottom of the page. */
  x: number;
  y: number;
  size: number;
  bold?: boolean;
  /** 'value': a field's value, what a form would hold; 'label': the printed words naming it. */
  role?: 'label' | 'value';
  /** The value's field, as a form author who names fields well would name it ("policy_number"). */
  field?: string;
  /** The control a value sits in on a fillable form; a plain text field when absent. */
  control?: Control;
}

export interface DrawnPage {
  width: number;
  height: number;
  texts: DrawnText[];
}

export interface Drawing {
  pages: DrawnPage[];
}

let metrics: { regular: TrueTypeFont; bold: TrueTypeFont } | null = null;
/** Liberation Sans: the metrics of Helvetica and Arial, and the outlines the lying fonts embed. */
export function fontFor(bold = false): TrueTypeFont {
  metrics ??= { regular: liberationSans(false), bold: liberationSans(true) };
  return bold ? metrics.bold : metrics.regular;
}

/** Width of `text` at `size` pt in Helvetica's metrics. */
export function textWidth(text: string, size: number, bold = false): number {
  const font = fontFor(bold);
  let units = 0;
  for (const ch of text) units += font.glyph(font.glyphId(ch.codePointAt(0)!)).advance;
  return (units * size) / font.unitsPerEm;
}

/** WinAnsiEncoding's characters outside Latin-1 that documents print: dashes, quotes, bullet, ellipsis, euro. */
const WIN_ANSI_EXTRA: Record<number, number> = {
  0x20ac: 0x80,
  0x2013: 0x96,
  0x2014: 0x97,
  0x2018: 0x91,
  0x2019: 0x92,
  0x201c: 0x93,
  0x201d: 0x94,
  0x2022: 0x95,
  0x2026: 0x85,
};

/** WinAnsiEncoding of `text` (Latin-1, the euro sign, dashes and curly quotes) as a hex string body; other characters become '?'. */
export function winAnsiHex(text: string): string {
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const code = WIN_ANSI_EXTRA[cp] ?? (cp < 0x100 && (cp >= 0x20 || cp === 9) ? cp : 0x3f);
    out += code.toString(16).padStart(2, '0');
  }
  return out;
}

/** Font resource names of the plain drawing's two standard fonts. */
export const PLAIN_FONTS = { regular: 'Helv', bold: 'HeBo' } as const;

/** Adds Helvetica and Helvetica-Bold (WinAnsi) to `doc` as unembedded standard fonts. */
export function standardFonts(doc: PDFDocument): { regular: PDFRef; bold: PDFRef } {
  const font = (base: string): PDFRef =>
    doc.context.register(doc.context.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: base, Encoding: 'WinAnsiEncoding' }));
  return { regular: font('Helvetica'), bold: font('Helvetica-Bold') };
}

/** The operators that show one text run in a standard font. */
export function plainTextOps(t: DrawnText): string {
  return `BT /${t.bold ? PLAIN_FONTS.bold : PLAIN_FONTS.regular} ${t.size} Tf ${t.x} ${t.y} Td <${winAnsiHex(t.text)}> Tj ET\n`;
}

/**
 * A page of `doc` with `content` as its content stream and the standard fonts (and any `fonts` and
 * `xobjects` given) in its resources.
 */
export function addRawPage(
  doc: PDFDocument,
  size: { width: number; height: number },
  content: string,
  resources: { fonts?: Record<string, PDFRef>; xobjects?: Record<string, PDFRef> } = {},
  plain = standardFonts(doc),
): void {
  const page = doc.addPage([size.width, size.height]);
  page.node.setFontDictionary(PDFName.of(PLAIN_FONTS.regular), plain.regular);
  page.node.setFontDictionary(PDFName.of(PLAIN_FONTS.bold), plain.bold);
  for (const [name, ref] of Object.entries(resources.fonts ?? {})) page.node.setFontDictionary(PDFName.of(name), ref);
  for (const [name, ref] of Object.entries(resources.xobjects ?? {})) page.node.setXObject(PDFName.of(name), ref);
  page.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream(content)));
}

/** The drawing as an ordinary text PDF: every run in Helvetica, as most generators write. */
export async function drawPlain(drawing: Drawing): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const plain = standardFonts(doc);
  for (const page of drawing.pages) addRawPage(doc, page, page.texts.map(plainTextOps).join(''), {}, plain);
  return doc.save({ useObjectStreams: false });
}

/** pdf-lib's hex string from raw hex digits (PDFHexString.of takes them as written). */
export const hex = (digits: string): PDFHexString => PDFHexString.of(digits);
