/**
 * The objects of a PDF as written in its bytes, for the checks that run before pdf.js opens it
 * (xobject-fanout.ts): each `N G obj ... endobj` of the file, the objects inside its object streams,
 * and its trailers. It reads what a writer wrote and nothing more: no cross-reference table is
 * trusted or needed (the objects are found where they stand, the later definition of a number
 * winning, as after an incremental update), nothing is decrypted, and a value it cannot parse is
 * left out. Every loop is bounded by the file's size or by the decode budget it is given.
 */
import zlib from 'node:zlib';

export class PdfName {
  constructor(readonly name: string) {}
}
export class PdfRef {
  constructor(readonly num: number) {}
}
/** A string's content is never needed here. */
export const PDF_STRING = Symbol('string');
export type PdfDict = Map<string, PdfValue>;
export type PdfValue = number | boolean | null | typeof PDF_STRING | PdfName | PdfRef | PdfValue[] | PdfDict;

export interface PdfStream {
  dict: PdfDict;
  /** The stream's data, as written (still encoded). */
  data: Buffer;
}
export interface PdfObjects {
  /** Object number -> value (a stream's value is a PdfStream). */
  get(num: number): PdfValue | PdfStream | undefined;
  /** Every stream object with its number. */
  streams(): Iterable<[number, PdfStream]>;
  /** Trailer dictionaries and cross-reference stream dictionaries, in file order. */
  trailers: PdfDict[];
  /** Object streams whose content could not be decoded (a filter other than Flate): their objects are missing. */
  unreadObjectStreams: number;
  /** The last object whose /Type is /Catalog, for a file whose trailer cannot be read. */
  catalog(): PdfDict | undefined;
}

export const isDict = (v: unknown): v is PdfDict => v instanceof Map;
export const isStream = (v: unknown): v is PdfStream =>
  typeof v === 'object' && v !== null && !(v instanceof Map) && 'dict' in v && 'data' in v;
export const nameOf = (v: PdfValue | undefined): string | undefined => (v instanceof PdfName ? v.name : undefined);

/** Nesting of arrays and dictionaries followed; deeper values are cut (pdf.js itself stops at far less in practice). */
const MAX_DEPTH = 64;
const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);
export const isWhite = (b: number) => WS.has(b);
export const isRegularByte = (b: number) => !WS.has(b) && !DELIM.has(b);

/** A name's text after `/`, with its #xx escapes decoded (ISO 32000-1, 7.3.5). */
export function decodeName(raw: string): string {
  return raw.includes('#') ? raw.replace(/#([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))) : raw;
}

/** Reads PDF values from a latin1 string, from `pos` on. */
export class Reader {
  constructor(
    readonly src: string,
    public pos = 0,
  ) {}

  private code(at = this.pos): number {
    return this.src.charCodeAt(at);
  }

  skipSpace(): void {
    const { src } = this;
    while (this.pos < src.length) {
      const c = this.code();
      if (WS.has(c)) this.pos++;
      else if (c === 0x25) {
        // A comment runs to the end of its line.
        while (this.pos < src.length && this.code() !== 0x0a && this.code() !== 0x0d) this.pos++;
      } else break;
    }
  }

  /** A run of regular characters: a number, a keyword or a name's text. */
  private regular(): string {
    const start = this.pos;
    while (this.pos < this.src.length && isRegularByte(this.code())) this.pos++;
    return this.src.slice(start, this.pos);
  }

  /** Skips a literal string `( ... )` with its nested parentheses and escapes; `pos` at its `(`. */
  skipString(): void {
    let depth = 0;
    const { src } = this;
    while (this.pos < src.length) {
      const c = this.code(this.pos++);
      if (c === 0x5c) this.pos++;
      else if (c === 0x28) depth++;
      else if (c === 0x29 && --depth === 0) return;
    }
  }

  /** Skips a dictionary or array nested too deep to keep, without recursion; `pos` at its opening. */
  private skipNested(): void {
    const { src } = this;
    let depth = 0;
    do {
      const c = this.code();
      if (c === 0x28) {
        this.skipString();
        continue;
      }
      if (c === 0x3c && this.code(this.pos + 1) === 0x3c) {
        depth++;
        this.pos += 2;
      } else if (c === 0x3e && this.code(this.pos + 1) === 0x3e) {
        depth--;
        this.pos += 2;
      } else {
        if (c === 0x5b) depth++;
        else if (c === 0x5d) depth--;
        this.pos++;
      }
    } while (depth > 0 && this.pos < src.length);
  }

  /** The value at `pos`, or undefined where there is none (a keyword, the end). */
  value(depth = 0): PdfValue | undefined {
    this.skipSpace();
    if (this.pos >= this.src.length) return undefined;
    const c = this.code();
    if (c === 0x2f) {
      this.pos++;
      return new PdfName(decodeName(this.regular()));
    }
    if (c === 0x28) {
      this.skipString();
      return PDF_STRING;
    }
    if ((c === 0x3c && this.code(this.pos + 1) === 0x3c) || c === 0x5b) {
      if (depth >= MAX_DEPTH) {
        this.skipNested();
        return null;
      }
      this.pos += c === 0x5b ? 1 : 2;
      return c === 0x5b ? this.array(depth + 1) : this.dict(depth + 1);
    }
    if (c === 0x3c) {
      const end = this.src.indexOf('>', this.pos);
      this.pos = end === -1 ? this.src.length : end + 1;
      return PDF_STRING;
    }
    if (!isRegularByte(c)) {
      // A stray delimiter: not a value.
      return undefined;
    }
    const start = this.pos;
    const word = this.regular();
    if (word === 'true' || word === 'false') return word === 'true';
    if (word === 'null') return null;
    const n = Number(word);
    if (word === '' || Number.isNaN(n)) {
      this.pos = start;
      return undefined;
    }
    // `N G R`: an indirect reference.
    if (/^\d+$/.test(word)) {
      const after = this.pos;
      const m = /^\s+(\d+)\s+R(?![^\s()<>[\]{}/%])/.exec(this.src.slice(after, after + 32));
      if (m) {
        this.pos = after + m[0].length;
        return new PdfRef(n);
      }
    }
    return n;
  }

  private dict(depth: number): PdfDict {
    const out: PdfDict = new Map();
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.src.length) return out;
      if (this.src.startsWith('>>', this.pos)) {
        this.pos += 2;
        return out;
      }
      const key = this.value(depth);
      if (!(key instanceof PdfName)) {
        // Not a key: skip one character and go on, as a lenient reader does.
        if (key === undefined) this.pos++;
        continue;
      }
      const val = this.value(depth);
      if (val !== undefined) out.set(key.name, val);
    }
  }

  private array(depth: number): PdfValue[] {
    const out: PdfValue[] = [];
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.src.length) return out;
      if (this.code() === 0x5d) {
        this.pos++;
        return out;
      }
      const val = this.value(depth);
      if (val === undefined) this.pos++;
      else out.push(val);
    }
  }
}

/** An object's header, `12 0 obj`, not the tail of a longer number or word. */
const HEADER = /(?<![\d.+-])(\d{1,10})\s+(\d{1,5})\s+obj(?![^\s()<>[\]{}/%])/.source;

/** Where a stream's data ends: at /Length when `endstream` follows there, else at the keyword. */
function streamEnd(src: string, length: PdfValue | undefined, start: number): number {
  if (
    typeof length === 'number' &&
    length >= 0 &&
    start + length <= src.length &&
    /^\s*endstream/.test(src.slice(start + length, start + length + 12))
  )
    return start + length;
  const at = src.indexOf('endstream', start);
  return at === -1 ? src.length : at;
}

/**
 * Inflates zlib `data`, keeping what decoded before any damage (as pdf.js does); null past `cap`
 * bytes. A content stream or object stream is small: this is the one place its bytes are kept.
 */
export async function inflateCapped(data: Buffer, cap: number): Promise<Buffer | null> {
  try {
    return zlib.inflateSync(data, { finishFlush: zlib.constants.Z_SYNC_FLUSH, maxOutputLength: Math.max(1, cap + 1) }).subarray(0, cap + 1);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return null;
  }
  // Damaged midway: what came out before the damage.
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const inflate = zlib.createInflate({ finishFlush: zlib.constants.Z_SYNC_FLUSH });
    inflate.on('data', (chunk: Buffer) => {
      n += chunk.length;
      if (n > cap) inflate.destroy();
      else chunks.push(chunk);
    });
    inflate.on('close', () => resolve(n > cap ? null : Buffer.concat(chunks)));
    inflate.on('error', () => undefined);
    inflate.end(data);
  });
}

/** Whether `dict`'s filters are ones this pass decodes: none, or Flate alone without a predictor. */
export function flateOrPlain(dict: PdfDict): 'plain' | 'flate' | null {
  let filter = dict.get('Filter');
  if (Array.isArray(filter) && filter.length <= 1) filter = filter[0];
  if (filter === undefined || filter === null) return 'plain';
  const name = nameOf(filter);
  if (name !== 'FlateDecode' && name !== 'Fl') return null;
  let parms = dict.get('DecodeParms') ?? dict.get('DP');
  if (Array.isArray(parms)) parms = parms[0];
  if (isDict(parms) && typeof parms.get('Predictor') === 'number' && (parms.get('Predictor') as number) > 1) return null;
  return 'flate';
}

/**
 * The objects of `buf`. `budget` bounds the bytes its object streams may decode to, all together
 * (what is left is returned in `budget.left`).
 */
export async function readObjects(buf: Buffer, budget: { left: number }): Promise<PdfObjects> {
  const src = buf.toString('latin1');
  // Number -> [value, where it was defined]; a later definition replaces an earlier one.
  const table = new Map<number, [PdfValue | PdfStream, number]>();
  const set = (num: number, value: PdfValue | PdfStream, at: number) => {
    const had = table.get(num);
    if (!had || had[1] <= at) table.set(num, [value, at]);
  };
  const streams: [number, PdfStream, number][] = [];
  const trailers: [PdfDict, number][] = [];

  const header = new RegExp(HEADER, 'g');
  for (let m = header.exec(src); m; m = header.exec(src)) {
    const num = Number(m[1]);
    const reader = new Reader(src, m.index + m[0].length);
    const value = reader.value();
    if (value === undefined) continue;
    reader.skipSpace();
    if (isDict(value) && src.startsWith('stream', reader.pos)) {
      let start = reader.pos + 6;
      if (src.charCodeAt(start) === 0x0d && src.charCodeAt(start + 1) === 0x0a) start += 2;
      else if (src.charCodeAt(start) === 0x0a || src.charCodeAt(start) === 0x0d) start += 1;
      const end = streamEnd(src, value.get('Length'), start);
      const stream: PdfStream = { dict: value, data: buf.subarray(start, end) };
      set(num, stream, m.index);
      streams.push([num, stream, m.index]);
      if (nameOf(value.get('Type')) === 'XRef') trailers.push([value, m.index]);
      // Stream data may hold the bytes of an object header by chance: the search goes on after it.
      header.lastIndex = Math.max(header.lastIndex, end);
    } else {
      set(num, value, m.index);
      header.lastIndex = Math.max(header.lastIndex, reader.pos);
    }
  }
  // Each part of the file is read once: a trailer keyword inside a dictionary already read is not one.
  let readUpTo = 0;
  for (const m of src.matchAll(/\btrailer\b/g)) {
    if (m.index < readUpTo) continue;
    const reader = new Reader(src, m.index + 7);
    const value = reader.value();
    readUpTo = reader.pos;
    if (isDict(value)) trailers.push([value, m.index]);
  }

  let unreadObjectStreams = 0;
  for (const [, stream, at] of streams) {
    if (nameOf(stream.dict.get('Type')) !== 'ObjStm') continue;
    const data = await decodeStream(stream, budget);
    const text = data?.toString('latin1') ?? null;
    if (text === null) {
      unreadObjectStreams++;
      continue;
    }
    const n = stream.dict.get('N');
    const first = stream.dict.get('First');
    if (typeof n !== 'number' || typeof first !== 'number') continue;
    // Pairs of object number and offset, the offsets rising (ISO 32000-1, 7.5.7); each object is read
    // only up to the next one's offset, so no byte is read twice.
    const pairs = new Reader(text, 0);
    const entries: [number, number][] = [];
    for (let i = 0; i < n; i++) {
      const num = pairs.value();
      const offset = pairs.value();
      if (typeof num !== 'number' || typeof offset !== 'number' || pairs.pos > first) break;
      if (entries.length > 0 && offset <= entries[entries.length - 1]![1]) break;
      entries.push([num, offset]);
    }
    entries.forEach(([num, offset], i) => {
      const end = i + 1 < entries.length ? first + entries[i + 1]![1] : text.length;
      const value = new Reader(text.slice(first + offset, end)).value();
      // An object stream's objects are never streams; its version is the one written where it stands.
      if (value !== undefined) set(num, value, at);
    });
  }

  return {
    get: (num) => table.get(num)?.[0],
    *streams() {
      for (const [num, stream] of streams) if (table.get(num)?.[0] === stream) yield [num, stream] as [number, PdfStream];
    },
    trailers: trailers.sort((a, b) => a[1] - b[1]).map(([d]) => d),
    unreadObjectStreams,
    catalog() {
      let found: [PdfDict, number] | undefined;
      for (const [value, at] of table.values())
        if (isDict(value) && nameOf(value.get('Type')) === 'Catalog' && (!found || at >= found[1])) found = [value, at];
      return found?.[0];
    },
  };
}

/** A stream's decoded data, spending `budget`; null when its filter is not read here or the budget is spent. */
export async function decodeStream(stream: PdfStream, budget: { left: number }): Promise<Buffer | null> {
  const how = flateOrPlain(stream.dict);
  if (how === null) return null;
  const data = how === 'plain' ? stream.data : await inflateCapped(stream.data, budget.left);
  if (data === null || data.length > budget.left) return null;
  budget.left -= data.length;
  return data;
}
