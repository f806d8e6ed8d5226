/** Unauthenticated routes: health and the OpenAPI document. */
import type { RequestHandler } from 'express';
import { buildOpenApiDocument } from '../../../shared/openapi.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';

export const VERSION = '0.1.0';

export function healthRoute(ctx: AppContext): RequestHandler {
  return async (_req, res) => {
    const ok = await ctx.store.ping().catch(() => false);
    if (!ok) throw new AppError('service_unavailable', 'The store is not answering.', { retryAfter: 5 });
    res.json({ status: 'ok', version: VERSION });
  };
}

/**
 * GET /api/v1/openapi.json. Handlers for an exact path rather than a router mounted on /api/v1,
 * which every API request would enter and leave again (path matching on the hot route).
 */
export function openApiRoute(perIp: RequestHandler): RequestHandler[] {
  // Generated once: the document only changes with the code.
  let doc: unknown;
  return [
    perIp,
    (_req, res) => {
      doc ??= buildOpenApiDocument({ version: VERSION });
      res.json(doc);
    },
  ];
}
