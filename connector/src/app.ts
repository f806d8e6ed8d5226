/**
 * Assembles the Express app: the request log, then every route of the table (shared/routes/) with the
 * middleware its contract asks for, then the portal and the error answers.
 */
import express, { type RequestHandler } from 'express';
import { ROUTES, isIdempotent, isMultipart, type RouteContract, type RouteName } from '../../shared/routes/index.js';
import type { AppContext } from './context.js';
import { requireKey, requireScope } from './http/auth.js';
import { BodyBudget, leaseBodyBudget } from './http/body-budget.js';
import { requireContentEncoding } from './http/content-encoding.js';
import { errorHandler, notFound } from './http/errors.js';
import { idempotency } from './http/idempotency.js';
import { jsonBody } from './http/json-body.js';
import { requestLog } from './http/request-log.js';
import { createRateLimits } from './http/rate-limit.js';
import { metricsEndpoint } from './metrics/index.js';
import { createPortal } from './portal/app.js';
import { routeHandlers } from './routes/index.js';

export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('etag', false);
  app.use(requestLog(ctx.logger));
  if (ctx.metrics.requests) app.use(ctx.metrics.requests);
  const limits = createRateLimits(ctx.config, ctx.redis);
  const auth = requireKey(ctx, limits);
  const idem = idempotency(ctx);
  // One budget for the bodies of every keyed route, shared per key (http/body-budget.ts).
  const bodies = leaseBodyBudget(new BodyBudget(ctx.config.bodyBudget));

  /** No key: the caller's IP budget. A key: it must be valid and hold the scope, and spends its own budget. */
  const optionalKey = (scope: RouteContract['scope']): RequestHandler => {
    const checkScope: RequestHandler = scope ? requireScope(scope) : (_req, _res, next) => next();
    return (req, res, next) => {
      if (req.get('authorization') === undefined) return limits.perIp(req, res, next);
      Promise.resolve(
        auth(req, res, (err?: unknown) => {
          if (err) return next(err);
          checkScope(req, res, (err2?: unknown) => (err2 ? next(err2) : void limits.perKey(req, res, next)));
        }),
      ).catch(next);
    };
  };

  /** What runs before a route's own handlers, from its contract, in this order: access and limits, body reader, idempotency, scope. */
  const chain = (route: RouteContract): RequestHandler[] => {
    if (route.access === 'open') return [];
    if (route.access === 'ip') return [limits.perIp];
    if (route.access === 'key-or-ip') return [optionalKey(route.scope)];
    // Multipart bodies are read by the route (http/multipart.ts), uncompressed.
    const body = isMultipart(route)
      ? [requireContentEncoding([])]
      : jsonBody(route.bodyLimit ?? ctx.config.jsonLimitBytes, {
          offload: ctx.offload,
          documentFields: route.documentFields,
          maxValues: route.jsonValues,
        });
    return [
      auth,
      limits.perKey,
      bodies,
      ...body,
      ...(isIdempotent(route) ? [idem] : []),
      ...(route.scope ? [requireScope(route.scope)] : []),
    ];
  };

  // Mounted with full paths on the app (no nested router), because each router level costs path
  // matching on every request.
  const handlers = routeHandlers(ctx);
  for (const [name, route] of Object.entries(ROUTES) as [RouteName, RouteContract][])
    app[route.method](route.path, ...chain(route), ...handlers[name]);

  // Beside the table, not in it: the answer is Prometheus text, not a JSON body of the contract, and
  // who may read it (loopback or a token, metrics/exposure.ts) is none of the table's access kinds.
  // Off, or to anyone else, it is the 404 of a path that does not exist.
  const metricsAccess = ctx.config.metrics;
  const render = () => ctx.metrics.render();
  if (metricsAccess) app.get('/metrics', metricsEndpoint(metricsAccess, render));

  // The key portal: HTML pages for people, a sub-app with its own parser, CSRF and error pages.
  app.use(
    '/portal',
    createPortal({ config: ctx.config.portal, store: ctx.store, redis: ctx.redis, mailer: ctx.mailer, logger: ctx.logger, now: ctx.now }),
  );

  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
