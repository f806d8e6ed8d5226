/** Assembles the Express app: logging, unauthenticated routes, then the keyed /api/v1 routes. */
import express from 'express';
import type { AppContext } from './context.js';
import { requireKey } from './http/auth.js';
import { BodyBudget, leaseBodyBudget } from './http/body-budget.js';
import { requireContentEncoding } from './http/content-encoding.js';
import { errorHandler, notFound } from './http/errors.js';
import { idempotency } from './http/idempotency.js';
import { jsonBody } from './http/json-body.js';
import { requestLog } from './http/request-log.js';
import { createRateLimits } from './http/rate-limit.js';
import { createPortal } from './portal/app.js';
import { accountRoutes } from './routes/account.js';
import { datasetRoutes } from './routes/datasets.js';
import { jobRoutes } from './routes/jobs.js';
import { healthRoute, openApiRoute } from './routes/meta.js';
import { sheetRoutes } from './routes/sheets.js';
import { verifyRoutes } from './routes/verify.js';

export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('etag', false);
  app.use(requestLog(ctx.logger));
  const limits = createRateLimits(ctx.config, ctx.redis);

  app.get('/healthz', healthRoute(ctx));
  app.get('/api/v1/openapi.json', ...openApiRoute(limits.perIp));

  // Every keyed route gets the same chain; mounted with full paths on the app (no nested router)
  // because each router level costs path matching on every request.
  const auth = requireKey(ctx, limits);
  const idem = idempotency(ctx);
  // One budget for the bodies of every keyed route, shared per key (http/body-budget.ts).
  const bodies = leaseBodyBudget(new BodyBudget(ctx.config.bodyBudget));
  for (const route of [...verifyRoutes(ctx), ...jobRoutes(ctx), ...sheetRoutes(ctx), ...accountRoutes(ctx)]) {
    // Multipart bodies are read by the route (http/multipart.ts), uncompressed.
    const keyed = route.multipart ? [auth, limits.perKey, bodies, requireContentEncoding([])] : [auth, limits.perKey, bodies, ...jsonBody(route.bodyLimit ?? ctx.config.jsonLimitBytes, { offload: ctx.offload, ...(route.documentFields ? { documentFields: route.documentFields } : {}) }), ...(route.unstored ? [] : [idem])];
    app[route.method](`/api/v1${route.path}`, ...keyed, ...route.handlers);
  }

  for (const route of datasetRoutes(ctx, limits)) app.get(`/api/v1${route.path}`, ...route.handlers);

  // The key portal: HTML pages for people, a sub-app with its own parser, CSRF and error pages.
  app.use('/portal', createPortal({ config: ctx.config.portal, store: ctx.store, redis: ctx.redis, mailer: ctx.mailer, logger: ctx.logger, now: ctx.now }));

  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
