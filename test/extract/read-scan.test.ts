/**
 * Scans as they arrive: pages on their side or upside down are turned and read,
 * upright pages take one OCR pass, and extra passes stay inside the document's pixel budget.
 */
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { createOcr, type Ocr, type OcrResult } from '../../connector/src/extract/reading/ocr.js';
import { openPdf } from '../../connector/src/extract/reading/open-pdf.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { readScan } from '../../connector/src/extract/reading/read-scan.js';
import { renderPageGrey } from '../../connector/src/extract/reading/render.js';
import { flattenLight, fromPgm, halve, rotate, type GreyImage, type QuarterTurn } from '../../connector/src/extract/reading/scan-image.js';
import { shippedMatcher } from './helpers.js';

const img = (width: number, height: number, values: number[]): GreyImage => ({ width, height, data: Uint8Array.from(values) });

describe('rotate and halve', () => {
  // 3 x 2:  1 2 3
  //         4 5 6
  const page = img(3, 2, [1, 2, 3, 4, 5, 6]);
  it.each([
    [90, 2, 3, [4, 1, 5, 2, 6, 3]],
    [180, 3, 2, [6, 5, 4, 3, 2, 1]],
    [270, 2, 3, [3, 6, 2, 5, 1, 4]],
  ] as const)('turns %i degrees clockwise', (turn, width, height, data) => {
    const out = rotate(page, turn);
    expect([out.width, out.height, [...out.data]]).toEqual([width, height, data]);
  });
  it('four quarter turns give the page back', () => {
    let out = page;
    for (let i = 0; i < 4; i++) out = rotate(out, 90);
    expect([...out.data]).toEqual([...page.data]);
  });
  it('halves by averaging four pixels', () => {
    const out = halve(img(4, 2, [0, 100, 200, 200, 100, 200, 200, 0]));
    expect([out.width, out.height, [...out.data]]).toEqual([2, 1, [100, 150]]);
  });
});

describe('flattenLight', () => {
  /** A 256 x 128 page: paper lit from `left` to `right` brightness, with a dark 2-pixel stroke every 16 pixels. */
  function litPage(left: number, right: number): GreyImage {
    const w = 256;
    const h = 128;
    const data = new Uint8Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const paper = left + ((right - left) * x) / (w - 1);
        data[y * w + x] = x % 16 < 2 && y % 32 < 20 ? paper * 0.45 : paper;
      }
    }
    return { width: w, height: h, data };
  }
  const at = (g: GreyImage, x: number, y: number): number => g.data[y * g.width + x]!;

  it('leaves evenly lit paper as it is, the same image', () => {
    const page = litPage(235, 240);
    expect(flattenLight(page)).toBe(page);
  });

  it('brings paper in shadow up to white and keeps strokes dark on both sides', () => {
    const page = litPage(90, 240);
    // Before: a stroke on the bright side is lighter than the paper on the dark side (no threshold splits them).
    expect(at(page, 240, 5)).toBeGreaterThan(at(page, 5, 5));
    const flat = flattenLight(page);
    for (const x of [5, 120, 250]) expect(at(flat, x, 5), `paper at x=${x}`).toBeGreaterThan(205);
    for (const x of [0, 112, 240]) expect(at(flat, x, 5), `stroke at x=${x}`).toBeLessThan(135);
  });
});

/** A fake OCR answering from a table keyed by the image's orientation mark (the first pixel's value). */
function fakeOcr(byMark: Record<number, Partial<OcrResult>>): Ocr & { calls: { width: number; mark: number }[] } {
  const calls: { width: number; mark: number }[] = [];
  return {
    calls,
    async recognize(pgm) {
      const image = fromPgm(pgm);
      const mark = image.data[0]!;
      calls.push({ width: image.width, mark });
      return {
        lines: [{ text: `read ${mark}`, cells: [{ x: 0, text: `read ${mark}` }] }],
        confidence: 0,
        words: 40,
        sideways: 0,
        ...byMark[mark],
      };
    },
    terminate: () => Promise.resolve(),
  };
}

/** An 8 x 8 page whose four corners carry marks 10, 20, 30, 40 (top-left, top-right, bottom-right, bottom-left). */
function markedPage(): GreyImage {
  const data = new Uint8Array(64).fill(255);
  data[0] = 10;
  data[7] = 20;
  data[63] = 30;
  data[56] = 40;
  return { width: 8, height: 8, data };
}
// After a clockwise turn of 90 the bottom-left corner is top-left; of 180 the bottom-right; of 270 the top-right.
const MARK_AFTER: Record<QuarterTurn, number> = { 0: 10, 90: 40, 180: 30, 270: 20 };
/** The first pixel of a half-size probe: the mark averaged with three white pixels. */
const probe = (mark: number): number => (mark + 255 * 3 + 2) >> 2;

describe('readScan decides from the first reading', () => {
  it('stops after one pass on an upright page', async () => {
    const ocr = fakeOcr({ 10: { confidence: 0.9 } });
    const r = await readScan(markedPage(), ocr);
    expect(ocr.calls).toHaveLength(1);
    expect([r.turned, r.passes, r.lines[0]!.text]).toEqual([0, 1, 'read 10']);
  });

  it('turns a confident sideways reading a quarter anticlockwise (text running down the page)', async () => {
    const ocr = fakeOcr({ 10: { confidence: 0.9, sideways: 0.95 }, [MARK_AFTER[270]]: { confidence: 0.9 } });
    const r = await readScan(markedPage(), ocr);
    expect(ocr.calls.map((c) => c.mark)).toEqual([10, MARK_AFTER[270]]);
    expect([r.turned, r.passes]).toEqual([270, 2]);
  });

  it('turns a doubtful sideways reading a quarter clockwise, and the other way when that reads worse', async () => {
    const ocr = fakeOcr({
      10: { confidence: 0.5, sideways: 0.9 },
      [MARK_AFTER[90]]: { confidence: 0.4 },
      [probe(MARK_AFTER[270])]: { confidence: 0.6 },
      [MARK_AFTER[270]]: { confidence: 0.9 },
    });
    const r = await readScan(markedPage(), ocr);
    // first pass, 90, a half-size probe at 270, then 270 in full
    expect(ocr.calls.map((c) => [c.mark, c.width])).toEqual([
      [10, 8],
      [MARK_AFTER[90], 8],
      [probe(MARK_AFTER[270]), 4],
      [MARK_AFTER[270], 8],
    ]);
    expect([r.turned, r.passes]).toEqual([270, 4]);
  });

  it('reads an upside-down page half a turn round only when a half-size probe reads better', async () => {
    const better = fakeOcr({ 10: { confidence: 0.5 }, [probe(30)]: { confidence: 0.7 }, 30: { confidence: 0.9 } });
    const r = await readScan(markedPage(), better);
    expect(better.calls.map((c) => [c.mark, c.width])).toEqual([
      [10, 8],
      [probe(30), 4],
      [30, 8],
    ]);
    expect([r.turned, r.passes, r.lines[0]!.text]).toEqual([180, 3, 'read 30']);

    const worse = fakeOcr({ 10: { confidence: 0.6 }, [probe(30)]: { confidence: 0.3 } });
    const kept = await readScan(markedPage(), worse);
    expect(worse.calls.map((c) => c.width)).toEqual([8, 4]);
    expect([kept.turned, kept.passes, kept.lines[0]!.text]).toEqual([0, 2, 'read 10']);
  });

  it('spends no pass the pixel budget has no room for, and keeps the reading it has', async () => {
    const ocr = fakeOcr({ 10: { confidence: 0.5, sideways: 0.9 } });
    const asked: number[] = [];
    const r = await readScan(markedPage(), ocr, (pixels) => (asked.push(pixels), false));
    expect(ocr.calls).toHaveLength(1);
    expect(asked[0]).toBe(64);
    expect([r.turned, r.lines[0]!.text]).toEqual([0, 'read 10']);
  });
});

// ---- Real OCR on a page generated here: drawn, rendered, turned, and embedded as an image-only PDF ----

const TRUTH = { policy_number: 'KTR-4471-902315', start_date: '2026-03-01', end_date: '2027-02-28' };

/** A small text page with a policy number and dates, as a greyscale image at 150 dpi. */
async function uprightScan(): Promise<GreyImage> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([420, 260]);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const lines = [
    'Certificate of Motor Insurance',
    `Policy number: ${TRUTH.policy_number}`,
    'Start date: 01/03/2026',
    'Expiry date: 28/02/2027',
    'Registration: AB21 CDE',
  ];
  lines.forEach((text, i) => page.drawText(text, { x: 30, y: 220 - i * 24, size: 12, font }));
  const pdf = await openPdf(await doc.save(), EXTRACT_LIMIT_DEFAULTS);
  try {
    return await renderPageGrey(pdf, await pdf.getPage(1), 150);
  } finally {
    await pdf.destroy();
  }
}

/** An image-only PDF of `image` (PNG), one pt per pixel at 150 dpi. */
async function imagePdf(image: GreyImage): Promise<Uint8Array> {
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  const rgba = ctx.createImageData(image.width, image.height);
  for (let i = 0; i < image.data.length; i++) rgba.data.set([image.data[i]!, image.data[i]!, image.data[i]!, 255], i * 4);
  ctx.putImageData(rgba, 0, 0);
  const doc = await PDFDocument.create();
  const png = await doc.embedPng(await canvas.encode('png'));
  const size: [number, number] = [(image.width * 72) / 150, (image.height * 72) / 150];
  doc.addPage(size).drawImage(png, { x: 0, y: 0, width: size[0], height: size[1] });
  return doc.save();
}

describe('extractFields on generated scans turned on the glass', () => {
  let ocr: Ocr;
  let matcher: InsurerMatcher;
  let upright: GreyImage;
  beforeAll(async () => {
    ocr = await createOcr({ workers: 1, languages: 'eng' });
    matcher = await shippedMatcher();
    upright = await uprightScan();
  });
  afterAll(async () => {
    await ocr.terminate();
  });

  it.each([0, 90, 180, 270] as const)('reads a page turned %i degrees', async (turn) => {
    const passes: number[] = [];
    const counting: Ocr = {
      recognize: (image) => (passes.push(fromPgm(image).width), ocr.recognize(image)),
      terminate: () => Promise.resolve(),
    };
    const turnedPages: number[] = [];
    const r = await extractFields(
      await imagePdf(rotate(upright, turn)),
      { ocr: counting, matcher },
      { limits: EXTRACT_LIMIT_DEFAULTS, onPage: (p) => turnedPages.push(p.turned ?? -1) },
    );
    expect(r.ocrPages).toBe(1);
    expect(r.fields.policy_number).toBe(TRUTH.policy_number);
    expect(r.fields.start_date).toBe(TRUTH.start_date);
    expect(r.fields.end_date).toBe(TRUTH.end_date);
    // The page is read at the turn that undoes the one it was scanned at.
    expect(turnedPages).toEqual([(360 - turn) % 360]);
    // The orientation step costs nothing on an upright page: one pass.
    if (turn === 0) expect(passes).toHaveLength(1);
    else expect(passes.length).toBeGreaterThan(1);
  });
});
