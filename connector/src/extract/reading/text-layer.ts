/**
 * Reads a PDF page's text layer with pdf.js and rebuilds reading-order lines. Items are placed as the page is
 * shown (its /Rotate and the content's own matrices applied), then read along their writing direction: a
 * page stored turned, or text drawn turned on an upright page, reads in rows, not in columns.
 */
import { Util, type PDFPageProxy } from 'pdfjs-dist/legacy/build/pdf.mjs';
import type { TextItem } from 'pdfjs-dist/types/src/display/api.js';
import { linesFromBoxes, type Line, type WordBox } from './lines.js';
import { continuesSpacedLabel } from '../spaced-label.js';

/** A writing direction, clockwise from left-to-right on the page as shown. */
export type Direction = 0 | 90 | 180 | 270;

/** A text item placed for reading: `x0`, `x1` and `y` along its own writing direction, top-down. */
export interface PlacedItem extends WordBox {
  /** pdf.js's name for the item's font: the unit a text layer is judged in (text-trust.ts). */
  font: string;
  direction: Direction;
  /** Degrees the baseline runs off its direction: a digital page's text runs straight, an OCR layer over a photo's at a slant. */
  slant: number;
  /**
   * Width of the glyphs against their height, 1 as the font draws them: an OCR engine's layer stretches or squeezes
   * each word to the box it found it in (tesseract's and ocrmypdf's invisible text), a program's text keeps its font.
   */
  stretch: number;
  /** Where the item lies on the page as shown, in points from the top left: x0, y0, x1, y1. */
  box: [number, number, number, number];
}

/** The page's text items, placed as shown; empty when the page has no text layer (a scan). */
export async function readTextItems(page: PDFPageProxy): Promise<PlacedItem[]> {
  const content = await page.getTextContent();
  const viewport = page.getViewport({ scale: 1 });
  const items: PlacedItem[] = [];
  for (const item of content.items) {
    if (!('str' in item)) continue;
    const it = item as TextItem;
    if (!it.str.trim()) continue;
    // The item's matrix on the page as shown: y grows downwards there, and /Rotate is undone.
    const [a, b, c, d, e, f] = Util.transform(viewport.transform, it.transform as number[]) as number[];
    const degrees = (Math.atan2(b!, a!) * 180) / Math.PI;
    const direction = ((((Math.round(degrees / 90) * 90) % 360) + 360) % 360) as Direction;
    const slant = ((degrees - direction + 540) % 360) - 180;
    const height = Math.hypot(c!, d!) || it.height || 10;
    const stretch = Math.hypot(c!, d!) > 0 ? Math.hypot(a!, b!) / Math.hypot(c!, d!) : 1;
    const width = it.width;
    const [ux, uy] = UNIT[direction];
    // Reading frame: x along the writing direction, y across it (the next line is below).
    const x0 = e! * ux + f! * uy;
    const y = -e! * uy + f! * ux;
    const corners = [
      [e!, f!],
      [e! + width * ux, f! + width * uy],
      [e! + height * uy, f! - height * ux],
      [e! + width * ux + height * uy, f! + width * uy - height * ux],
    ];
    const xs = corners.map((p) => p[0]!);
    const ys = corners.map((p) => p[1]!);
    items.push({
      text: it.str,
      x0,
      x1: x0 + width,
      y,
      height,
      font: it.fontName,
      direction,
      slant,
      stretch,
      box: [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)],
    });
  }
  return items;
}

/** Unit vector of each direction on the page as shown (y down). */
const UNIT: Record<Direction, [number, number]> = { 0: [1, 0], 90: [0, 1], 180: [-1, 0], 270: [0, -1] };

/**
 * Lines of placed items: those of each writing direction read on their own, the direction holding most of
 * the text first (the page as its author turned it), text running another way (a margin note) after it.
 */
export function linesOfItems(items: ReadonlyArray<WordBox & { direction?: Direction }>): Line[] {
  const groups = new Map<Direction, WordBox[]>();
  const weight = new Map<Direction, number>();
  for (const item of joinSpacedWords(joinSpreadCharacters(items))) {
    const d = item.direction ?? 0;
    (groups.get(d) ?? groups.set(d, []).get(d)!).push(item);
    weight.set(d, (weight.get(d) ?? 0) + item.text.length);
  }
  return [...groups.entries()].sort((p, q) => weight.get(q[0])! - weight.get(p[0])!).flatMap(([, boxes]) => linesFromBoxes(boxes));
}

/**
 * Share of the items' characters whose baseline runs at a slant of 0.3 to 10 degrees: near 0 for a page drawn
 * by a program, most of the page for an OCR layer laid over a photo by the OCR engine, word by word.
 */
export function slantedShare(items: readonly PlacedItem[]): number {
  let slanted = 0;
  let all = 0;
  for (const i of items) {
    const n = i.text.replace(/\s+/g, '').length;
    all += n;
    if (Math.abs(i.slant) > 0.3 && Math.abs(i.slant) <= 10) slanted += n;
  }
  return all ? slanted / all : 0;
}

/**
 * Share of the items' characters drawn wider or narrower than their font (more than 3% either way): near 0 for a
 * page a program wrote (a condensed font is the exception), most of the page for an OCR engine's layer, which fits
 * every word to its box.
 */
export function stretchedShare(items: readonly PlacedItem[]): number {
  let stretched = 0;
  let all = 0;
  for (const i of items) {
    const n = i.text.replace(/\s+/g, '').length;
    all += n;
    if (Math.abs(i.stretch - 1) > 0.03) stretched += n;
  }
  return all ? stretched / all : 0;
}

/** Characters in a row needed before they are taken for one value spread over a comb's cells. */
const MIN_SPREAD = 4;
/** A character's width, as a share of the text height, where only an item's ends are known. */
const CHAR_WIDTH = 0.55;

/**
 * Joins characters drawn one to a cell at an even pitch into one item: a comb field's value, as a flattened
 * form prints it ("P N - 4 4 7 1"). pdf.js hands such a run over as items of single characters, or of single
 * characters it put spaces between; each character's centre is estimated from its item's ends, and a run of
 * centres at one pitch (within 12%) is one word. A word space breaks the pitch, so words stay apart.
 */
export function joinSpreadCharacters<T extends WordBox & { direction?: Direction }>(items: readonly T[]): T[] {
  const sorted = [...items].sort((a, b) => (a.direction ?? 0) - (b.direction ?? 0) || a.y - b.y || a.x0 - b.x0);
  const out: T[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i;
    const centres: number[] = [];
    while (j < sorted.length && (j === i || sameRow(sorted[j - 1]!, sorted[j]!))) {
      const more = charCentres(sorted[j]!);
      if (!more || !evenPitch([...centres, ...more], sorted[i]!.height)) break;
      centres.push(...more);
      j++;
    }
    if (centres.length < MIN_SPREAD) {
      out.push(sorted[i]!);
      i++;
      continue;
    }
    const run = sorted.slice(i, j);
    out.push({ ...run[0]!, text: run.map((b) => b.text.replace(/\s/g, '')).join(''), x1: run[run.length - 1]!.x1 });
    i = j;
  }
  return out;
}

/**
 * Widest gap between two words of one letter-spaced label, in letter pitches. A designer's word gap is a space plus
 * the tracking (one to three pitches); a column gap is wider.
 */
const WORD_GAP_PITCHES = 3.5;
/** Letter pitches of two words of one label differ by at most this factor: one label, one tracking. */
const SAME_TRACKING = 1.5;

/**
 * Joins the words of a letter-spaced label that a word gap as wide as a column's split into items of their own
 * ("N U M É R O", "D E", "C O N T R A T"): joinSpreadCharacters closes up the long ones and leaves those of fewer
 * than four characters spaced, and tracking too small for a comb closes up none. Words in a row, each spaced out (or
 * a lone character beside one that is) and holding a letter, at gaps of a few of their letter pitches, a short word
 * or one going on in lower case among them, become one item whose words are closed up and kept apart by a space:
 * "NUMÉRO DE CONTRAT", "Policy number". A wider gap is a column's and ends the label; spaced digits (a comb's groups)
 * are left to the fields' reading of numbers in groups.
 */
export function joinSpacedWords<T extends WordBox & { direction?: Direction }>(items: readonly T[]): T[] {
  const sorted = [...items].sort((a, b) => (a.direction ?? 0) - (b.direction ?? 0) || a.y - b.y || a.x0 - b.x0);
  const out: T[] = [];
  let i = 0;
  while (i < sorted.length) {
    let j = i + 1;
    while (j < sorted.length && wordOfLabel(sorted[j - 1]!, sorted[j]!)) j++;
    const run = sorted.slice(i, j);
    if (run.length < 2) out.push(sorted[i]!);
    else out.push({ ...run[0]!, text: run.map((b) => b.text.replace(/\s/g, '')).join(' '), x1: run[run.length - 1]!.x1 });
    i = j;
  }
  return out;
}

/** True when `b` is the next word of the letter-spaced label `a` ends: same row, same tracking, a word gap apart. */
function wordOfLabel(a: WordBox & { direction?: Direction }, b: WordBox & { direction?: Direction }): boolean {
  if (a.formValue || b.formValue || !sameRow(a, b) || !/\p{L}/u.test(a.text) || !/\p{L}/u.test(b.text)) return false;
  const pa = letterPitch(a);
  const pb = letterPitch(b);
  if (pa === undefined || pb === undefined || (pa === null && pb === null)) return false;
  if (pa !== null && pb !== null && Math.max(pa, pb) > SAME_TRACKING * Math.min(pa, pb)) return false;
  const pitch = Math.max(pa ?? 0, pb ?? 0);
  const gap = b.x0 - a.x1;
  return gap > 0 && gap <= WORD_GAP_PITCHES * pitch && continuesSpacedLabel(a.text, b.text);
}

/**
 * The letter pitch of a spaced-out word: one of single characters with spaces between ("D E"), or one word whose
 * letters stand a comb's pitch apart (joined by joinSpreadCharacters, or drawn with a wide character spacing).
 * Null for a lone character (its pitch is its neighbour's), undefined for anything else (an ordinary word).
 */
function letterPitch(b: WordBox): number | null | undefined {
  const text = b.text.trim();
  if ([...text].length === 1) return null;
  const spaced = /^\S( \S)+$/u.test(text);
  if (!spaced && /\s/.test(text)) return undefined;
  const n = spaced ? (text.length + 1) / 2 : [...text].length;
  const pitch = (b.x1 - b.x0 - CHAR_WIDTH * b.height) / (n - 1);
  return spaced || pitch >= 0.95 * b.height ? pitch : undefined;
}

const sameRow = (a: WordBox & { direction?: Direction }, b: WordBox & { direction?: Direction }): boolean =>
  (a.direction ?? 0) === (b.direction ?? 0) && Math.abs(a.y - b.y) <= 0.2 * a.height && Math.abs(a.height - b.height) <= 0.1 * a.height;

/** Estimated centres of an item that is one character, or single characters with single spaces between; null otherwise. */
function charCentres(b: WordBox): number[] | null {
  // A form's values have their own boxes: a row of check boxes stays a row of boxes.
  if (b.formValue) return null;
  const text = b.text.trim();
  if (text.length === 1) return [(b.x0 + b.x1) / 2];
  if (!/^\S( \S)+$/u.test(text)) return null;
  const n = (text.length + 1) / 2;
  const w = CHAR_WIDTH * b.height;
  const pitch = (b.x1 - b.x0 - w) / (n - 1);
  return Array.from({ length: n }, (_, k) => b.x0 + w / 2 + k * pitch);
}

/** True when the centres follow one another at one pitch, wider than a word's own letters and narrower than a column gap. */
function evenPitch(centres: readonly number[], h: number): boolean {
  if (centres.length < 2) return true;
  const pitches = centres.slice(1).map((c, k) => c - centres[k]!);
  const mean = pitches.reduce((a, b) => a + b, 0) / pitches.length;
  // A comb's cell holds its widest letter: at least the text's height.
  if (mean < 0.95 * h || mean > 2.5 * h) return false;
  // Within 12% of the mean either way.
  return Math.max(...pitches) - Math.min(...pitches) <= 0.24 * mean;
}

/** The page's text as lines, top to bottom; empty when the page has no text layer (a scan). */
export async function readTextLines(page: PDFPageProxy): Promise<Line[]> {
  return linesOfItems(await readTextItems(page));
}

/** Characters of real text in lines or items, to decide whether a page needs OCR. */
export function textLength(pieces: ReadonlyArray<{ text: string }>): number {
  return pieces.reduce((n, l) => n + l.text.replace(/\s+/g, '').length, 0);
}
