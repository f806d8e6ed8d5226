/** The corpus generator's scanner: turns a rendered page into a phone photo (perspective, uneven light) or a fax (1-bit, streaks), deterministically. */
import { bilinear, homography, project, rectCorners, type Point } from '../connector/src/extract/reading/perspective.js';

/** 8-bit greyscale pixels, row by row. */
export interface Grey {
  width: number;
  height: number;
  data: Uint8Array;
}

import type { Rand } from './random.js';

/** Gaussian-ish noise from three uniforms, mean 0, about ±1.5 at the extremes. */
const noise = (rand: Rand): number => rand() + rand() + rand() - 1.5;

/**
 * A phone photo of the page: the sheet lies on a darker, mottled table, seen at a slant (each corner
 * moved on its own, so the edges converge), lit from one side with a soft fall-off, slightly out of
 * focus and noisy. The output is `scale` times the page's size in pixels.
 */
export function photo(page: Grey, rand: Rand, scale = 0.9): Grey {
  const W = Math.round(page.width * scale);
  const H = Math.round(page.height * scale);
  const m = 0.06;
  const jitter = (): number => (rand() - 0.5) * 0.06;
  const quad: Point[] = [
    [W * (m + jitter()), H * (m + jitter())],
    [W * (1 - m + jitter()), H * (m + jitter())],
    [W * (1 - m + jitter()), H * (1 - m + jitter())],
    [W * (m + jitter()), H * (1 - m + jitter())],
  ];
  // Output pixel -> page pixel, so every output pixel is sampled once.
  // A slanted quadrilateral inside the picture always has a transform onto the page's corners.
  const h = homography(quad, rectCorners(page.width, page.height))!;
  // Light: brighter towards a random side, dimmer in a corner; the table is darker and mottled.
  const angle = rand() * 2 * Math.PI;
  const [lx, ly] = [Math.cos(angle), Math.sin(angle)];
  const strength = 0.25 + rand() * 0.2;
  const table = 70 + rand() * 50;
  const out = new Uint8Array(W * H);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const [sx, sy] = project(h, x, y);
      // Bilinear: a lens never lands on pixel centres. Off the page, the table.
      const p = bilinear(page, sx, sy);
      const v = p !== null ? p * 0.9 + 12 : table + 12 * Math.sin(x / 37 + Math.sin(y / 53)) + 8 * Math.sin(y / 23);
      const across = ((x / W - 0.5) * lx + (y / H - 0.5) * ly) * 2; // -1.4 .. 1.4
      const light = 1 - strength * (0.5 - across / 2.8) * 1.6;
      out[y * W + x] = Math.max(0, Math.min(255, v * light + noise(rand) * 6));
    }
  }
  return boxBlur(out, W, H);
}

/** A 3 x 3 box blur: the photo's slight lack of focus. */
function boxBlur(src: Uint8Array, w: number, h: number): Grey {
  const out = new Uint8Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      let n = 0;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= h) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= w) continue;
          s += src[yy * w + xx]!;
          n++;
        }
      }
      out[y * w + x] = s / n;
    }
  }
  return { width: w, height: h, data: out };
}

/**
 * A fax of the page: thresholded to black and white at a level that wanders down the page (the
 * machine's automatic contrast), with speckles, a few dark streaks across the page from a dirty
 * scanner bar, and rows dropped where the line was noisy.
 */
export function fax(page: Grey, rand: Rand): Grey {
  const { width: w, height: h } = page;
  const out = new Uint8Array(w * h);
  const streaks = new Set(Array.from({ length: 2 + Math.floor(rand() * 3) }, () => Math.floor(rand() * h)));
  const base = 150 + rand() * 40;
  for (let y = 0; y < h; y++) {
    const level = base + 20 * Math.sin(y / 180 + base);
    const dropped = rand() < 0.004;
    for (let x = 0; x < w; x++) {
      let v = page.data[y * w + x]! + noise(rand) * 30 < level ? 0 : 255;
      if (rand() < 0.0008) v = 0;
      if (streaks.has(y) && rand() < 0.7) v = 0;
      if (dropped) v = 255;
      out[y * w + x] = v;
    }
  }
  return { width: w, height: h, data: out };
}
