/**
 * JSON bodies, the one reader for every JSON route: other content types are refused with 415
 * rather than silently read as empty; gzip, deflate and br are inflated with the size limit on
 * the inflated bytes, other codings refused (415); UTF-8 only (415); the shape is bounded on the
 * raw bytes before JSON.parse sees them (offload/json-shape.ts). A route's document fields (base64 PDFs)
 * are decoded as the body is read (offload/body.ts); a large body is read on a worker thread, so
 * that even one at the limit never holds up the event loop.
 */
import express, { type RequestHandler, type Response } from 'express';
import { AppError } from '../errors.js';
import { readJsonBody, type DocumentRead } from '../offload/body.js';
import type { Offload } from '../offload/index.js';
import { hasBody, INFLATED_ENCODINGS, requireContentEncoding } from './content-encoding.js';

const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/** The document fields of this request's body, decoded (or why not), by field name. */
export function documentsOf(res: Response): Record<string, DocumentRead> {
  return (res.locals.documents as Record<string, DocumentRead> | undefined) ?? {};
}

export function jsonBody(limitBytes: number, opts: { offload?: Offload; documentFields?: readonly string[] } = {}): RequestHandler[] {
  const fields = opts.documentFields ?? [];
  return [
    (req, _res, next) => {
      if (!hasBody(req.headers)) return next();
      const json = req.is('application/json');
      if (req.method === 'POST' && !json) throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
      // RFC 8259 8.1: JSON between systems is UTF-8; the shape check reads UTF-8 bytes.
      const charset = json ? CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase() : undefined;
      if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw new AppError('unsupported_media_type', 'Unsupported charset; send JSON as UTF-8.');
      next();
    },
    requireContentEncoding(INFLATED_ENCODINGS),
    // Reads (and inflates) the body as bytes, refusing past the limit; parsing follows.
    express.raw({ type: 'application/json', limit: limitBytes }),
    async (req, res, next) => {
      if (!Buffer.isBuffer(req.body)) {
        req.body = undefined;
        return next();
      }
      const read = opts.offload ? await opts.offload.readBody(req.body, fields) : readJsonBody(req.body, fields);
      if (!read.ok) throw new AppError('invalid_json', read.message);
      req.body = read.value;
      res.locals.documents = read.documents;
      next();
    },
  ];
}
