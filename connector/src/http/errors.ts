/**
 * The last middlewares: unknown routes become 404 and every error becomes the contract's error
 * body. Body-parser failures map to 400/413/415; anything unexpected is logged in full and
 * answered as 500 internal_error without internals.
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { TErrorCode } from '../../../shared/errors.js';
import { AppError } from '../errors.js';
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

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const type = (err as { type?: unknown })?.type;
  if (typeof type === 'string' && BODY_PARSER_ERRORS[type]) {
    const [code, message] = BODY_PARSER_ERRORS[type]!;
    return new AppError(code, message, { cause: err });
  }
  return new AppError('internal_error', 'Internal server error. Retry with exponential backoff.', { internal: (err as Error)?.message, cause: err });
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
    res.status(appErr.status).json(appErr.toBody());
  };
}
