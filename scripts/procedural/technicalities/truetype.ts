/**
 * Just enough of a TrueType font to draw text with it by hand: its character map, advance widths and glyph
 * outlines. The technicalities write font dictionaries themselves (Identity-H, custom encodings, Type3), which
 * pdf-lib only does through fontkit; Liberation Sans ships with pdfjs-dist.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** A glyph's outline as PDF path operators in font units (y up), and its advance width. */
export interface Glyph {
  id: number;
  advance: number;
  path: string;
  /** Bounding box in font units: xMin, yMin, xMax, yMax. */
  box: [number, number, number, number];
}

export interface TrueTypeFont {
  bytes: Uint8Array;
  unitsPerEm: number;
  ascent: number;
  descent: number;
  /** Unicode code point -> glyph id, from the (3,1) format 4 subtable. */
  glyphId(codePoint: number): number;
  glyph(id: number): Glyph;
}

/** Liberation Sans Regular (or Bold), as pdf.js ships it for the standard fonts. */
export function liberationSans(bold = false): TrueTypeFont {
  const dir = path.join(path.dirname(require.resolve('pdfjs-dist/package.json')), 'standard_fonts');
  return readTrueType(readFileSync(path.join(dir, bold ? 'LiberationSans-Bold.ttf' : 'LiberationSans-Regular.ttf')));
}

export function readTrueType(bytes: Uint8Array): TrueTypeFont {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16 = (o: number): number => view.getUint16(o);
  const i16 = (o: number): number => view.getInt16(o);
  const u32 = (o: number): number => view.getUint32(o);
  const tables = new Map<string, number>();
  for (let i = 0; i < u16(4); i++) {
    const at = 12 + 16 * i;
    tables.set(String.fromCharCode(...bytes.subarray(at, at + 4)), u32(at + 8));
  }
  const table = (tag: string): number => {
    const at = tables.get(tag);
    if (at === undefined) throw new Error(`font has no ${tag} table`);
    return at;
  };
  const head = table('head');
  const unitsPerEm = u16(head + 18);
  const longLoca = i16(head + 50) === 1;
  const hhea = table('hhea');
  const ascent = i16(hhea + 4);
  const descent = i16(hhea + 6);
  const metrics = u16(hhea + 34);
  const numGlyphs = u16(table('maxp') + 4);
  const hmtx = table('hmtx');
  const loca = table('loca');
  const glyf = table('glyf');

  const cmap = table('cmap');
  let format4 = -1;
  for (let i = 0; i < u16(cmap + 2); i++) {
    const rec = cmap + 4 + 8 * i;
    if (u16(rec) === 3 && u16(rec + 2) === 1) format4 = cmap + u32(rec + 4);
  }
  if (format4 < 0 || u16(format4) !== 4) throw new Error('font has no (3,1) format 4 cmap');
  const segs = u16(format4 + 6) / 2;
  const ends = format4 + 14;
  const starts = ends + 2 * segs + 2;
  const deltas = starts + 2 * segs;
  const ranges = deltas + 2 * segs;
  const glyphId = (cp: number): number => {
    for (let s = 0; s < segs; s++) {
      if (cp > u16(ends + 2 * s)) continue;
      const start = u16(starts + 2 * s);
      if (cp < start) return 0;
      const range = u16(ranges + 2 * s);
      if (range === 0) return (cp + i16(deltas + 2 * s)) & 0xffff;
      const g = u16(ranges + 2 * s + range + 2 * (cp - start));
      return g === 0 ? 0 : (g + i16(deltas + 2 * s)) & 0xffff;
    }
    return 0;
  };

  const advance = (id: number): number => u16(hmtx + 4 * Math.min(id, metrics - 1));
  const glyphOffset = (id: number): [number, number] => {
    const at = (k: number): number => (longLoca ? u32(loca + 4 * k) : 2 * u16(loca + 2 * k));
    return [glyf + at(id), glyf + at(id + 1)];
  };

  /** Contours of glyph `id` as point lists, composites resolved (component offsets only, no scaling). */
  const contours = (id: number, dx = 0, dy = 0): Array<Array<{ x: number; y: number; on: boolean }>> => {
    const [start, end] = glyphOffset(id);
    if (end <= start) return [];
    const n = i16(start);
    if (n < 0) {
      const out: Array<Array<{ x: number; y: number; on: boolean }>> = [];
      let p = start + 10;
      for (;;) {
        const flags = u16(p);
        const component = u16(p + 2);
        p += 4;
        const words = (flags & 1) !== 0;
        const ox = words ? i16(p) : view.getInt8(p);
        const oy = words ? i16(p + 2) : view.getInt8(p + 1);
        p += words ? 4 : 2;
        if (flags & 8) p += 2;
        else if (flags & 0x40) p += 4;
        else if (flags & 0x80) p += 8;
        out.push(...contours(component, dx + ox, dy + oy));
        if (!(flags & 0x20)) return out;
      }
    }
    const endPts: number[] = [];
    for (let c = 0; c < n; c++) endPts.push(u16(start + 10 + 2 * c));
    const points = (endPts[n - 1] ?? -1) + 1;
    let p = start + 10 + 2 * n;
    p += 2 + u16(p);
    const flags: number[] = [];
    while (flags.length < points) {
      const f = bytes[p++]!;
      flags.push(f);
      if (f & 8) for (let r = bytes[p++]!; r > 0; r--) flags.push(f);
    }
    const coords = (short: number, same: number): number[] => {
      const out: number[] = [];
      let v = 0;
      for (const f of flags) {
        if (f & short) v += f & same ? bytes[p++]! : -bytes[p++]!;
        else if (!(f & same)) {
          v += i16(p);
          p += 2;
        }
        out.push(v);
      }
      return out;
    };
    const xs = coords(2, 16);
    const ys = coords(4, 32);
    const out: Array<Array<{ x: number; y: number; on: boolean }>> = [];
    let first = 0;
    for (const last of endPts) {
      const contour = [];
      for (let k = first; k <= last; k++) contour.push({ x: xs[k]! + dx, y: ys[k]! + dy, on: (flags[k]! & 1) !== 0 });
      out.push(contour);
      first = last + 1;
    }
    return out;
  };

  const glyph = (id: number): Glyph => {
    if (id < 0 || id >= numGlyphs) throw new RangeError(`no glyph ${id}`);
    const [start, end] = glyphOffset(id);
    const box: [number, number, number, number] =
      end > start ? [i16(start + 2), i16(start + 4), i16(start + 6), i16(start + 8)] : [0, 0, 0, 0];
    return { id, advance: advance(id), path: contours(id).map(contourPath).join(''), box };
  };

  return { bytes, unitsPerEm, ascent, descent, glyphId, glyph };
}

/** A quadratic TrueType contour as PDF cubic path operators: implied on-curve points between two off-curve ones. */
function contourPath(points: Array<{ x: number; y: number; on: boolean }>): string {
  if (points.length === 0) return '';
  const startIndex = points.findIndex((q) => q.on);
  const start = startIndex >= 0 ? points[startIndex]! : mid(points[0]!, points[1] ?? points[0]!);
  const order = startIndex >= 0 ? [...points.slice(startIndex + 1), ...points.slice(0, startIndex)] : points.slice(1);
  let out = `${start.x} ${start.y} m\n`;
  let from: { x: number; y: number } = start;
  let control: { x: number; y: number } | null = null;
  const quad = (c: { x: number; y: number }, to: { x: number; y: number }): void => {
    const c1 = { x: from.x + (2 / 3) * (c.x - from.x), y: from.y + (2 / 3) * (c.y - from.y) };
    const c2 = { x: to.x + (2 / 3) * (c.x - to.x), y: to.y + (2 / 3) * (c.y - to.y) };
    out += `${r(c1.x)} ${r(c1.y)} ${r(c2.x)} ${r(c2.y)} ${to.x} ${to.y} c\n`;
    from = to;
  };
  for (const q of [...order, start]) {
    if (q.on) {
      if (control) quad(control, q);
      else {
        out += `${q.x} ${q.y} l\n`;
        from = q;
      }
      control = null;
    } else {
      if (control) quad(control, mid(control, q));
      control = q;
    }
  }
  if (control) quad(control, start);
  return out + 'h\n';
}

const mid = (a: { x: number; y: number }, b: { x: number; y: number }): { x: number; y: number; on: boolean } => ({
  x: (a.x + b.x) / 2,
  y: (a.y + b.y) / 2,
  on: true,
});
const r = (v: number): string => String(Math.round(v * 100) / 100);
