/**
 * JPEG and PNG uploads read as one-page scans: told by their bytes, sized from their headers and held to
 * the document limits before anything is decoded, read upright whichever way the photo was taken.
 */
import { createCanvas } from '@napi-rs/canvas';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { ExtractError } from '../../connector/src/extract/errors.js';
import type { InsurerMatcher } from '../../connector/src/extract/fields/document-fields.js';
import { decodeImage, readImageHeader, sniffImage } from '../../connector/src/extract/reading/image-input.js';
import { createOcr, type Ocr } from '../../connector/src/extract/reading/ocr.js';
import { extractFields } from '../../connector/src/extract/pipeline.js';
import { asImageFile, drawPlain, pngBomb } from '../../scripts/procedural/technicalities/index.js';
import { DE_MOTOR, UK_MOTOR, type SimplePolicy } from '../helpers/simple-policies.js';
import { shippedMatcher } from './helpers.js';

async function rejection(p: Promise<unknown>): Promise<ExtractError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ExtractError);
  return err as ExtractError;
}

/** A JPEG whose pixels lie on their side, with the EXIF Orientation (6: turn 90 degrees clockwise) a phone writes. */
async function sidewaysJpegWithExif(jpeg: Buffer): Promise<Buffer> {
  const tiff = Buffer.from([0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]);
  const body = Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff]);
  const app1 = Buffer.concat([Buffer.from([0xff, 0xe1, (body.length + 2) >> 8, (body.length + 2) & 255]), body]);
  return Buffer.concat([jpeg.subarray(0, 2), app1, jpeg.subarray(2)]);
}

describe('image headers', () => {
  it('tells JPEG and PNG by their first bytes, and nothing else', async () => {
    const canvas = createCanvas(30, 20);
    expect(sniffImage(await canvas.encode('png'))).toBe('png');
    expect(sniffImage(await canvas.encode('jpeg'))).toBe('jpeg');
    expect(sniffImage(Buffer.from('%PDF-1.7\n'))).toBeNull();
    expect(sniffImage(Buffer.from('GIF89a'))).toBeNull();
    expect(readImageHeader(await canvas.encode('png'), 'png')).toEqual({ width: 30, height: 20 });
    expect(readImageHeader(await canvas.encode('jpeg'), 'jpeg')).toEqual({ width: 30, height: 20 });
    expect(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00]), 'jpeg')).toBeNull();
  });

  it('refuses a PNG bomb by the per-image pixel limit it crosses, from its header, before decoding it', async () => {
    const bomb = pngBomb(100_000, 100_000);
    expect(bomb.length).toBeLessThan(100);
    const err = await rejection(decodeImage(bomb, 'png', EXTRACT_LIMIT_DEFAULTS));
    expect(err.code).toBe('over_limit');
    expect(err.publicMessage).toBe(
      'The image is 100,000 x 100,000 pixels (10,000 million pixels); the limit is 40 million pixels per image.',
    );
  });

  it('refuses an image whose size cannot be read as unreadable, saying so of the image', async () => {
    const cut = (await createCanvas(30, 20).encode('jpeg')).subarray(0, 40);
    const err = await rejection(decodeImage(cut, 'jpeg', EXTRACT_LIMIT_DEFAULTS));
    expect(err.code).toBe('corrupt_pdf');
    expect(err.publicMessage).toMatch(/^The JPEG image could not be read/);
  });

  it('scales a photo larger than a rendered page down to the per-page pixel limit', async () => {
    const big = await createCanvas(4000, 3000).encode('jpeg', 50);
    const grey = await decodeImage(big, 'jpeg', { ...EXTRACT_LIMIT_DEFAULTS, maxPagePixels: 3_000_000 });
    expect(grey.width * grey.height).toBeLessThanOrEqual(3_000_000);
    expect(grey.width / grey.height).toBeCloseTo(4 / 3, 2);
  });
});

describe('extractFields on photos', () => {
  let ocr: Ocr;
  let matcher: InsurerMatcher;
  let passes = 0;
  const counted: Ocr = { recognize: (image) => (passes++, ocr.recognize(image)), terminate: () => Promise.resolve() };
  beforeAll(async () => {
    ocr = await createOcr({ workers: 1 });
    matcher = await shippedMatcher();
  });
  afterAll(async () => {
    await ocr.terminate();
  });

  async function expectRead(image: Buffer, policy: SimplePolicy): Promise<void> {
    const r = await extractFields(image, { ocr: counted, matcher }, { limits: EXTRACT_LIMIT_DEFAULTS });
    expect([r.pages, r.ocrPages]).toEqual([1, 1]);
    for (const [f, want] of Object.entries(policy.truth)) if (want) expect(r.fields[f as keyof typeof r.fields], f).toBe(want);
  }

  it('reads a JPEG of the page as a scan, every field', async () => {
    await expectRead(await asImageFile(await drawPlain(UK_MOTOR.drawing), 'jpeg'), UK_MOTOR);
  }, 120_000);

  it('reads a PNG of the page turned on its side', async () => {
    await expectRead(await asImageFile(await drawPlain(DE_MOTOR.drawing), 'png', { turns: [90] }), DE_MOTOR);
  }, 120_000);

  it('shows a phone photo as its EXIF orientation says: one OCR pass, as for an upright page', async () => {
    passes = 0;
    const sideways = await asImageFile(await drawPlain(UK_MOTOR.drawing), 'jpeg', { turns: [270] });
    await expectRead(await sidewaysJpegWithExif(sideways), UK_MOTOR);
    expect(passes).toBe(1);
  }, 120_000);
});
