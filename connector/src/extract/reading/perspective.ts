/** Phone photos of a page: finds the sheet's four corners against a darker background and warps the sheet to an upright rectangle. */
import type { GreyImage } from './scan-image.js';

export type Point = [number, number];
/** Corners in order: top left, top right, bottom right, bottom left. */
export type Quad = [Point, Point, Point, Point];

/**
 * The 3x3 projective transform (row by row, h33 = 1, so eight numbers) that maps each of the four
 * `from` points onto the `to` point of the same index: the eight linear equations u = (h0 x + h1 y + h2) /
 * (h6 x + h7 y + 1), v = (h3 x + h4 y + h5) / (h6 x + h7 y + 1), solved by Gaussian elimination.
 * Null when three of either set's points are on one line (no transform between them exists).
 */
export function homography(from: readonly Point[], to: readonly Point[]): number[] | null {
  const a: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    a.push([x, y, 1, 0, 0, 0, -u * x, -u * y, u]);
    a.push([0, 0, 0, x, y, 1, -v * x, -v * y, v]);
  }
  // A pivot this small against the matrix's entries is a zero that rounding left over.
  const tiny = 1e-9 * Math.max(...a.flat().map(Math.abs));
  for (let c = 0; c < 8; c++) {
    let p = c;
    for (let r = c + 1; r < 8; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    if (Math.abs(a[p]![c]!) <= tiny) return null;
    [a[c], a[p]] = [a[p]!, a[c]!];
    for (let r = 0; r < 8; r++) {
      if (r === c) continue;
      const f = a[r]![c]! / a[c]![c]!;
      for (let k = c; k < 9; k++) a[r]![k]! -= f * a[c]![k]!;
    }
  }
  const h = a.map((row, i) => row[8]! / row[i]!);
  // Four points onto three on one line solve the equations too, but with a transform that flattens the plane.
  const det = h[0]! * (h[4]! - h[5]! * h[7]!) - h[1]! * (h[3]! - h[5]! * h[6]!) + h[2]! * (h[3]! * h[7]! - h[4]! * h[6]!);
  return Math.abs(det) < 1e-12 ? null : h;
}

/** Where the transform `h` (from homography) takes the point (x, y). */
export function project(h: readonly number[], x: number, y: number): Point {
  const d = h[6]! * x + h[7]! * y + 1;
  return [(h[0]! * x + h[1]! * y + h[2]!) / d, (h[3]! * x + h[4]! * y + h[5]!) / d];
}

/** The corners of a `width` x `height` image, clockwise from the top left, in a Quad's order. */
export function rectCorners(width: number, height: number): Quad {
  return [
    [0, 0],
    [width - 1, 0],
    [width - 1, height - 1],
    [0, height - 1],
  ];
}

/** The brightness at (sx, sy), bilinearly between the four pixels around it; null where there aren't four (off the image or on its last row or column). */
export function bilinear(img: GreyImage, sx: number, sy: number): number | null {
  const { width: w, height: h, data } = img;
  if (!(sx >= 0 && sy >= 0 && sx < w - 1 && sy < h - 1)) return null;
  const x0 = sx | 0;
  const y0 = sy | 0;
  const fx = sx - x0;
  const fy = sy - y0;
  const i = y0 * w + x0;
  return (data[i]! * (1 - fx) + data[i + 1]! * fx) * (1 - fy) + (data[i + w]! * (1 - fx) + data[i + w + 1]! * fx) * fy;
}

/**
 * The part of `img` inside `quad` as a `width` x `height` upright image: every output pixel is taken
 * from the point of the quadrilateral it maps to, bilinearly between the four pixels around it (white
 * outside the image).
 */
export function warpQuad(img: GreyImage, quad: Quad, width: number, height: number): GreyImage {
  const h = homography(rectCorners(width, height), quad);
  if (!h) throw new RangeError('degenerate quadrilateral');
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    // Along a row of the output the numerators and the denominator each grow by a constant step.
    let nx = h[1]! * y + h[2]!;
    let ny = h[4]! * y + h[5]!;
    let d = h[7]! * y + 1;
    for (let x = 0; x < width; x++, nx += h[0]!, ny += h[3]!, d += h[6]!) {
      const sx = nx / d;
      const sy = ny / d;
      out[y * width + x] = bilinear(img, sx, sy) ?? 255;
    }
  }
  return { width, height, data: out };
}

/** The detection works on an image this many pixels on its longer side: a tenth of the pixels' worth of work. */
const DETECT_SIZE = 320;
/** A step up in brightness by this factor, from background to sheet, is the sheet's edge. */
const EDGE_STEP = 1.35;
/** Pixels (of the small image) either side of a step that are averaged on each side. */
const STEP_SPAN = 3;
/** A side is found when at least this share of the scan lines across it meet it on its fitted line. */
const MIN_SUPPORT = 0.6;
/** A side this close to the image's axis (in degrees) is straight already. */
const STRAIGHT_DEGREES = 0.4;

/** The image shrunk by a whole factor, each pixel the mean of its block. */
function shrink(img: GreyImage, f: number): GreyImage {
  const w = Math.floor(img.width / f);
  const h = Math.floor(img.height / f);
  const sum = new Uint32Array(w * h);
  for (let y = 0; y < h * f; y++) {
    const row = y * img.width;
    const out = ((y / f) | 0) * w;
    for (let x = 0, i = row; x < w; x++) {
      let s = 0;
      for (let k = 0; k < f; k++) s += img.data[i++]!;
      sum[out + x]! += s;
    }
  }
  const data = new Uint8Array(w * h);
  for (let i = 0; i < data.length; i++) data[i] = sum[i]! / (f * f);
  return { width: w, height: h, data };
}

/**
 * Scanning one line of pixels inwards from the image's border: the first place where the mean of
 * the next STEP_SPAN pixels is EDGE_STEP times the mean of the previous ones, moved to the largest
 * step nearby, provided everything between the border and the step is darker by that factor too.
 * Null when no such step comes before the line's middle. `at(i)` reads the i-th pixel
 * from the border.
 */
function firstStepUp(at: (i: number) => number, length: number): number | null {
  const ratio = (i: number): number => {
    let before = 0;
    let after = 0;
    for (let k = 1; k <= STEP_SPAN; k++) {
      before += at(i - k);
      after += at(i + k - 1);
    }
    return after / Math.max(before, STEP_SPAN);
  };
  // The whole stretch from the border to the step must be darker too: a letter on paper steps up to paper as well.
  let outside = 0;
  for (let k = 0; k < STEP_SPAN; k++) outside += at(k);
  for (let i = STEP_SPAN; i < length / 2; outside += at(i), i++) {
    const r = ratio(i);
    if (r < EDGE_STEP) continue;
    let after = 0;
    for (let k = 0; k < STEP_SPAN; k++) after += at(i + k);
    if ((outside / i) * EDGE_STEP > after / STEP_SPAN) continue;
    let best = i;
    for (let j = i + 1; j <= i + STEP_SPAN && j < length - STEP_SPAN; j++) if (ratio(j) > ratio(best)) best = j;
    return best;
  }
  return null;
}

/** A line a*t + b fitted to (t, s) points by least squares, then again without points far from it; with the points that stay. */
function robustLine(points: Point[]): { a: number; b: number; inliers: number } | null {
  let use = points;
  let fit = { a: 0, b: 0 };
  for (const tolerance of [Infinity, 4, 2, 1.5]) {
    if (tolerance !== Infinity) use = points.filter(([t, s]) => Math.abs(s - (fit.a * t + fit.b)) <= tolerance);
    if (use.length < 8) return null;
    let st = 0;
    let ss = 0;
    let stt = 0;
    let sts = 0;
    for (const [t, s] of use) {
      st += t;
      ss += s;
      stt += t * t;
      sts += t * s;
    }
    const n = use.length;
    const den = n * stt - st * st;
    if (den === 0) return null;
    const a = (n * sts - st * ss) / den;
    fit = { a, b: (ss - a * st) / n };
  }
  return { ...fit, inliers: use.length };
}

/**
 * The corners of a sheet of paper photographed on a darker surface, or null when there is no clear
 * sheet: each of its four sides must be a straight step up in brightness met by most scan lines
 * across it. Brightness steps are compared as ratios, so a side in shadow is found as well as one
 * in light. The work is done on a copy shrunk to DETECT_SIZE pixels on its longer side.
 */
export function findSheet(img: GreyImage): Quad | null {
  const f = Math.max(1, Math.floor(Math.max(img.width, img.height) / DETECT_SIZE));
  const small = f > 1 ? shrink(img, f) : img;
  const { width: w, height: h, data } = small;
  if (w < 32 || h < 32) return null;
  const left: Point[] = [];
  const right: Point[] = [];
  const top: Point[] = [];
  const bottom: Point[] = [];
  // Sides are looked for across the middle of the image, where the sheet's corners (and the steps a corner makes) are not.
  for (let y = Math.floor(h * 0.15); y < h * 0.85; y++) {
    const row = y * w;
    const l = firstStepUp((i) => data[row + i]!, w);
    if (l !== null) left.push([y, l]);
    const r = firstStepUp((i) => data[row + w - 1 - i]!, w);
    if (r !== null) right.push([y, w - r]);
  }
  for (let x = Math.floor(w * 0.15); x < w * 0.85; x++) {
    const t = firstStepUp((i) => data[i * w + x]!, h);
    if (t !== null) top.push([x, t]);
    const b = firstStepUp((i) => data[(h - 1 - i) * w + x]!, h);
    if (b !== null) bottom.push([x, h - b]);
  }
  const lines = [left, right, top, bottom].map(robustLine);
  const scanned = [0.7 * h, 0.7 * h, 0.7 * w, 0.7 * w];
  if (lines.some((l, i) => !l || l.inliers < MIN_SUPPORT * scanned[i]!)) return null;
  const [L, R, T, B] = lines as Array<{ a: number; b: number }>;
  // Left and right are x = a*y + b, top and bottom y = a*x + b: corner = where one of each meets.
  const meet = (v: { a: number; b: number }, hz: { a: number; b: number }): Point => {
    const y = (hz.a * v.b + hz.b) / (1 - hz.a * v.a);
    return [v.a * y + v.b, y];
  };
  const small4: Quad = [meet(L!, T!), meet(R!, T!), meet(R!, B!), meet(L!, B!)];
  // A sheet that leaves the picture, or one of less than a third of it, is not a clear sheet.
  if (small4.some(([x, y]) => x < -0.02 * w || y < -0.02 * h || x > 1.02 * w || y > 1.02 * h)) return null;
  if (area(small4) < (w * h) / 3) return null;
  return small4.map(([x, y]) => [x * f, y * f]) as Quad;
}

/** Area of a quadrilateral (shoelace formula); negative when its corners run anticlockwise on screen. */
function area(q: Quad): number {
  let s = 0;
  for (let i = 0; i < 4; i++) {
    const [x0, y0] = q[i]!;
    const [x1, y1] = q[(i + 1) % 4]!;
    s += x0 * y1 - x1 * y0;
  }
  return s / 2;
}

const length = ([x0, y0]: Point, [x1, y1]: Point): number => Math.hypot(x1 - x0, y1 - y0);
/** How far (degrees) the side from p to q is from the nearest of the image's axes. */
const offAxis = ([x0, y0]: Point, [x1, y1]: Point): number => {
  const deg = (Math.atan2(Math.abs(y1 - y0), Math.abs(x1 - x0)) * 180) / Math.PI;
  return Math.min(deg, 90 - deg);
};

/** True when every side of the sheet is within STRAIGHT_DEGREES of the image's axes: nothing to straighten. */
function squareOn(quad: Quad): boolean {
  return quad.every((p, i) => offAxis(p, quad[(i + 1) % 4]!) < STRAIGHT_DEGREES);
}

/** True when `img` shows a sheet lying at a slant on a darker surface: a phone photo, which straightenSheet warps. */
export function sheetAtSlant(img: GreyImage): boolean {
  const quad = findSheet(img);
  return !!quad && !squareOn(quad);
}

/**
 * A photo of a sheet taken at a slant, as the sheet alone seen square on: its corners found by
 * findSheet, moved a little inwards (so no strip of the table stays at the border), and warped to a
 * rectangle as wide as the sheet's longer horizontal side and as high as its longer vertical one, times
 * `scale(width, height)` of that rectangle (1 by default: enlarging in the warp interpolates once, not twice).
 * An image without a clear sheet (a flatbed scan, a fax: the paper fills it) or whose sheet is
 * already upright and square is returned as it is.
 */
export function straightenSheet(img: GreyImage, scale: (width: number, height: number) => number = () => 1): GreyImage {
  const quad = findSheet(img);
  if (!quad || squareOn(quad)) return img;
  const inset = Math.max(img.width, img.height) / DETECT_SIZE;
  const [cx, cy] = [quad.reduce((s, p) => s + p[0], 0) / 4, quad.reduce((s, p) => s + p[1], 0) / 4];
  const inner = quad.map(([x, y]) => {
    const d = Math.hypot(x - cx, y - cy);
    return [x + ((cx - x) * inset * 1.5) / d, y + ((cy - y) * inset * 1.5) / d];
  }) as Quad;
  const width = Math.max(length(inner[0], inner[1]), length(inner[3], inner[2]));
  const height = Math.max(length(inner[0], inner[3]), length(inner[1], inner[2]));
  const k = scale(width, height);
  return warpQuad(img, inner, Math.round(width * k), Math.round(height * k));
}
