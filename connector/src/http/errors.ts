/**
 * The one place errors become answers: unknown routes become 404 and every error becomes one of
 * the contract's two error bodies (spec 7's standard form, or 4.1's sync form where a route asks
 * for it). Body-parser and router failures map to 400/413/415; anything unexpected is logged in
 * full and answered as 500 internal_error without internals.
 */
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import type { TErrorBody, TErrorCode, TSyncErrorBody } from '../../../shared/errors.js';
import { AppError, errorBody } from '../errors.js';
import type { Logger } from '../logger.js';

export const notFound: RequestHandler = (req, _res, next) => {
  next(new AppError('not_found', `No route ${req.method} ${req.path}. See /api/v1/openapi.json for the API.`));
};

const BODY_PARSER_ERRORS: Record<string, [TErrorCode, string]> = {
  'entity.parse.failed': ['invalid_json', 'The request body is not valid JSON.'],
  'entity.too.large': ['payload_too_large', 'The request body is larger than this route accepts.'],
  'encoding.unsupported': ['unsupported_media_type', 'Unsupported content encoding.'],
  'charset.unsupported': ['unsupported_media_type', 'Unsupported charset; send UTF-8.'],
  'request.aborted': ['invalid_request', 'The request was aborted by the client.'],
  'request.size.invalid': ['invalid_request', 'The request body is shorter than its Content-Length.'],
  'stream.encoding.set': ['internal_error', 'Internal error.'],
};

/** Client-error statuses that body-parser and its inflaters give without a `type`. */
const CLIENT_STATUS: Record<number, TErrorCode> = { 400: 'invalid_request', 413: 'payload_too_large', 415: 'unsupported_media_type' };

/**
 * Any error as the AppError to answer with. body-parser's errors by their `type`; the router's
 * URIError for a path parameter that is not valid percent-encoding; other http-errors marked safe
 * to show (`expose`, a 4xx status) by status, such as zlib's error for a corrupt or truncated gzip,
 * deflate or br body (given status 400 by body-parser). Anything else is a 500.
 */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const { type, status, expose, code } = (err ?? {}) as { type?: unknown; status?: unknown; expose?: unknown; code?: unknown };
  if (typeof type === 'string' && BODY_PARSER_ERRORS[type]) {
    const [errorCode, message] = BODY_PARSER_ERRORS[type]!;
    return new AppError(errorCode, message, { cause: err });
  }
  if (err instanceof URIError && status === 400)
    return new AppError('invalid_request', `The path is not valid percent-encoding (${err.message}).`, { cause: err });
  if (expose === true && typeof status === 'number' && CLIENT_STATUS[status]) {
    // zlib's errors carry a code such as Z_DATA_ERROR, Z_BUF_ERROR or ERR_PADDING_1 (brotli).
    const zlib = typeof code === 'string' && /^(Z_|ERR_)/.test(code);
    const message = zlib
      ? `The request body is not valid for its Content-Encoding (${(err as Error).message}).`
      : `Bad request: ${(err as Error).message}.`;
    return new AppError(CLIENT_STATUS[status]!, message, { cause: err });
  }
  return new AppError('internal_error', 'Internal server error. Retry with exponential backoff.', {
    internal: (err as Error)?.message,
    cause: err,
  });
}

/**
 * Placed in a route's handlers after its auth and scope checks: the route's own refusals (4xx) are
 * then answered in the sync form (spec 4.1: `detail`, and `balance` on insufficient_credits).
 * Errors raised before it (auth, rate limit, malformed JSON, scope) and server failures keep the
 * standard form, whose retry_after a client may need.
 */
export const syncErrorForm: RequestHandler = (_req, res, next) => {
  res.locals.syncErrorForm = true;
  next();
};

function standardBody(err: AppError): TErrorBody {
  const body = errorBody(err.code, err.publicMessage);
  if (err.retryAfter !== undefined) body.retry_after = err.retryAfter;
  return body;
}

function syncBody(err: AppError): TSyncErrorBody {
  const body: TSyncErrorBody = { error: err.code, detail: err.publicMessage };
  if (err.balance !== undefined) body.balance = err.balance;
  return body;
}

/** The error's body in the form this response's route answers in. */
export function errorBodyFor(err: AppError, res: Response): TErrorBody | TSyncErrorBody {
  return res.locals.syncErrorForm === true && err.status < 500 ? syncBody(err) : standardBody(err);
}

export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    const appErr = toAppError(err);
    if (appErr.status >= 500) logger.error({ err, path: req.path, method: req.method }, 'request failed');
    if (res.headersSent) {
      res.end();
      return;
    }
    if (appErr.retryAfter !== undefined) res.set('Retry-After', String(appErr.retryAfter));
    res.status(appErr.status).json(errorBodyFor(appErr, res));
  };
}
