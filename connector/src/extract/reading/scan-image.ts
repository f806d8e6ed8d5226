/** Greyscale page images for OCR: quarter-turn rotation, flattening of uneven light, sharpening, and PGM encoding. */

/** 8-bit greyscale pixels, row by row. */
export interface GreyImage {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Clockwise quarter turns a page is turned by before OCR. */
export type QuarterTurn = 0 | 90 | 180 | 270;

/** The image turned clockwise by `degrees` (a new image; 0 returns the same one). */
export function rotate(img: GreyImage, degrees: QuarterTurn): GreyImage {
  if (degrees === 0) return img;
  const { width: w, height: h, data } = img;
  const out = new Uint8Array(w * h);
  if (degrees === 180) {
    for (let i = 0, j = w * h - 1; i < w * h; i++, j--) out[j] = data[i]!;
    return { width: w, height: h, data: out };
  }
  // Turned a quarter, the image is h wide and w high.
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) {
      // 90 clockwise: (x, y) -> (h - 1 - y, x); 270: (x, y) -> (y, w - 1 - x).
      const target = degrees === 90 ? x * h + (h - 1 - y) : (w - 1 - x) * h + y;
      out[target] = data[row + x]!;
    }
  }
  return { width: h, height: w, data: out };
}

/** Paper whose darkest part is at least this share of its brightest is evenly lit. */
const EVEN_LIGHT = 0.85;

/**
 * Divides each pixel by the paper's brightness around it, so a page photographed under uneven light
 * (a shadow across one side, a dim corner), on tinted paper, or scanned grey reads as black on even
 * white. The paper's brightness is the brightest pixels of each `cell` x `cell` tile, smoothed
 * across the neighbouring tiles and interpolated between tile centres: text strokes are thinner than
 * a tile, so they never count as paper. A page whose paper is equally bright all over (a flatbed
 * scan, a fax) is returned as it is, without the pass over its pixels: tesseract's own global
 * threshold serves it, and the step costs such a page only the sampling of its tiles.
 */
export function flattenLight(img: GreyImage, cell = 32): GreyImage {
  const { width: w, height: h, data } = img;
  const cols = Math.ceil(w / cell);
  const rows = Math.ceil(h / cell);
  // The 90th percentile of each tile, not its maximum: a dust speck or JPEG ringing would otherwise set it.
  const tile = new Float32Array(cols * rows);
  const hist = new Uint32Array(256);
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx < cols; tx++) {
      hist.fill(0);
      const x1 = Math.min(w, (tx + 1) * cell);
      const y1 = Math.min(h, (ty + 1) * cell);
      let n = 0;
      for (let y = ty * cell; y < y1; y += 2) {
        for (let x = tx * cell; x < x1; x += 2) {
          hist[data[y * w + x]!]!++;
          n++;
        }
      }
      let seen = 0;
      let v = 255;
      while (v > 0 && seen + hist[v]! < n * 0.1) seen += hist[v--]!;
      tile[ty * cols + tx] = v;
    }
  }
  // A tile inside a dark block (a filled header bar, a photo) has no paper in it: it takes its brightest neighbour's.
  const paper = new Float32Array(cols * rows);
  for (let ty = 0; ty < rows; ty++) {
    for (let tx = 0; tx < cols; tx++) {
      let best = 0;
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const yy = ty + dy;
          const xx = tx + dx;
          if (yy >= 0 && yy < rows && xx >= 0 && xx < cols) best = Math.max(best, tile[yy * cols + xx]!);
        }
      }
      // Light changes gently from tile to tile; a tile far darker than its brightest neighbour holds no paper.
      const own = tile[ty * cols + tx]!;
      paper[ty * cols + tx] = Math.max(own < 0.7 * best ? best : own, 48);
    }
  }
  let lo = 255;
  let hi = 0;
  for (const v of paper) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  if (lo >= EVEN_LIGHT * hi) return img;
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const fy = Math.min(rows - 1, Math.max(0, (y - cell / 2) / cell));
    const y0 = Math.floor(fy);
    const y1 = Math.min(rows - 1, y0 + 1);
    const wy = fy - y0;
    for (let x = 0; x < w; x++) {
      const fx = Math.min(cols - 1, Math.max(0, (x - cell / 2) / cell));
      const x0 = Math.floor(fx);
      const x1 = Math.min(cols - 1, x0 + 1);
      const wx = fx - x0;
      const top = paper[y0 * cols + x0]! * (1 - wx) + paper[y0 * cols + x1]! * wx;
      const bottom = paper[y1 * cols + x0]! * (1 - wx) + paper[y1 * cols + x1]! * wx;
      const bg = top * (1 - wy) + bottom * wy;
      const v = (data[y * w + x]! * 255) / bg;
      out[y * w + x] = v > 255 ? 255 : v;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * Unsharp masking: each pixel pushed away from the mean of its 3 x 3 neighbourhood by `amount` times
 * the difference, so soft letter edges become steep again. Tesseract's line finder passes over soft,
 * bold text on a photo (a label read as nothing at all) that it finds once sharpened.
 */
export function sharpen(img: GreyImage, amount = 1): GreyImage {
  const { width: w, height: h, data } = img;
  // Sums of three pixels across, per row, then of three such sums down: the 3 x 3 box in two passes.
  const across = new Uint16Array(w * h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    for (let x = 0; x < w; x++) across[row + x] = data[row + Math.max(0, x - 1)]! + data[row + x]! + data[row + Math.min(w - 1, x + 1)]!;
  }
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    const up = Math.max(0, y - 1) * w;
    const row = y * w;
    const down = Math.min(h - 1, y + 1) * w;
    for (let x = 0; x < w; x++) {
      const v = data[row + x]!;
      const s = v + amount * (v - (across[up + x]! + across[row + x]! + across[down + x]!) / 9);
      out[row + x] = s < 0 ? 0 : s > 255 ? 255 : s;
    }
  }
  return { width: w, height: h, data: out };
}

/** Binary PGM (P5), which tesseract's Leptonica reads natively. */
export function toPgm(img: GreyImage): Buffer {
  const header = Buffer.from(`P5\n${img.width} ${img.height}\n255\n`, 'latin1');
  const out = Buffer.allocUnsafe(header.length + img.data.length);
  header.copy(out);
  out.set(img.data, header.length);
  return out;
}

/** The pixels of a binary PGM as written by toPgm or rgbaToPgm. */
export function fromPgm(pgm: Buffer): GreyImage {
  const m = /^P5\n(\d+) (\d+)\n255\n/.exec(pgm.subarray(0, 32).toString('latin1'));
  if (!m) throw new RangeError('not a binary 8-bit PGM');
  const width = Number(m[1]);
  const height = Number(m[2]);
  const data = new Uint8Array(pgm.buffer, pgm.byteOffset + m[0].length, width * height);
  return { width, height, data };
}

/** The image at half its width and height, each pixel the mean of four: a quick look for orientation trials. */
export function halve(img: GreyImage): GreyImage {
  const w = img.width >> 1;
  const h = img.height >> 1;
  const out = new Uint8Array(w * h);
  const src = img.data;
  for (let y = 0; y < h; y++) {
    const a = 2 * y * img.width;
    const b = a + img.width;
    for (let x = 0; x < w; x++) out[y * w + x] = (src[a + 2 * x]! + src[a + 2 * x + 1]! + src[b + 2 * x]! + src[b + 2 * x + 1]! + 2) >> 2;
  }
  return { width: w, height: h, data: out };
}
