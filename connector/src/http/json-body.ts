/** JSON bodies only: other content types are refused with 415 rather than silently read as empty. */
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors.js';

export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    (req, _res, next) => {
      const hasBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] ?? '0') !== '0';
      if (req.method === 'POST' && hasBody && !req.is('application/json')) {
        throw new AppError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
      }
      next();
    },
    express.json({ limit: limitBytes, strict: false }),
  ];
}
