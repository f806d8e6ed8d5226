/**
 * One structured log line per request, written when the response finishes. Hand-written instead
 * of pino-http because that builds a child logger and serialises headers for every request,
 * which cost about a tenth of the sync verify budget in bench/verify; this logs only what an
 * operator needs (no headers at all, so no Authorization value can ever reach the log; secret
 * query parameters such as activation tokens are redacted).
 */
import crypto from 'node:crypto';
import querystring from 'node:querystring';
import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Query parameters whose values are secrets (portal activation links): never logged. */
const SECRET_PARAMS = new Set(['token', 'key', 'api_key']);
/** An API key pasted anywhere into a URL (a path segment, a search term). */
const KEY_SHAPED = /\bpk_(live|test)_[A-Za-z0-9]{8,}/g;

/**
 * The URL as logged: values of secret query parameters and key-shaped strings replaced. Names are
 * compared as the query parser reads them (percent-decoded, + as space), so `?%74oken=` is the
 * token parameter here as it is for the route; case and surrounding spaces are ignored too.
 */
export function redactUrl(url: string): string {
  const keysRedacted = url.includes('pk_') ? url.replace(KEY_SHAPED, 'pk_$1_[redacted]') : url;
  const q = keysRedacted.indexOf('?');
  if (q < 0) return keysRedacted;
  const params = keysRedacted
    .slice(q + 1)
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      if (eq < 0) return part;
      const name = querystring.unescape(part.slice(0, eq).replace(/\+/g, ' ')).trim().toLowerCase();
      return SECRET_PARAMS.has(name) ? `${part.slice(0, eq)}=[redacted]` : part;
    });
  return `${keysRedacted.slice(0, q + 1)}${params.join('&')}`;
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
