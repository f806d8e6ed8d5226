/**
 * A JPEG or PNG upload read as a one-page scan. The kind is told by the file's first bytes, never its name;
 * its size comes from its header (PNG's IHDR, JPEG's frame header) and is checked against the document
 * limits before anything is decoded, so an image that declares a billion pixels in a few bytes (a
 * decompression bomb) costs nothing. The decoder (@napi-rs/canvas, Skia) applies a photo's EXIF orientation
 * itself, as a viewer does; a picture still on its side is turned by the scan reading (read-scan.ts).
 */
import { createCanvas, Image } from '@napi-rs/canvas';
import { ExtractError } from '../errors.js';
import { count, overLimit, type ExtractLimits } from '../limits.js';
import type { GreyImage } from './scan-image.js';

export type ImageKind = 'png' | 'jpeg';

const PNG_SIGNATURE = Buffer.from('89504e470d0a1a0a', 'hex');

/** 'png' or 'jpeg' by the file's signature; null for anything else (a PDF, say). */
export function sniffImage(bytes: Uint8Array): ImageKind | null {
  if (bytes.length >= 8 && Buffer.from(bytes.buffer, bytes.byteOffset, 8).equals(PNG_SIGNATURE)) return 'png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  return null;
}

export interface ImageHeader {
  width: number;
  height: number;
}

/** Width and height as stored, from the header alone; null when the header cannot be read. */
export function readImageHeader(bytes: Uint8Array, kind: ImageKind): ImageHeader | null {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (kind === 'png') {
    if (b.length < 24 || b.toString('latin1', 12, 16) !== 'IHDR') return null;
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  let at = 2;
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = b.readUInt16BE(at + 2);
    if (length < 2) return null;
    // Start of frame (baseline, progressive, lossless...): C0-CF but for DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      if (at + 9 > b.length) return null;
      return { height: b.readUInt16BE(at + 5), width: b.readUInt16BE(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/**
 * The image as grey pixels (as its EXIF orientation shows it), at most `limits.maxPagePixels` (a larger photo
 * is scaled down, as a large page is rendered at a lower resolution). Throws `over_limit` for an image over maxImagePixels,
 * read from its header, and `corrupt_pdf` (with a message about the image) for one that cannot be decoded.
 */
export async function decodeImage(
  bytes: Uint8Array,
  kind: ImageKind,
  limits: Pick<ExtractLimits, 'maxImagePixels' | 'maxPagePixels'>,
): Promise<GreyImage> {
  const header = readImageHeader(bytes, kind);
  if (!header || header.width < 1 || header.height < 1) throw unreadableImage(kind, 'its header cannot be read');
  const pixels = header.width * header.height;
  if (pixels > limits.maxImagePixels) {
    throw overLimit(
      `The image is ${count(header.width)} x ${count(header.height)} pixels (${count(pixels)} pixels); the limit is ${count(limits.maxImagePixels)} pixels per image.`,
    );
  }
  const image = new Image();
  await new Promise<void>((resolve, reject) => {
    image.onload = () => resolve();
    image.onerror = (err) => reject(err);
    image.src = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }).catch((err: unknown) => {
    throw unreadableImage(kind, err instanceof Error ? err.message : String(err));
  });
  // The decoder's own idea of the size is the one drawn; it must agree with what the header promised.
  if (image.width * image.height > limits.maxImagePixels || image.width < 1)
    throw unreadableImage(kind, 'its size does not match its header');
  const scale = Math.min(1, Math.sqrt(limits.maxPagePixels / (image.width * image.height)));
  const width = Math.max(1, Math.floor(image.width * scale));
  const height = Math.max(1, Math.floor(image.height * scale));
  const canvas = createCanvas(width, height);
  const ctx = canvas.getContext('2d');
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  ctx.drawImage(image, 0, 0, width, height);
  const rgba = ctx.getImageData(0, 0, width, height).data;
  const grey = new Uint8Array(width * height);
  for (let i = 0, j = 0; j < grey.length; i += 4, j++) grey[j] = (rgba[i]! * 77 + rgba[i + 1]! * 150 + rgba[i + 2]! * 29) >> 8;
  return { width, height, data: grey };
}

function unreadableImage(kind: ImageKind, why: string): ExtractError {
  const publicMessage = `The ${kind === 'png' ? 'PNG' : 'JPEG'} image could not be read; the file may be damaged. Upload the original photo or a PDF.`;
  return new ExtractError('corrupt_pdf', `image (${kind}): ${why}`, { publicMessage });
}
