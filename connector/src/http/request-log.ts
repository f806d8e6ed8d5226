/**
 * One structured log line per request, written when the response finishes. Hand-written instead
 * of pino-http because that builds a child logger and serialises headers for every request,
 * which cost about a tenth of the sync verify budget in bench/verify; this logs only what an
 * operator needs (no headers at all, so no Authorization value can ever reach the log; secret
 * query parameters such as activation tokens are redacted).
 */
import crypto from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Query parameters whose values are secrets (portal activation links): never logged. */
const SECRET_PARAMS = /([?&](?:token|key|api_key)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_PARAMS, '$1[redacted]');
}

export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    const id = crypto.randomUUID();
    res.setHeader('X-Request-Id', id);
    res.once('finish', () => {
      const status = res.statusCode;
      const level = status >= 500 ? 'error' : status >= 400 ? 'warn' : 'info';
      // Health probes would drown the log.
      if (!logger.isLevelEnabled(level) || req.path === '/healthz') return;
      logger[level](
        {
          req_id: id,
          method: req.method,
          url: redactUrl(req.originalUrl),
          status,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          key_id: (res.locals.apiKey as { id?: string } | undefined)?.id,
          ip: req.ip,
        },
        'request completed',
      );
    });
    next();
  };
}
