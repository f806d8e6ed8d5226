/**
 * Which Content-Encoding a request body may arrive in, checked before any parser reads it.
 * body-parser inflates gzip, deflate and br, and zstd too where node has it (22.15+), and a
 * multipart parser inflates nothing; so each body reader names what it accepts and anything else,
 * stacked codings ("gzip, br") included, is refused with 415 rather than half-read.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../errors.js';

/** The codings body-parser inflates on every supported node (its limit then applies to the inflated size). */
export const INFLATED_ENCODINGS = ['gzip', 'deflate', 'br'] as const;

/** Whether the request carries a body (RFC 9112 6.3: Transfer-Encoding, or a non-zero Content-Length). */
export function hasBody(headers: { 'transfer-encoding'?: string | undefined; 'content-length'?: string | undefined }): boolean {
  return headers['transfer-encoding'] !== undefined || (headers['content-length'] !== undefined && headers['content-length'] !== '0');
}

/** Refuses a body in any Content-Encoding but identity and `accepted`, with 415 unsupported_media_type. */
export function requireContentEncoding(accepted: readonly string[]): RequestHandler {
  const list = accepted.length ? `identity, ${accepted.join(', ')}` : 'identity only';
  return (req, _res, next) => {
    const coding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (coding === 'identity' || coding === '' || !hasBody(req.headers) || accepted.includes(coding)) return next();
    next(new AppError('unsupported_media_type', `Content-Encoding "${coding.slice(0, 40)}" is not accepted here; send ${list}.`));
  };
}
