/** Phone photos straightened: the projective transform, the sheet's corners found, and pages that need nothing left alone. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import {
  findSheet,
  homography,
  project,
  rectCorners,
  straightenSheet,
  warpQuad,
  type Point,
  type Quad,
} from '../../connector/src/extract/reading/perspective.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import type { GreyImage } from '../../connector/src/extract/reading/scan-image.js';
import { shippedMatcher } from './helpers.js';

describe('homography', () => {
  const square: Point[] = [
    [0, 0],
    [100, 0],
    [100, 100],
    [0, 100],
  ];
  const slanted: Point[] = [
    [12, 7],
    [95, 18],
    [88, 121],
    [3, 104],
  ];
  it('takes each corner onto its counterpart, and its inverse brings them back', () => {
    const h = homography(square, slanted)!;
    const back = homography(slanted, square)!;
    square.forEach(([x, y], i) => {
      const [u, v] = project(h, x, y);
      expect(u).toBeCloseTo(slanted[i]![0], 6);
      expect(v).toBeCloseTo(slanted[i]![1], 6);
    });
    // An inner point too, which no equation named: the transform is one projective map, not four point pairs.
    const [u, v] = project(h, 37, 61);
    const [x, y] = project(back, u, v);
    expect(x).toBeCloseTo(37, 6);
    expect(y).toBeCloseTo(61, 6);
  });
  it('keeps straight lines straight (a perspective, not a bend)', () => {
    const h = homography(square, slanted)!;
    const [a, b, c] = [project(h, 0, 50), project(h, 50, 50), project(h, 100, 50)];
    const cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    expect(Math.abs(cross)).toBeLessThan(1e-6);
  });
  it('has no answer when three points are on one line', () => {
    const onALine: Point[] = [
      [0, 0],
      [50, 0],
      [100, 0],
      [0, 100],
    ];
    expect(homography(square, onALine)).toBeNull();
    expect(homography(onALine, square)).toBeNull();
  });
});

/** A 400 x 560 "page": white paper with dark text-like bars in rows, and a mark in one corner to tell the way round. */
function page(): GreyImage {
  const w = 400;
  const h = 560;
  const data = new Uint8Array(w * h).fill(235);
  for (let y = 40; y < h - 40; y++) {
    for (let x = 40; x < w - 40; x++) {
      if (y % 24 < 8 && Math.floor(x / 9) % 4 !== 3) data[y * w + x] = 30;
    }
  }
  for (let y = 10; y < 30; y++) for (let x = 10; x < 30; x++) data[y * w + x] = 0;
  return { width: w, height: h, data };
}

/**
 * `sheet` photographed: drawn into a `width` x `height` picture so that its corners land on `quad`, on a
 * darker table whose brightness wanders, lit less on one side (the paper there is as dark as the table elsewhere).
 */
function photograph(sheet: GreyImage, quad: Quad, width: number, height: number): GreyImage {
  const toSheet = homography(quad, rectCorners(sheet.width, sheet.height))!;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const [sx, sy] = project(toSheet, x, y);
      const onSheet = sx >= 0 && sy >= 0 && sx < sheet.width && sy < sheet.height;
      const v = onSheet ? sheet.data[Math.floor(sy) * sheet.width + Math.floor(sx)]! : 90 + 15 * Math.sin(x / 19) * Math.cos(y / 27);
      data[y * width + x] = v * (1 - 0.45 * (x / width));
    }
  }
  return { width, height, data };
}

/** Largest distance between matching corners. */
const cornerError = (a: Quad, b: Quad): number => Math.max(...a.map(([x, y], i) => Math.hypot(x - b[i]![0], y - b[i]![1])));

describe('findSheet and straightenSheet', () => {
  const quad: Quad = [
    [70, 45],
    [560, 80],
    [590, 760],
    [35, 730],
  ];
  const photo = photograph(page(), quad, 640, 820);

  it('finds the corners of a sheet photographed at a slant, within a few pixels', () => {
    const found = findSheet(photo);
    expect(found).not.toBeNull();
    expect(cornerError(found!, quad)).toBeLessThan(8);
  });

  it('warps it back square on: the page reappears where it was drawn', () => {
    const straight = straightenSheet(photo);
    expect(straight).not.toBe(photo);
    // As wide as the sheet's longer horizontal side and as high as its longer vertical one.
    expect(Math.abs(straight.width - 556)).toBeLessThan(12);
    expect(Math.abs(straight.height - 686)).toBeLessThan(12);
    // Sampled on a grid, the straightened photo's dark pixels are the page's dark pixels. The light falls off
    // to the right, but paper stays above 120 and print below 35 everywhere.
    const original = page();
    let agree = 0;
    let samples = 0;
    for (let v = 0.1; v < 0.95; v += 0.013) {
      for (let u = 0.1; u < 0.95; u += 0.017) {
        const o = original.data[Math.floor(v * original.height) * original.width + Math.floor(u * original.width)]! < 128;
        const s = straight.data[Math.floor(v * straight.height) * straight.width + Math.floor(u * straight.width)]! < 80;
        if (o === s) agree++;
        samples++;
      }
    }
    expect(agree / samples).toBeGreaterThan(0.9);
    // The corner mark is in the top left: the page was not turned or mirrored.
    expect(straight.data[Math.floor(0.035 * straight.height) * straight.width + Math.floor(0.05 * straight.width)]).toBeLessThan(40);
  });

  it('recovers a known quadrilateral: warping a picture by it and back gives the picture', () => {
    const original = page();
    const back = warpQuad(photo, quad, original.width, original.height);
    let diff = 0;
    for (let y = 60; y < 500; y += 7)
      for (let x = 60; x < 340; x += 5)
        diff += Math.abs((back.data[y * 400 + x]! < 80 ? 1 : 0) - (original.data[y * 400 + x]! < 128 ? 1 : 0));
    expect(diff / ((440 / 7) * (280 / 5))).toBeLessThan(0.08);
  });

  it('leaves a page that fills the image (a flatbed scan, a fax) as it is', () => {
    const scan = page();
    expect(findSheet(scan)).toBeNull();
    expect(straightenSheet(scan)).toBe(scan);
  });

  it('leaves a sheet lying square on the table as it is', () => {
    const square: Quad = [
      [50, 40],
      [589, 40],
      [589, 779],
      [50, 779],
    ];
    const upright = photograph(page(), square, 640, 820);
    expect(findSheet(upright)).not.toBeNull();
    expect(straightenSheet(upright)).toBe(upright);
  });

  it('finds no sheet in a picture without one', () => {
    const table = photograph(page(), quad, 640, 820);
    table.data.fill(100);
    expect(findSheet(table)).toBeNull();
  });
});

describe('a phone photo of the corpus read through the pipeline', () => {
  let ocr: Ocr;
  beforeAll(async () => {
    ocr = await createOcr({ workers: 1, languages: 'eng+deu' });
  });
  afterAll(async () => {
    await ocr.terminate();
  });

  // own 026: a German table photographed at a slant; before straightening, OCR read neither its number nor its dates.
  it('reads the policy number and dates of own 026', async () => {
    const dir = fileURLToPath(new URL('../fixtures/policies/', import.meta.url));
    const truth = JSON.parse(readFileSync(`${dir}026.json`, 'utf8')) as Record<string, string>;
    const r = await extractFields(
      new Uint8Array(readFileSync(`${dir}026.pdf`)),
      { ocr, matcher: await shippedMatcher() },
      { limits: EXTRACT_LIMIT_DEFAULTS },
    );
    expect(r.ocrPages).toBe(1);
    expect(r.fields.policy_number).toBe(truth.policy_number);
    expect(r.fields.start_date).toBe(truth.start_date);
    expect(r.fields.end_date).toBe(truth.end_date);
  }, 60_000);
});
