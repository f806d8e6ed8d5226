/** A JSON request body read in full: parsed, and its document fields decoded. Pure: run inline or on the offload thread. */
import crypto from 'node:crypto';
import { parseJsonBody } from './json-shape.js';
import { checkDocument, type Checked } from '../jobs/validate.js';

export type ReadBody<B = Buffer> = { ok: true; value: unknown; documents: Record<string, Checked<B>> } | { ok: false; message: string };

/**
 * parseJsonBody, then for each named top-level field that holds a string: checkDocument on it (a
 * base64 PDF decoded, or why not), and in the body its text replaced by `sha256:<hex>` of it. The
 * body stays small, so it crosses threads cheaply (copying a 19 MB string costs ~90 ms of CPU on
 * each side), and bodies with different documents stay different (the Idempotency-Key hash reads
 * the body).
 */
export function readJsonBody(bytes: Uint8Array, documentFields: readonly string[]): ReadBody {
  const parsed = parseJsonBody(bytes);
  if (!parsed.ok) return parsed;
  const documents: Record<string, Checked<Buffer>> = {};
  const value = parsed.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const body = value as Record<string, unknown>;
    for (const field of documentFields) {
      const text = body[field];
      if (typeof text !== 'string') continue;
      documents[field] = checkDocument(text);
      body[field] = `sha256:${crypto.createHash('sha256').update(text).digest('hex')}`;
    }
  }
  return { ok: true, value, documents };
}
