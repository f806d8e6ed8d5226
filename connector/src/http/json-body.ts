/**
 * JSON bodies, the one reader for every JSON route: other content types are refused with 415
 * rather than silently read as empty; gzip, deflate and br are inflated with the size limit on
 * the inflated bytes, other codings refused (415); UTF-8 only (415); the shape is bounded on the
 * raw bytes before JSON.parse sees them (offload/json-shape.ts). A route's document fields (base64 PDFs)
 * are decoded as the body is read (offload/body.ts); a large body is read on a worker thread, so
 * that even one at the limit never holds up the event loop.
 *
 * The bytes are read here rather than by body-parser so that each chunk, as it arrives (inflated),
 * is covered by the request's share of the memory budget (http/body-budget.ts): the declared length
 * up front, then what arrives beyond it.
 */
import { webcrypto } from 'node:crypto';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.js';
import { readJsonBody, type DocumentRead } from '../offload/body.js';
import type { Offload } from '../offload/index.js';
import { bodyLeaseOf, type BodyLease } from './body-budget.js';
import { hasBody, INFLATED_ENCODINGS, requireContentEncoding } from './content-encoding.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** The document fields of this request's body, decoded (or why not), by field name. */
export function documentsOf(res: Response): Record<string, DocumentRead> {
  return (res.locals.documents as Record<string, DocumentRead> | undefined) ?? {};
}

/** SHA-256 (hex) of this request's body as its bytes were read, inflated; set when it came with an Idempotency-Key (http/idempotency.ts compares repeats by it). */
export function bodyDigestOf(res: Response): string | undefined {
  return res.locals.bodyDigest as string | undefined;
}

const TOO_LARGE = 'The request body is larger than this route accepts.';

/** The inflating stream for a coding requireContentEncoding let through, or null for identity. */
function inflater(coding: string): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | null {
  if (coding === 'gzip') return zlib.createGunzip();
  if (coding === 'deflate') return zlib.createInflate();
  if (coding === 'br') return zlib.createBrotliDecompress();
  return null;
}

/**
 * The body's bytes, inflated, at most `limit` of them; refused with 413 past it (at once when the
 * declared length is larger), 400 when the client leaves before the end or the coding is corrupt,
 * and the budget's refusal when `lease` cannot cover it. On a refusal the rest of the body is read
 * off and dropped, so the answer reaches a client still sending.
 */
function readBytes(req: Request, limit: number, lease: BodyLease | undefined): Promise<Buffer> {
  const inflate = inflater((req.headers['content-encoding'] ?? 'identity').trim().toLowerCase());
  const length = inflate ? NaN : Number(req.headers['content-length']);
  const declared = Number.isSafeInteger(length) ? length : undefined;
  return new Promise((resolve, reject) => {
    const stream: Readable = inflate ?? req;
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (err: AppError | null) => {
      if (settled) return;
      settled = true;
      stream.off('data', onData).off('end', onEnd).off('error', onStreamError);
      req.off('close', onRequestGone).off('error', onRequestGone);
      if (inflate) {
        req.unpipe(inflate);
        inflate.on('error', () => undefined);
        inflate.destroy();
      }
      // Whatever is still to come is read off and dropped, so an answer reaches a client still sending.
      if (inflate || err) req.resume();
      if (err) {
        chunks.length = 0;
        reject(err);
      } else {
        resolve(Buffer.concat(chunks, received));
      }
    };
    /** Covers `bytes` in the budget, or settles with its refusal; false when refused. */
    const covered = (bytes: number): boolean => {
      try {
        lease?.cover(bytes);
        return true;
      } catch (err) {
        settle(err as AppError);
        return false;
      }
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limit) return settle(new AppError('payload_too_large', TOO_LARGE));
      if (covered(received)) chunks.push(chunk);
    };
    const onEnd = () =>
      settle(
        declared !== undefined && received !== declared
          ? new AppError('invalid_request', 'The request body is shorter than its Content-Length.')
          : null,
      );
    // zlib's errors (Z_DATA_ERROR, Z_BUF_ERROR, ERR_PADDING_1 from brotli) say what is wrong with the bytes.
    const onStreamError = (err: Error) =>
      settle(
        new AppError(
          'invalid_request',
          inflate ? `The request body is not valid for its Content-Encoding (${err.message}).` : 'The request was aborted by the client.',
        ),
      );
    // The request also closes after a complete body; only an incomplete one means the client left.
    const onRequestGone = () => {
      if (!req.complete) settle(new AppError('invalid_request', 'The request was aborted by the client.'));
    };

    if (declared !== undefined && declared > limit) return settle(new AppError('payload_too_large', TOO_LARGE));
    if (declared !== undefined && !covered(declared)) return;
    stream.on('data', onData).on('end', onEnd).on('error', onStreamError);
    req.on('close', onRequestGone).on('error', onRequestGone);
    if (inflate) req.pipe(inflate);
  });
}

/** `maxValues`: the route's bound on array elements and object members, when above the default (offload/json-shape.ts). */
export function jsonBody(
  limitBytes: number,
  opts: { offload?: Offload; documentFields?: readonly string[]; maxValues?: number } = {},
): RequestHandler[] {
  const fields = opts.documentFields ?? [];
  const shape = opts.maxValues === undefined ? undefined : { maxValues: opts.maxValues };
  return [
    (req, _res, next) => {
      if (!hasBody(req.headers)) return next();
      const json = req.is('application/json');
      if (req.method === 'POST' && !json)
        throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
      // RFC 8259 8.1: JSON between systems is UTF-8; the shape check reads UTF-8 bytes.
      const charset = json ? CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase() : undefined;
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')
        throw new AppError('unsupported_media_type', 'Unsupported charset; send JSON as UTF-8.');
      next();
    },
    requireContentEncoding(INFLATED_ENCODINGS),
    async (req, res, next) => {
      // A body of another type (on a GET or DELETE) is left unread, as a route without a body reader leaves it.
      if (!req.is('application/json')) {
        req.body = undefined;
        return next();
      }
      const bytes = await readBytes(req, limitBytes, bodyLeaseOf(res));
      // WebCrypto hashes on libuv's pool, not the event loop: for a 19 MB body, hashing JSON.stringify of the
      // parsed value there cost ~100 ms of the loop's CPU. Awaited before the bytes move to the offload thread.
      if (req.method === 'POST' && req.headers['idempotency-key'] !== undefined) {
        res.locals.bodyDigest = Buffer.from(await webcrypto.subtle.digest('SHA-256', bytes)).toString('hex');
      }
      const read = opts.offload ? await opts.offload.readBody(bytes, fields, shape) : readJsonBody(bytes, fields, shape);
      if (!read.ok) throw new AppError('invalid_json', read.message);
      req.body = read.value;
      res.locals.documents = read.documents;
      next();
    },
  ];
}
