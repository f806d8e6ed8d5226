/**
 * The per-document budget in the pipeline: each hostile document is refused by
 * the limit it crosses, with the limit and its value in the message, before the step the limit pays
 * for; whatever pdf.js or the canvas throws for a document is an unreadable document, not a crash.
 * The time and memory limits live in the pools (process-limits.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { ExtractError } from '../../connector/src/extract/errors.js';
import type { ExtractLimits } from '../../connector/src/extract/limits.js';
import type { Ocr } from '../../connector/src/extract/reading/ocr.js';
import { checkedPages, openPdf } from '../../connector/src/extract/reading/open-pdf.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { OCR_DPI, OCR_TEXT_THRESHOLD, planOcrRender } from '../../connector/src/extract/reading/render.js';
import { scanStreams } from '../../connector/src/extract/reading/stream-scan.js';
import { readTextLines, textLength } from '../../connector/src/extract/reading/text-layer.js';
import { CORPUS_DIR, shippedMatcher } from './helpers.js';
import { circularPageTree, flateBomb, hugeBlankPages, hugeImage, pdfFromObjects, streamObject, zerosDeflated } from './hostile.js';

/** An OCR that reads nothing and records the size of every page it is given (PGM header). */
function recordingOcr(): Ocr & { pages: { width: number; height: number }[] } {
  const pages: { width: number; height: number }[] = [];
  return {
    pages,
    async recognize(image) {
      const m = /^P5\n(\d+) (\d+)\n/.exec(image.subarray(0, 32).toString('latin1'));
      pages.push({ width: Number(m![1]), height: Number(m![2]) });
      return { lines: [], confidence: 0 };
    },
    terminate: () => Promise.resolve(),
  };
}

async function refusal(pdf: Uint8Array, limits: Partial<ExtractLimits> = {}, ocr: Ocr = recordingOcr()): Promise<ExtractError> {
  const err = await extractFields(pdf, { ocr, matcher: await shippedMatcher() }, { limits: { ...EXTRACT_LIMIT_DEFAULTS, ...limits } }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExtractError);
  return err as ExtractError;
}

/** Blank pages of the given sizes in pt (pdf-lib). */
async function blankPages(...sizes: [number, number][]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const size of sizes) doc.addPage(size);
  return doc.save();
}

describe('hostile documents are refused by the limit they cross, before the work it bounds', () => {
  it('20 blank 5000 x 5000 pt pages: page 1 is over the page area limit; nothing is rendered', async () => {
    const pdf = hugeBlankPages(20, 5000);
    expect(pdf.length).toBeLessThan(1000);
    const ocr = recordingOcr();
    const err = await refusal(pdf, {}, ocr);
    expect(err.code).toBe('over_limit');
    expect(err.publicMessage).toBe(
      'Page 1 is 5,000 x 5,000 pt (25 million pt²); the limit is 10 million pt² per page (A0 is 2,384 x 3,370 pt).',
    );
    expect(ocr.pages).toEqual([]);
  });

  it('a 3 MB flate bomb (3 GB of page content): over the decoded-stream limit, counted only up to the limit', async () => {
    const pdf = flateBomb();
    expect(pdf.length).toBeLessThan(4 * 1024 * 1024);
    const err = await refusal(pdf);
    expect(err.code).toBe('over_limit');
    expect(err.publicMessage).toBe("The PDF's compressed page contents and fonts decode to more than 64 MB, the limit per document.");
  });

  it('a 40,000 x 40,000 image: over the image size limit, from its dictionary, before it is decoded', async () => {
    const ocr = recordingOcr();
    const err = await refusal(hugeImage(), {}, ocr);
    expect(err.code).toBe('over_limit');
    expect(err.publicMessage).toBe(
      'An image in the PDF is 40,000 x 40,000 pixels (1,600 million pixels); the limit is 40 million pixels per image.',
    );
    expect(ocr.pages).toEqual([]);
  });

  it('a page tree that lists itself: corrupt_pdf, not a thrown pdf.js error', async () => {
    const err = await refusal(circularPageTree());
    expect(err.code).toBe('corrupt_pdf');
    expect(err.message).toMatch(/circular/i);
    expect(err.publicMessage).toMatch(/not a readable PDF/);
  });

  it('a page the canvas cannot be made for ("Create skia surface failed"): corrupt_pdf naming the page', async () => {
    // With the area and pixel limits opened up, a 14,400 pt page reaches the canvas at 150 dpi: 30,000 px a side.
    const err = await refusal(hugeBlankPages(1, 14_400), {
      maxPageAreaPt2: 1e12,
      maxTotalAreaPt2: 1e12,
      maxPagePixels: 1e12,
      maxTotalPixels: 1e12,
    });
    expect(err.code).toBe('corrupt_pdf');
    expect(err.message).toMatch(/skia surface/i);
    expect(err.publicMessage).toBe('Page 1 of the PDF could not be drawn for OCR; the file may be damaged. Upload the original PDF.');
  });
});

describe('page limits', () => {
  it('too many pages names the count and the limit', async () => {
    const err = await refusal(await blankPages(...Array<[number, number]>(21).fill([200, 200])));
    expect(err.code).toBe('too_many_pages');
    expect(err.publicMessage).toBe('The PDF has 21 pages; the limit is 20. Upload only the policy schedule or certificate.');
  });

  it('pages under the per-page limit that add up past the total are refused at the page that crosses it', async () => {
    const ocr = recordingOcr();
    const err = await refusal(await blankPages(...Array<[number, number]>(5).fill([3000, 3000])), {}, ocr);
    expect(err.publicMessage).toBe('Pages 1 to 5 measure 45 million pt² together; the limit is 40 million pt² per document.');
    expect(ocr.pages).toEqual([]);
  });

  it('a page over the rendered-pixel limit is rendered at a lower resolution, within the limit, rather than refused', async () => {
    const ocr = recordingOcr();
    // 3000 x 3000 pt at 150 dpi would be 6250 x 6250 = 39 million pixels.
    const err = await refusal(await blankPages([3000, 3000]), {}, ocr);
    expect(err.code).toBe('no_readable_text');
    expect(ocr.pages).toHaveLength(1);
    const { width, height } = ocr.pages[0]!;
    expect(width * height).toBeLessThanOrEqual(EXTRACT_LIMIT_DEFAULTS.maxPagePixels);
    expect(width * height).toBeGreaterThan(EXTRACT_LIMIT_DEFAULTS.maxPagePixels * 0.99);
  });

  it('OCR stops at the page that would take the document past its rendered-pixel total', async () => {
    const ocr = recordingOcr();
    // An A4 page at 150 dpi is 1240 x 1755 = 2.2 million pixels.
    const err = await refusal(await blankPages([595, 842], [595, 842]), { maxTotalPixels: 3_000_000 }, ocr);
    expect(err.publicMessage).toBe(
      'Reading page 2 by OCR would bring the pixels rendered for this document to 4.4 million; the limit is 3 million per document. Upload only the pages of the policy schedule or certificate.',
    );
    expect(ocr.pages).toEqual([{ width: 1240, height: 1755 }]);
  });

  it('planOcrRender keeps the dpi of a page inside the limit and lowers it for a larger one', () => {
    const limits = { maxPagePixels: 9_000_000, maxTotalPixels: 50_000_000 };
    expect(planOcrRender({ width: 595, height: 842 }, 1, 150, limits, 0)).toEqual({ dpi: 150, pixels: 1240 * 1755 });
    const big = planOcrRender({ width: 2480, height: 3508 }, 1, 150, limits, 0);
    expect(big.dpi).toBeLessThan(150);
    expect(big.pixels).toBeLessThanOrEqual(9_000_000);
    expect(() => planOcrRender({ width: 595, height: 842 }, 9, 150, limits, 49_000_000)).toThrow(/page 9/);
  });
});

describe('decoded stream limits (stream-scan.ts)', () => {
  it('counts a Flate stream that breaks midway up to the break, as pdf.js decodes it', async () => {
    const good = zerosDeflated(8 * 1024 * 1024);
    // The tail replaced by an invalid block: everything before it still inflates.
    const broken = Buffer.concat([good.subarray(0, good.length - 40), Buffer.from([0xff, 0xff, 0xff, 0xff])]);
    const pdf = pdfFromObjects([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [] /Count 0 >>',
      streamObject('/Filter /FlateDecode', broken),
    ]);
    const scan = await scanStreams(pdf, { ...EXTRACT_LIMIT_DEFAULTS });
    expect(scan.streamBytes).toBeGreaterThan(7 * 1024 * 1024);
    await expect(scanStreams(pdf, { ...EXTRACT_LIMIT_DEFAULTS, maxStreamBytes: 4 * 1024 * 1024 })).rejects.toMatchObject({
      code: 'over_limit',
    });
  });

  it('adds up the images of a document against the total', async () => {
    const image = (n: number) =>
      streamObject(
        `/Type /XObject /Subtype /Image /Width 4000 /Height 3000 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Name /I${n}`,
        zerosDeflated(12e6),
      );
    const pdf = pdfFromObjects(['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [] /Count 0 >>', image(1), image(2), image(3)]);
    expect(await scanStreams(pdf, EXTRACT_LIMIT_DEFAULTS)).toMatchObject({ images: 3, imagePixels: 36e6, largestImagePixels: 12e6 });
    await expect(scanStreams(pdf, { ...EXTRACT_LIMIT_DEFAULTS, maxTotalImagePixels: 30e6 })).rejects.toThrow(
      "The PDF's images add up to more than 30 million pixels, the limit per document.",
    );
  });

  it('an image whose size the scan cannot read (an indirect /Width) is left out by pdf.js undecoded: no text, not gigabytes', async () => {
    const pdf = pdfFromObjects([
      '<< /Type /Catalog /Pages 2 0 R >>',
      '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
      '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>',
      streamObject('', Buffer.from('q 595 0 0 842 0 0 cm /Im0 Do Q', 'latin1')),
      streamObject(
        '/Type /XObject /Subtype /Image /Width 6 0 R /Height 6 0 R /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode',
        zerosDeflated(40_000 * 40_000),
      ),
      '40000',
    ]);
    expect((await scanStreams(pdf, EXTRACT_LIMIT_DEFAULTS)).images).toBe(0);
    const ocr = recordingOcr();
    expect((await refusal(pdf, {}, ocr)).code).toBe('no_readable_text');
    expect(ocr.pages).toEqual([{ width: 1240, height: 1755 }]);
  });
});

describe('no document of the corpus comes near a limit', () => {
  const files = readdirSync(CORPUS_DIR).filter((f) => f.endsWith('.pdf'));
  const L = EXTRACT_LIMIT_DEFAULTS;

  it.each(files)('%s', async (file) => {
    const pdf = readFileSync(`${CORPUS_DIR}${file}`);
    const scan = await scanStreams(pdf, L);
    expect(scan.streamBytes).toBeLessThan(L.maxStreamBytes / 100);
    expect(scan.largestImagePixels).toBeLessThan(L.maxImagePixels / 4);
    expect(scan.imagePixels).toBeLessThan(L.maxTotalImagePixels / 10);
    const doc = await openPdf(pdf, L);
    try {
      expect(doc.numPages).toBeLessThanOrEqual(L.maxPages / 4);
      let area = 0;
      let rendered = 0;
      for (const [i, page] of (await checkedPages(doc, L)).entries()) {
        const size = page.getViewport({ scale: 1 });
        expect(size.width * size.height).toBeLessThan(L.maxPageAreaPt2 / 4);
        area += size.width * size.height;
        if (textLength(await readTextLines(page)) >= OCR_TEXT_THRESHOLD) continue;
        const plan = planOcrRender(size, i + 1, OCR_DPI, L, rendered);
        // Every scanned page is read at the full OCR resolution, none lowered to fit.
        expect(plan.dpi).toBe(OCR_DPI);
        rendered += plan.pixels;
      }
      expect(area).toBeLessThan(L.maxTotalAreaPt2 / 10);
      expect(rendered).toBeLessThan(L.maxTotalPixels / 4);
    } finally {
      await doc.destroy();
    }
  });

  it('the corpus holds both text PDFs and scans', () => {
    expect(files.length).toBeGreaterThan(50);
    expect(files).toContain('001.pdf'); // a scan
    expect(files).toContain('002.pdf'); // a text PDF
  });
});
