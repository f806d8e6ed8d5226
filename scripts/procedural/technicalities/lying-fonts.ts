/**
 * Text layers that lie: the page looks right when drawn, but the text a reader extracts is wrong, as in PDFs
 * whose producer left out or botched the map from glyphs to characters. Each lie embeds Liberation Sans (so
 * the page renders as the plain drawing does) and writes the font dictionary by hand:
 * - `identity-h-no-tounicode`: a CIDFontType2 under Identity-H, glyph ids as codes, no ToUnicode;
 * - `shifted-tounicode`: the same with a ToUnicode CMap that maps each glyph to the next letter or digit;
 * - `custom-encoding`: a symbolic subset-style TrueType font whose /Differences name the wrong glyphs;
 * - `type3-private-names`: a Type3 font drawing each glyph's outline, codes given in order of first use and
 *   glyph names private to the producer (/a1, /a2 ...).
 */
import { PDFDocument, PDFName, PDFString, type PDFRef } from 'pdf-lib';
import { addRawPage, fontFor, plainTextOps, standardFonts, type Drawing, type DrawnText } from './drawing.js';
import type { TrueTypeFont } from './truetype.js';

export const LIES = ['identity-h-no-tounicode', 'shifted-tounicode', 'custom-encoding', 'type3-private-names'] as const;
export type Lie = (typeof LIES)[number];

/** Which runs the lying font draws: all of them, or only the values (labels stay in a truthful font). */
export type LieScope = 'all' | 'values';

/** The drawing with its text (or only its values) in a font whose text layer lies. */
export async function drawWithLyingFont(drawing: Drawing, lie: Lie, scope: LieScope = 'all'): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const plain = standardFonts(doc);
  const fonts = { regular: makeFont(doc, lie, false, drawing), bold: makeFont(doc, lie, true, drawing) };
  for (const page of drawing.pages) {
    let content = '';
    for (const t of page.texts) {
      if (scope === 'values' && t.role !== 'value') content += plainTextOps(t);
      else content += lyingTextOps(t, fonts[t.bold ? 'bold' : 'regular']);
    }
    addRawPage(doc, page, content, { fonts: { LF: fonts.regular.ref, LFB: fonts.bold.ref } }, plain);
  }
  return doc.save({ useObjectStreams: false });
}

interface LyingFont {
  ref: PDFRef;
  name: string;
  /** The string operand (hex digits) that shows `text`. */
  encode(text: string): string;
}

function lyingTextOps(t: DrawnText, font: LyingFont): string {
  return `BT /${font.name} ${t.size} Tf ${t.x} ${t.y} Td <${font.encode(t.text)}> Tj ET\n`;
}

function makeFont(doc: PDFDocument, lie: Lie, bold: boolean, drawing: Drawing): LyingFont {
  const ttf = fontFor(bold);
  const name = bold ? 'LFB' : 'LF';
  const base = `${bold ? 'KQWLBB' : 'KQWLAA'}+LiberationSans${bold ? '-Bold' : ''}`;
  if (lie === 'type3-private-names') return type3Font(doc, ttf, name, drawing, bold);
  const descriptor = (flags: number): PDFRef =>
    doc.context.register(
      doc.context.obj({
        Type: 'FontDescriptor',
        FontName: base,
        Flags: flags,
        FontBBox: [-200, -300, 1200, 1000],
        ItalicAngle: 0,
        Ascent: Math.round((ttf.ascent * 1000) / ttf.unitsPerEm),
        Descent: Math.round((ttf.descent * 1000) / ttf.unitsPerEm),
        CapHeight: 700,
        StemV: bold ? 120 : 80,
        FontFile2: doc.context.register(doc.context.flateStream(ttf.bytes, { Length1: ttf.bytes.length })),
      }),
    );
  const width = (cp: number): number => Math.round((ttf.glyph(ttf.glyphId(cp)).advance * 1000) / ttf.unitsPerEm);

  if (lie === 'custom-encoding') {
    // Symbolic: pdf.js then draws code n with the font's own glyph for n, while the text layer follows the names.
    const differences: Array<number | string> = [32];
    const widths: number[] = [];
    for (let code = 32; code <= 255; code++) {
      differences.push(wrongName(code));
      widths.push(width(code));
    }
    const ref = doc.context.register(
      doc.context.obj({
        Type: 'Font',
        Subtype: 'TrueType',
        BaseFont: base,
        FirstChar: 32,
        LastChar: 255,
        Widths: widths,
        Encoding: { Type: 'Encoding', Differences: differences },
        FontDescriptor: descriptor(4),
      }),
    );
    return { ref, name, encode: latin1Hex };
  }

  const used = usedCodePoints(drawing);
  const w: Array<number | number[]> = [];
  for (const cp of used) w.push(ttf.glyphId(cp), [width(cp)]);
  const cidFont = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'CIDFontType2',
      BaseFont: base,
      CIDSystemInfo: { Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 },
      FontDescriptor: descriptor(32),
      W: w,
      DW: 1000,
      CIDToGIDMap: 'Identity',
    }),
  );
  const type0 = doc.context.obj({ Type: 'Font', Subtype: 'Type0', BaseFont: base, Encoding: 'Identity-H', DescendantFonts: [cidFont] });
  if (lie === 'shifted-tounicode') {
    const pairs = [...used].map((cp) => [ttf.glyphId(cp), nextCharacter(cp)] as const);
    type0.set(PDFName.of('ToUnicode'), doc.context.register(doc.context.flateStream(toUnicodeCMap(pairs))));
  }
  const encode = (text: string): string => [...text].map((ch) => ttf.glyphId(ch.codePointAt(0)!).toString(16).padStart(4, '0')).join('');
  return { ref: doc.context.register(type0), name, encode };
}

/** Each glyph drawn from its outline; codes from 33 in order of first use, names that say nothing. */
function type3Font(doc: PDFDocument, ttf: TrueTypeFont, name: string, drawing: Drawing, bold: boolean): LyingFont {
  const codes = new Map<number, number>();
  for (const cp of usedCodePoints(drawing, bold)) codes.set(cp, 33 + codes.size);
  const procs: Record<string, PDFRef> = {};
  const differences: Array<number | string> = [33];
  const widths: number[] = [];
  for (const [cp, code] of codes) {
    const g = ttf.glyph(ttf.glyphId(cp));
    const glyphName = `a${code - 32}`;
    differences.push(glyphName);
    widths.push(g.advance);
    procs[glyphName] = doc.context.register(doc.context.flateStream(`${g.advance} 0 ${g.box.join(' ')} d1\n${g.path}f\n`));
  }
  const scale = 1 / ttf.unitsPerEm;
  const ref = doc.context.register(
    doc.context.obj({
      Type: 'Font',
      Subtype: 'Type3',
      FontBBox: [-400, -500, 2800, 2200],
      FontMatrix: [scale, 0, 0, scale, 0, 0],
      CharProcs: procs,
      Encoding: { Type: 'Encoding', Differences: differences },
      FirstChar: 33,
      LastChar: 32 + codes.size,
      Widths: widths,
      Resources: {},
    }),
  );
  const encode = (text: string): string =>
    [...text].map((ch) => (codes.get(ch.codePointAt(0)!) ?? 33).toString(16).padStart(2, '0')).join('');
  return { ref, name, encode };
}

/** Every code point the drawing shows (in one weight, when `bold` is given), in order of first use. */
function usedCodePoints(drawing: Drawing, bold?: boolean): Set<number> {
  const out = new Set<number>();
  for (const page of drawing.pages)
    for (const t of page.texts) if (bold === undefined || !!t.bold === bold) for (const ch of t.text) out.add(ch.codePointAt(0)!);
  return out;
}

/** Letters and digits moved on by one (z to a, 9 to 0); everything else as it is. */
function nextCharacter(cp: number): number {
  const ranges: Array<[number, number]> = [
    [0x41, 0x5a],
    [0x61, 0x7a],
    [0x30, 0x39],
  ];
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return cp === hi ? lo : cp + 1;
  return cp;
}

function toUnicodeCMap(pairs: ReadonlyArray<readonly [number, number]>): string {
  const h4 = (n: number): string => n.toString(16).padStart(4, '0').toUpperCase();
  const chunks: string[] = [];
  for (let i = 0; i < pairs.length; i += 100) {
    const part = pairs.slice(i, i + 100);
    chunks.push(`${part.length} beginbfchar\n${part.map(([g, u]) => `<${h4(g)}> <${h4(u)}>`).join('\n')}\nendbfchar\n`);
  }
  return [
    '/CIDInit /ProcSet findresource begin',
    '12 dict begin',
    'begincmap',
    '/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def',
    '/CMapName /Adobe-Identity-UCS def',
    '/CMapType 2 def',
    '1 begincodespacerange',
    '<0000> <FFFF>',
    'endcodespacerange',
    ...chunks,
    'endcmap',
    'CMapName currentdict /CMap defineresource pop',
    'end',
    'end',
  ].join('\n');
}

const DIGIT_NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const PUNCTUATION: Record<string, string> = {
  ' ': 'space',
  '-': 'hyphen',
  '.': 'period',
  ',': 'comma',
  ':': 'colon',
  ';': 'semicolon',
  '/': 'slash',
  '&': 'ampersand',
  '(': 'parenleft',
  ')': 'parenright',
  "'": 'quotesingle',
  '+': 'plus',
  '#': 'numbersign',
  '@': 'at',
};

/** The glyph name a botched subset gives code `code`: letters seven on, digits three on, the rest named truly. */
function wrongName(code: number): string {
  const ch = String.fromCharCode(code);
  if (/[a-z]/.test(ch)) return String.fromCharCode(0x61 + ((code - 0x61 + 7) % 26));
  if (/[A-Z]/.test(ch)) return String.fromCharCode(0x41 + ((code - 0x41 + 7) % 26));
  if (/[0-9]/.test(ch)) return DIGIT_NAMES[(code - 0x30 + 3) % 10]!;
  return PUNCTUATION[ch] ?? `uni${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

function latin1Hex(text: string): string {
  return [...text].map((ch) => Math.min(ch.codePointAt(0)!, 0xff).toString(16).padStart(2, '0')).join('');
}
