/** A JSON request body read in full: parsed, and its document fields decoded. Pure: run inline or on the offload thread. */
import crypto from 'node:crypto';
import type { TErrorCode } from '../../../shared/errors.js';
import { AppError } from '../errors.js';
import { checkDocument } from '../jobs/validate.js';
import { parseJsonBody, type ShapeLimits } from './json-shape.js';

/**
 * A document field as read: decoded, or the refusal checkDocument threw, as plain data because it
 * crosses from the offload thread (an Error subclass would arrive as a bare Error). The route
 * raises the refusal again (decodedDocument) only where it would have checked the field itself.
 */
export type DocumentRead<B = Buffer> = { ok: true; value: B } | { ok: false; error: TErrorCode; message: string };

export type ReadBody<B = Buffer> =
  { ok: true; value: unknown; documents: Record<string, DocumentRead<B>> } | { ok: false; message: string };

/** The decoded document, or its refusal thrown as the AppError checkDocument threw. */
export function decodedDocument(read: DocumentRead): Buffer {
  if (!read.ok) throw new AppError(read.error, read.message);
  return read.value;
}

function readDocument(text: string): DocumentRead {
  try {
    return { ok: true, value: checkDocument(text) };
  } catch (err) {
    if (err instanceof AppError) return { ok: false, error: err.code, message: err.publicMessage };
    throw err;
  }
}

/**
 * parseJsonBody, then for each named top-level field that holds a string: checkDocument on it (a
 * base64 PDF decoded, or why not), and in the body its text replaced by `sha256:<hex>` of it. The
 * body stays small, so it crosses threads cheaply (copying a 19 MB string costs ~90 ms of CPU on
 * each side), and bodies with different documents stay different (the Idempotency-Key hash reads
 * the body).
 */
export function readJsonBody(bytes: Uint8Array, documentFields: readonly string[], shape?: ShapeLimits): ReadBody {
  const parsed = parseJsonBody(bytes, shape);
  if (!parsed.ok) return parsed;
  const documents: Record<string, DocumentRead> = {};
  const value = parsed.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const body = value as Record<string, unknown>;
    for (const field of documentFields) {
      const text = body[field];
      if (typeof text !== 'string') continue;
      documents[field] = readDocument(text);
      body[field] = `sha256:${crypto.createHash('sha256').update(text).digest('hex')}`;
    }
  }
  return { ok: true, value, documents };
}
