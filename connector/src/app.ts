/** Assembles the Express app: logging, unauthenticated routes, then the keyed /api/v1 routes. */
import express from 'express';
import { pinoHttp } from 'pino-http';
import type { AppContext } from './context.js';
import { requireKey } from './http/auth.js';
import { errorHandler, notFound } from './http/errors.js';
import { idempotency } from './http/idempotency.js';
import { jsonBody } from './http/json-body.js';
import { createRateLimits } from './http/rate-limit.js';
import { accountRoutes } from './routes/account.js';
import { healthRoute, openApiRoute } from './routes/meta.js';
import { verifyRoutes } from './routes/verify.js';

export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', ctx.config.trustProxy);
  app.set('etag', false);
  app.use(
    pinoHttp({
      logger: ctx.logger,
      // Health probes would drown the log.
      autoLogging: { ignore: (req) => req.url === '/healthz' },
      customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : res.statusCode >= 400 ? 'warn' : 'info'),
    }),
  );
  const limits = createRateLimits(ctx.config);

  app.get('/healthz', healthRoute(ctx));
  app.use('/api/v1', openApiRoute(limits.perIp));

  const api = express.Router();
  api.use(requireKey(ctx, limits), limits.perKey, ...jsonBody(ctx.config.jsonLimitBytes), idempotency(ctx));
  api.use(verifyRoutes(ctx));
  api.use(accountRoutes(ctx));
  app.use('/api/v1', api);

  app.use(notFound);
  app.use(errorHandler(ctx.logger));
  return app;
}
