/** The health and readiness checks and the OpenAPI document. */
import { buildOpenApiDocument } from '../../../shared/openapi.js';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import type { RouteHandlers } from './types.js';

export const VERSION = '0.1.0';

/** Seconds a load balancer is told to wait before asking an instance that is not ready again. */
const NOT_READY_RETRY_S = 5;

export function metaHandlers(ctx: AppContext): RouteHandlers<'health' | 'ready' | 'openapi'> {
  // Generated once: the document only changes with the code.
  let doc: unknown;
  return {
    health: [
      async (_req, res) => {
        const ok = await ctx.store.ping().catch(() => false);
        if (!ok) throw new AppError('service_unavailable', 'The store is not answering.', { retryAfter: 5 });
        res.json({ status: 'ok', version: VERSION });
      },
    ],
    ready: [
      async (_req, res) => {
        const readiness = await ctx.readiness();
        if (readiness.status !== 'ready') res.status(503).set('Retry-After', String(NOT_READY_RETRY_S));
        res.json(readiness);
      },
    ],
    openapi: [
      (_req, res) => {
        doc ??= buildOpenApiDocument({ version: VERSION });
        res.json(doc);
      },
    ],
  };
}
