/** The one application error class: a code from the contract's closed list, a safe message. */
import { ERROR_STATUS, type TErrorBody, type TErrorCode, type TSyncErrorBody } from '../../shared/errors.js';

export class AppError extends Error {
  readonly code: TErrorCode;
  readonly status: number;
  /** Shown to the client. `message` (the Error's) may hold internals and is only logged. */
  readonly publicMessage: string;
  readonly retryAfter: number | undefined;
  readonly extra: Record<string, unknown>;

  constructor(code: TErrorCode, publicMessage: string, opts: { internal?: string; retryAfter?: number; extra?: Record<string, unknown>; cause?: unknown } = {}) {
    super(opts.internal ?? publicMessage, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.publicMessage = publicMessage;
    this.retryAfter = opts.retryAfter;
    this.extra = opts.extra ?? {};
  }

  toBody(): TErrorBody {
    const body: TErrorBody = { error: this.code, message: this.publicMessage, code: this.status };
    if (this.retryAfter !== undefined) body.retry_after = this.retryAfter;
    return body;
  }

  /** The sync verification form (spec 4.1). */
  toSyncBody(): TSyncErrorBody {
    const body: TSyncErrorBody = { error: this.code, detail: this.publicMessage };
    if (typeof this.extra.balance === 'number') body.balance = this.extra.balance;
    return body;
  }
}

export function errorBody(code: TErrorCode, message: string): TErrorBody {
  return { error: code, message, code: ERROR_STATUS[code] };
}
