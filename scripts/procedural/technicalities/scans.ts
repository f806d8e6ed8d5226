/**
 * Documents that arrive as pictures of pages: a PDF of page images (turned on the glass, photographed),
 * a JPEG or PNG photo sent on its own, and a scan carrying an invisible OCR text layer made by tesseract's
 * own PDF renderer, as scanner software and ocrmypdf produce. Pages are drawn by pdf.js as the extractor
 * draws them.
 */
import { createCanvas } from '@napi-rs/canvas';
import { PDFDocument } from 'pdf-lib';
import { createWorker, OEM, PSM } from 'tesseract.js';
import { EXTRACT_LIMIT_DEFAULTS } from '../../../connector/src/config.js';
import { traineddataPath } from '../../../connector/src/extract/reading/ocr.js';
import { openPdf } from '../../../connector/src/extract/reading/open-pdf.js';
import { renderPageGrey } from '../../../connector/src/extract/reading/render.js';
import { rotate, type GreyImage, type QuarterTurn } from '../../../connector/src/extract/reading/scan-image.js';
import { prng } from '../../random.js';
import { photo } from '../../scan-effects.js';

export interface ScanOptions {
  /** Resolution pages are drawn at; 150 dpi unless given. */
  dpi?: number;
  /** Clockwise quarter turns each page lies at, by page (the last repeats): a sheet turned on the glass. */
  turns?: QuarterTurn[];
  /** A phone photo (slant, table, uneven light), with this seed; a flatbed scan when absent. */
  photoSeed?: number;
}

/** Every page of `pdf` as a grey image, as scanned. */
export async function scanPages(pdf: Uint8Array, options: ScanOptions = {}): Promise<GreyImage[]> {
  const dpi = options.dpi ?? 150;
  const doc = await openPdf(pdf, EXTRACT_LIMIT_DEFAULTS);
  try {
    const out: GreyImage[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      let image = await renderPageGrey(doc, await doc.getPage(n), dpi);
      if (options.photoSeed !== undefined) image = photo(image, prng(options.photoSeed + n));
      const turns = options.turns ?? [0];
      out.push(rotate(image, turns[Math.min(n - 1, turns.length - 1)] ?? 0));
    }
    return out;
  } finally {
    await doc.destroy();
  }
}

/** A grey image as PNG or JPEG bytes. */
export async function encodeImage(image: GreyImage, format: 'png' | 'jpeg', quality = 85): Promise<Buffer> {
  const canvas = createCanvas(image.width, image.height);
  const ctx = canvas.getContext('2d');
  const rgba = ctx.createImageData(image.width, image.height);
  for (let i = 0; i < image.data.length; i++) {
    const v = image.data[i]!;
    rgba.data[4 * i] = v;
    rgba.data[4 * i + 1] = v;
    rgba.data[4 * i + 2] = v;
    rgba.data[4 * i + 3] = 255;
  }
  ctx.putImageData(rgba, 0, 0);
  return format === 'png' ? canvas.encode('png') : canvas.encode('jpeg', quality);
}

/** An image-only PDF, one page per image, each page the image's size at `dpi`. */
export async function imagesAsPdf(images: GreyImage[], dpi = 150): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  for (const image of images) {
    const embedded = await doc.embedJpg(await encodeImage(image, 'jpeg', 90));
    const size: [number, number] = [(image.width * 72) / dpi, (image.height * 72) / dpi];
    doc.addPage(size).drawImage(embedded, { x: 0, y: 0, width: size[0], height: size[1] });
  }
  return doc.save();
}

/** `pdf` scanned: its pages as images only, turned or photographed as `options` say. */
export async function asScannedPdf(pdf: Uint8Array, options: ScanOptions = {}): Promise<Uint8Array> {
  return imagesAsPdf(await scanPages(pdf, options), options.dpi ?? 150);
}

/** One page of `pdf` as the photo or scan a person sends as an image file. */
export async function asImageFile(pdf: Uint8Array, format: 'png' | 'jpeg', options: ScanOptions & { page?: number } = {}): Promise<Buffer> {
  const pages = await scanPages(pdf, options);
  return encodeImage(pages[(options.page ?? 1) - 1]!, format);
}

/**
 * `pdf` scanned, with tesseract's invisible text layer over each page image (tesseract's PDF renderer:
 * the image, and its reading in a glyphless font, text render mode 3), pages joined with pdf-lib.
 */
export async function asScanWithOcrLayer(pdf: Uint8Array, options: ScanOptions & { languages?: string } = {}): Promise<Uint8Array> {
  const dpi = options.dpi ?? 150;
  const pages = await scanPages(pdf, options);
  const languages = options.languages ?? 'eng';
  const langPath = traineddataPath(languages).replace(/[/\\][^/\\]+$/, '');
  const worker = await createWorker(languages, OEM.LSTM_ONLY, { langPath, gzip: true, cacheMethod: 'none' });
  try {
    await worker.setParameters({ tessedit_pageseg_mode: PSM.AUTO, user_defined_dpi: String(dpi), debug_file: '/dev/null' });
    const out = await PDFDocument.create();
    for (const page of pages) {
      const result = await worker.recognize(await encodeImage(page, 'png'), {}, { pdf: true, text: false });
      const layered = await PDFDocument.load(Uint8Array.from(result.data.pdf ?? []));
      for (const copied of await out.copyPages(layered, layered.getPageIndices())) out.addPage(copied);
    }
    return out.save();
  } finally {
    await worker.terminate();
  }
}

/**
 * A PNG that declares `width` x `height` pixels and holds almost nothing: an IHDR and one small IDAT whose
 * rows are never all there. A decoder that believes the header allocates the whole image first.
 */
export function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc32(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8);
  // A deflate stream of zero rows, cut short: the decoder learns how little there is only after allocating.
  const idat = Buffer.from([0x78, 0x9c, 0x63, 0x00, 0x00]);
  return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', ihdr), chunk('IDAT', idat), chunk('IEND', Buffer.alloc(0))]);
}

function crc32(data: Buffer): number {
  let c = ~0;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
