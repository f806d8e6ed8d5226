/** The one application error class: a code from the contract's closed list, a safe message. */
import { echoed, ERROR_STATUS, type TErrorBody, type TErrorCode } from '../../shared/errors.js';

/**
 * Longest message an error body carries. The service's own wordings are a few hundred characters; messages
 * quote received values through `echoed`, and this catches any that does not (a zod path, a URL path).
 */
export const MAX_PUBLIC_MESSAGE_CHARS = 1000;

/**
 * Thrown by domain code for anything the caller should hear about; http/errors.ts turns it into
 * the contract's body (standard or sync form) in one place. `status` is read from the contract's
 * one code -> status table, never chosen by the thrower.
 */
export class AppError extends Error {
  readonly code: TErrorCode;
  readonly status: number;
  /** Shown to the client. `message` (the Error's) may hold internals and is only logged. */
  readonly publicMessage: string;
  /** Seconds the client should wait before retrying: Retry-After, and retry_after in the body. */
  readonly retryAfter: number | undefined;
  /** The key's credit balance, on insufficient_credits: the sync form shows it (spec 4.1). */
  readonly balance: number | undefined;

  constructor(
    code: TErrorCode,
    publicMessage: string,
    opts: { internal?: string; retryAfter?: number; balance?: number; cause?: unknown } = {},
  ) {
    const shown = echoed(publicMessage, MAX_PUBLIC_MESSAGE_CHARS);
    super(opts.internal ?? shown, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.publicMessage = shown;
    this.retryAfter = opts.retryAfter;
    this.balance = opts.balance;
  }
}

/** The standard error body (spec 7), as jobs and batch items store it and the error handler sends it. */
export function errorBody(code: TErrorCode, message: string): TErrorBody {
  return { error: code, message, code: ERROR_STATUS[code] };
}

/**
 * A resource the key does not own. Unknown ids and other keys' ids get this same answer, so whether
 * an id exists is never revealed to another key.
 */
export function notFoundForKey(what: 'job' | 'batch' | 'binding' | 'schedule' | 'watch', id: string): AppError {
  return new AppError('not_found', `No ${what} ${id} for this API key.`);
}
