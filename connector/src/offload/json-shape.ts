/**
 * A JSON body from its raw bytes, and the bounds on its shape checked before JSON.parse: nesting
 * depth and the number of values. Parsing is linear in size, but what comes after is not bounded by
 * size alone: V8's JSON.parse of millions of nested arrays blocks the event loop for seconds
 * (depth 9e6 fits in 17.5 KB gzipped), and JSON.stringify and zod recurse, so a deep body would
 * overflow the stack in the idempotency hash and in batch items. One check here covers every
 * JSON route; no legitimate body comes near either bound (a full batch is depth 3, ~1,000 values).
 */

/** Deepest nesting of arrays and objects a body may have. */
export const MAX_JSON_DEPTH = 32;
/** Most array elements and object members a body may hold, all levels together. */
export const MAX_JSON_VALUES = 10_000;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Null when `bytes` (UTF-8 JSON, not yet validated) stays within the bounds, else why not, in
 * words for the client. Brackets and commas inside strings don't count. Strings are skipped with
 * Buffer#indexOf, so a body that is mostly one long string (a base64 PDF) costs little.
 * UTF-8 only: in UTF-8 no byte of a multi-byte character is an ASCII quote, bracket or comma.
 */
/** Bounds other than the defaults: a route that takes a large list (a watch's policies) says how many values it may hold. */
export interface ShapeLimits {
  maxDepth?: number;
  maxValues?: number;
}

export function jsonShapeProblem(bytes: Uint8Array, limits: ShapeLimits = {}): string | null {
  const maxDepth = limits.maxDepth ?? MAX_JSON_DEPTH;
  const maxValues = limits.maxValues ?? MAX_JSON_VALUES;
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let depth = 0;
  let values = 0;
  for (let i = 0; i < buf.length; i++) {
    const b = buf[i]!;
    if (b === QUOTE) {
      i = endOfString(buf, i + 1);
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (++depth > maxDepth) return `The JSON body is nested more than ${maxDepth} levels deep.`;
      if (++values > maxValues) return tooMany(maxValues);
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      depth--;
    } else if (b === COMMA) {
      if (++values > maxValues) return tooMany(maxValues);
    }
  }
  return null;
}

const tooMany = (max: number) => `The JSON body holds more than ${max} values (array elements and object members).`;

/** Index of the quote closing a string that starts at `from`, or the end of the buffer if unterminated. */
function endOfString(buf: Buffer, from: number): number {
  let at = from;
  for (;;) {
    const quote = buf.indexOf(QUOTE, at);
    if (quote < 0) return buf.length;
    // Escaped when preceded by an odd run of backslashes.
    let slashes = 0;
    while (quote - slashes - 1 >= from && buf[quote - slashes - 1] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

export type ParsedJson = { ok: true; value: unknown } | { ok: false; message: string };

/**
 * Parses a request body as body-parser's non-strict JSON did: any JSON value, a leading BOM
 * ignored, an empty body read as {}. Shape first, so an over-deep body is refused without parsing.
 * Pure and synchronous: json-body.ts runs it inline for small bodies and on a worker thread
 * (offload/) for large ones.
 */
export function parseJsonBody(bytes: Uint8Array, limits?: ShapeLimits): ParsedJson {
  if (bytes.length === 0) return { ok: true, value: {} };
  const problem = jsonShapeProblem(bytes, limits);
  if (problem) return { ok: false, message: problem };
  const buf = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buf.toString('utf8');
  try {
    return { ok: true, value: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch {
    return { ok: false, message: 'The request body is not valid JSON.' };
  }
}
