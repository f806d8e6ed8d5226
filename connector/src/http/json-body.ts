/**
 * JSON bodies, the one reader for every JSON route: other content types are refused with 415
 * rather than silently read as empty; gzip, deflate and br are inflated with the size limit on
 * the inflated bytes, other codings refused (415); UTF-8 only (415); the shape is bounded
 * (json-shape.ts) on the raw bytes before JSON.parse sees them.
 */
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.js';
import { hasBody, INFLATED_ENCODINGS, requireContentEncoding } from './content-encoding.js';
import { jsonShapeProblem } from './json-shape.js';

export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    (req, _res, next) => {
      if (req.method === 'POST' && hasBody(req.headers) && !req.is('application/json')) {
        throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
      }
      next();
    },
    requireContentEncoding(INFLATED_ENCODINGS),
    express.json({
      limit: limitBytes,
      strict: false,
      // Runs on the whole (inflated) body before it is decoded or parsed. An AppError keeps its
      // own status through body-parser (http-errors takes the status of an error it is given).
      verify: (_req, _res, buf, charset) => {
        // RFC 8259 8.1: JSON between systems is UTF-8; the shape check reads UTF-8 bytes.
        if (charset !== 'utf-8' && charset !== 'utf8') throw new AppError('unsupported_media_type', 'Unsupported charset; send JSON as UTF-8.');
        const problem = jsonShapeProblem(buf);
        if (problem) throw new AppError('invalid_json', problem);
      },
    }),
  ];
}
