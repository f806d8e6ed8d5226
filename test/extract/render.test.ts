import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { openPdf } from '../../connector/src/extract/reading/open-pdf.js';
import { renderPage, renderPageForOcr, rgbaToPgm } from '../../connector/src/extract/reading/render.js';
import { corpusPdf } from './helpers.js';

function parsePgm(buf: Buffer): { width: number; height: number; pixels: Buffer } {
  const m = /^P5\n(\d+) (\d+)\n255\n/.exec(buf.subarray(0, 32).toString('latin1'));
  if (!m) throw new Error('not a binary PGM');
  return { width: Number(m[1]), height: Number(m[2]), pixels: buf.subarray(m[0].length) };
}

describe('rgbaToPgm', () => {
  it('writes a binary PGM header and one BT.601 luma byte per pixel', () => {
    // white, black, pure red, pure green, pure blue, mid grey
    const rgba = Uint8Array.from([255, 255, 255, 255, 0, 0, 0, 255, 255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 128, 128, 128, 255]);
    const { width, height, pixels } = parsePgm(rgbaToPgm(rgba, 3, 2));
    expect([width, height]).toEqual([3, 2]);
    expect([...pixels]).toEqual([255, 0, 76, 149, 28, 128]);
  });

  it('refuses a pixel buffer that does not match the size', () => {
    expect(() => rgbaToPgm(new Uint8Array(10), 3, 2)).toThrow(RangeError);
  });
});

describe('renderPageForOcr', () => {
  it('renders a scanned corpus page to a greyscale PGM of the page size at the dpi (renderPage still gives PNG)', async () => {
    const doc = await openPdf(corpusPdf('015'), EXTRACT_LIMIT_DEFAULTS);
    try {
      const page = await doc.getPage(1);
      const { width, height, pixels } = parsePgm(await renderPageForOcr(doc, page, 100));
      const vp = page.getViewport({ scale: 100 / 72 });
      expect([width, height]).toEqual([Math.ceil(vp.width), Math.ceil(vp.height)]);
      expect(pixels.length).toBe(width * height);
      // A scan is mostly white paper with dark text: both ends of the range occur.
      const dark = pixels.filter((v) => v < 100).length;
      const light = pixels.filter((v) => v > 200).length;
      expect(dark).toBeGreaterThan(width * height * 0.005);
      expect(light).toBeGreaterThan(width * height * 0.5);
      const png = await renderPage(doc, page, 100);
      expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    } finally {
      await doc.destroy();
    }
  });
});
