/**
 * A pass over the raw PDF bytes before pdf.js opens them: how many bytes the compressed streams
 * decode to and how large the images are, so that a flate bomb or a gigapixel image is refused
 * before anything is decoded. pdf.js decodes streams lazily, inside its parser, with no size limit
 * and no hook to impose one (a DecodeStream's buffer doubles until the stream ends); this is the
 * one place the decoded size can be bounded up front.
 *
 * Stream objects cannot sit inside object streams (ISO 32000-1, 7.5.7), so every stream's dictionary
 * is readable in the file as written. What this pass does not see (a stream whose first filter is
 * not Flate, such as [/ASCII85Decode /FlateDecode] or LZW; an encrypted document's streams; an image
 * whose Width is an indirect object) is still bounded, later and less precisely: pdf.js's own
 * maxImageSize skips oversized images, and the time and memory limits end what gets past both.
 *
 * Last, once the sizes are known to be bounded, it counts what the pages draw with their forms
 * expanded (xobject-fanout.ts): a few KB of forms drawing forms can be millions of drawings.
 */
import zlib from 'node:zlib';
import { count, mb, overLimit, type ExtractLimits } from '../limits.js';
import { scanFanout, type FanoutScan } from './xobject-fanout.js';

export interface StreamScan {
  /** Bytes the Flate streams other than images decode to. */
  streamBytes: number;
  /** Image XObjects whose dictionary states their size, and their pixels. */
  images: number;
  imagePixels: number;
  largestImagePixels: number;
  /** What the pages draw with their forms expanded. */
  fanout: FanoutScan;
}

const STREAM = Buffer.from('stream');
const ENDSTREAM = Buffer.from('endstream');
/** How far back from `stream` a dictionary is looked for; a real one is a few hundred bytes. */
const DICT_WINDOW = 16 * 1024;

const isEol = (b: number | undefined) => b === 0x0a || b === 0x0d;
/** A regular character (not whitespace or a delimiter), ISO 32000-1 7.2.2. */
const isRegular = (b: number | undefined) => b !== undefined && !/[\s()<>[\]{}/%]/.test(String.fromCharCode(b));

/** A direct integer entry of a dictionary's text (`/Width 40000`, not `/Width 7 0 R`). */
function directInt(dict: string, key: string): number | null {
  const m = new RegExp(`/${key}\\s+(\\d+)\\b(?!\\s+\\d+\\s+R\\b)`).exec(dict);
  return m ? Number(m[1]) : null;
}

/** zlib stream header: compression method 8 and a header checksum that divides by 31 (RFC 1950). */
function isZlib(data: Buffer): boolean {
  return data.length >= 2 && (data[0]! & 0x0f) === 8 && ((data[0]! << 8) | data[1]!) % 31 === 0;
}

/** Output a stream may be inflated to in one piece; larger ones are counted chunk by chunk and nothing is kept. */
const ONE_PIECE = 4 * 1024 * 1024;

/**
 * Bytes `data` inflates to, stopping once it passes `cap`. Most streams are small and inflate in one
 * piece; a larger one, or one that breaks midway, is counted chunk by chunk, keeping nothing (a bomb
 * costs no memory here) and counting what a broken stream gave up to the damage, as pdf.js keeps
 * what it decoded up to there.
 */
async function inflatedSize(data: Buffer, cap: number): Promise<number> {
  try {
    return zlib.inflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: Math.min(cap + 1, ONE_PIECE) }).length;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' && cap + 1 <= ONE_PIECE) return cap + 1;
  }
  return new Promise((resolve) => {
    const inflate = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    let n = 0;
    inflate.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > cap) inflate.destroy();
    });
    inflate.on('close', () => resolve(n));
    inflate.on('error', () => undefined);
    inflate.end(data);
  });
}

/** Where the stream's data ends: at /Length when `endstream` follows it there (as pdf.js checks), else at the keyword. */
function streamEnd(buf: Buffer, dict: string, start: number): number {
  const length = directInt(dict, 'Length');
  if (length !== null && start + length <= buf.length && /^\s*endstream/.test(buf.toString('latin1', start + length, start + length + 12)))
    return start + length;
  const at = buf.indexOf(ENDSTREAM, start);
  return at === -1 ? buf.length : at;
}

/** Throws ExtractError `over_limit` when the images, the decoded streams or the expanded drawing cross `limits`. */
export async function scanStreams(
  pdf: Uint8Array,
  limits: Pick<ExtractLimits, 'maxStreamBytes' | 'maxImagePixels' | 'maxTotalImagePixels' | 'maxExpandedOps' | 'maxPages'>,
): Promise<StreamScan> {
  const buf = Buffer.from(pdf.buffer, pdf.byteOffset, pdf.byteLength);
  const out: Omit<StreamScan, 'fanout'> = { streamBytes: 0, images: 0, imagePixels: 0, largestImagePixels: 0 };
  for (let at = buf.indexOf(STREAM); at !== -1; at = buf.indexOf(STREAM, at + STREAM.length)) {
    // The keyword itself, not the tail of `endstream` or part of a longer name.
    if (isRegular(buf[at - 1]) || isRegular(buf[at + STREAM.length])) continue;
    let start = at + STREAM.length;
    if (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
    else if (isEol(buf[start])) start += 1;
    else continue;
    // The dictionary: back to this object's `obj` keyword, looked for within a window only, so that
    // a file of bare `stream` keywords does not make every search run back to its start.
    const from = Math.max(0, at - DICT_WINDOW);
    const dict = buf.toString('latin1', from + Math.max(0, buf.subarray(from, at).lastIndexOf('obj')), at);
    const end = streamEnd(buf, dict, start);
    // Stream data may hold the bytes "stream" by chance: the search goes on after it.
    at = Math.max(at, end - STREAM.length);

    if (/\/Subtype\s*\/Image\b/.test(dict)) {
      const width = directInt(dict, 'Width');
      const height = directInt(dict, 'Height');
      if (width === null || height === null) continue;
      const pixels = width * height;
      out.images++;
      out.imagePixels += pixels;
      out.largestImagePixels = Math.max(out.largestImagePixels, pixels);
      if (pixels > limits.maxImagePixels) {
        throw overLimit(
          `An image in the PDF is ${count(width)} x ${count(height)} pixels (${count(pixels)} pixels); the limit is ${count(limits.maxImagePixels)} pixels per image.`,
        );
      }
      if (out.imagePixels > limits.maxTotalImagePixels) {
        throw overLimit(`The PDF's images add up to more than ${count(limits.maxTotalImagePixels)} pixels, the limit per document.`);
      }
      continue; // pdf.js decodes an image only as far as its stated size
    }
    if (!/\/(FlateDecode|Fl)\b/.test(dict)) continue;
    const data = buf.subarray(start, end);
    if (!isZlib(data)) continue;
    out.streamBytes += await inflatedSize(data, limits.maxStreamBytes - out.streamBytes);
    if (out.streamBytes > limits.maxStreamBytes) {
      throw overLimit(
        `The PDF's compressed page contents and fonts decode to more than ${mb(limits.maxStreamBytes)}, the limit per document.`,
      );
    }
  }
  return { ...out, fanout: await scanFanout(buf, limits) };
}
