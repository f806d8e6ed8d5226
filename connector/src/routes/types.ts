/** A route as the app mounts it: method, path under /api/v1, and its own handlers after the keyed chain. */
import type { RequestHandler } from 'express';

export interface KeyedRoute {
  method: 'get' | 'post' | 'delete';
  path: string;
  handlers: RequestHandler[];
  /** JSON body limit for this route when it differs from COVERCHECK_JSON_LIMIT_KB. */
  bodyLimit?: number;
  /** Top-level body fields holding a base64 PDF, decoded as the body is read (http/json-body.ts, documentsOf). */
  documentFields?: readonly string[];
  /** The route reads a multipart body itself (no JSON parser, no idempotency replay of a stream). */
  multipart?: boolean;
  /** Its answer is never stored for an Idempotency-Key replay (it holds something the store must not keep); the header is ignored. */
  unstored?: boolean;
}
