/** Error bodies (spec 7) and the closed list of error codes with their HTTP statuses. */
import { z } from 'zod';

/**
 * Every error code the service answers with, mapped to its HTTP status. The first block is the
 * spec's table; the rest are ours for cases the spec does not name.
 */
export const ERROR_STATUS = {
  invalid_policy_number: 400,
  missing_required_field: 400,
  missing_required_fields: 400,
  unsupported_country: 400,
  unsupported_insurance_type: 400,
  unauthorized: 401,
  invalid_api_key: 401,
  insufficient_credits: 402,
  insurer_not_found: 404,
  policy_not_found: 404,
  rate_limit_exceeded: 429,
  internal_error: 500,
  // Ours:
  /** The body or a parameter has the wrong shape (wrong type, unknown field, bad value). */
  invalid_request: 400,
  /** The body is not parseable JSON. */
  invalid_json: 400,
  /** `document` is not base64 or not a PDF. */
  invalid_document: 400,
  /** `webhook_url` is not HTTPS, or resolves to a private, loopback or link-local address. */
  invalid_webhook_url: 400,
  /** The key is valid but lacks the scope the operation needs (spec 5.6 gives 403 without a code). */
  insufficient_scope: 403,
  /**
   * The spreadsheet is not bound to this key (no binding, or its token is no longer in the
   * spreadsheet, or the spreadsheet can't be read): nothing is written. The same answer whatever
   * the reason, so it reveals nothing about a spreadsheet the key may not use (docs/sheets-binding.md).
   */
  sheet_not_bound: 403,
  /** No such route or resource. */
  not_found: 404,
  /**
   * The key's job was removed once its result retention ran out (docs/personal-data.md): said to its
   * own key only; another key gets not_found, as for any id it does not own.
   */
  job_expired: 404,
  /** The key's batch was removed once its result retention ran out; as job_expired. */
  batch_expired: 404,
  /** The request did not arrive in full within the server's request timeout. */
  request_timeout: 408,
  /** Same Idempotency-Key is still being processed. */
  idempotency_in_progress: 409,
  /** DELETE of a job still pending (queued or running): it can be erased once it has finished. */
  job_pending: 409,
  /** Body larger than the route accepts. */
  payload_too_large: 413,
  /** Content-Type, charset or Content-Encoding the route does not accept. */
  unsupported_media_type: 415,
  /** Same Idempotency-Key reused with a different request body. */
  idempotency_key_reused: 422,
  /** The PDF arrived but can't be read: corrupt, encrypted, no readable text, too many pages. */
  unreadable_document: 422,
  /**
   * The key holds as many bytes of documents as its quota allows (sandbox keys a smaller one); its
   * documents count until retention removes them, so retry_after is long (docs/document-limits.md, "Storage").
   */
  document_quota_exceeded: 429,
  /** The request line and headers are larger than the server reads (node's 16 KB). */
  headers_too_large: 431,
  /** A dependency (store) is down; retry later. */
  service_unavailable: 503,
  /** The store's disk is close to full: no new document is stored until an operator makes room (docs/document-limits.md, "Storage"). */
  insufficient_storage: 507,
} as const;

export type TErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [TErrorCode, ...TErrorCode[]];
export const ZErrorCodeSchema = z.enum(ERROR_CODES).meta({ id: 'ErrorCode' });

/** The standard error body. */
export const ZErrorBodySchema = z
  .object({
    error: ZErrorCodeSchema,
    message: z.string().meta({ description: 'Human-readable text; safe to show to a user.' }),
    code: z.number().int().meta({ description: 'The HTTP status, repeated.' }),
    retry_after: z.number().int().min(1).optional().meta({ description: 'Seconds to wait. Present on 429 (and 503).' }),
  })
  .meta({ id: 'ErrorBody' });
export type TErrorBody = z.infer<typeof ZErrorBodySchema>;

/**
 * The sync verification error form (spec 4.1): `detail` in place of `message` and `code`.
 * POST /api/v1/verify answers its own validation and credit errors in this form; errors raised
 * before the route runs (auth, rate limit, malformed JSON) keep the standard form.
 */
export const ZSyncErrorBodySchema = z
  .object({
    error: ZErrorCodeSchema,
    detail: z.string(),
    balance: z.number().int().optional().meta({ description: 'Credit balance, on insufficient_credits.' }),
  })
  .meta({ id: 'SyncErrorBody' });
export type TSyncErrorBody = z.infer<typeof ZSyncErrorBodySchema>;

/** Characters of a received value that an error message quotes: enough for any valid policy number. */
export const ECHO_MAX_CHARS = 64;

/**
 * A received value as an error message quotes it: whole when short, else its first ECHO_MAX_CHARS and an
 * ellipsis, so a value of megabytes never comes back (or into a stored idempotent answer) whole.
 */
export function echoed(value: string, max = ECHO_MAX_CHARS): string {
  if (value.length <= max) return value;
  // Never split a surrogate pair: half of one is not valid text.
  const high = value.charCodeAt(max - 1);
  const cut = high >= 0xd800 && high <= 0xdbff ? max - 1 : max;
  return `${value.slice(0, cut)}…`;
}

/** Received names (unknown fields, say) as a message lists them: each echoed, the first `maxItems`, then how many more. */
export function echoedList(values: readonly string[], maxItems = 5): string {
  const shown = values
    .slice(0, maxItems)
    .map((v) => echoed(v))
    .join(', ');
  return values.length > maxItems ? `${shown} and ${values.length - maxItems} more` : shown;
}

/** Either error form, for clients that read both. */
export function errorText(body: unknown): string {
  if (typeof body !== 'object' || body === null) return 'Unknown error';
  const b = body as Record<string, unknown>;
  if (typeof b.detail === 'string') return b.detail;
  if (typeof b.message === 'string') return b.message;
  return typeof b.error === 'string' ? b.error : 'Unknown error';
}
