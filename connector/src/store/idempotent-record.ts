/** Which answers an Idempotency-Key claim may keep for replay, and the record that keeps one; the same rule for every route and backend. */
import type { IdempotentRecord } from './types/idempotency.js';

/**
 * Largest answer body kept for replay. Every success this service answers on a POST is a few KB; a larger
 * body could only come from a request's own echoed input, and keeping it would let one request write
 * megabytes into the database for good. A larger answer's claim is released instead: a repeat runs again.
 */
export const MAX_STORED_RESPONSE_BYTES = 64 * 1024;

export function keepableBody(body: string): boolean {
  // Each UTF-16 unit is 1 to 3 bytes of UTF-8: most bodies are judged by their length without encoding them.
  if (body.length > MAX_STORED_RESPONSE_BYTES) return false;
  return body.length * 3 <= MAX_STORED_RESPONSE_BYTES || Buffer.byteLength(body, 'utf8') <= MAX_STORED_RESPONSE_BYTES;
}

/**
 * The record to write in the same transaction as the work a request was accepted for (its answer `value`
 * sent as JSON), or undefined when the request has no Idempotency-Key or the answer is too large to keep.
 */
export function idempotentRecord(idemKey: string | undefined, status: number, value: unknown): IdempotentRecord | undefined {
  if (idemKey === undefined) return undefined;
  const body = JSON.stringify(value);
  return keepableBody(body) ? { idemKey, response: { status, body } } : undefined;
}
