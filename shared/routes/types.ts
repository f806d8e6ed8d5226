/**
 * What a route of the connector is, as data: method, path, who may call it, what it takes and what it
 * answers. The connector mounts its middleware from these fields (connector/src/app.ts) and the OpenAPI
 * document is generated from them (shared/openapi.ts); the error statuses the fields imply (a scope,
 * a body, idempotency) are added by `impliedErrors`, so a route lists only the errors of its own.
 */
import type { z } from 'zod';
import type { TScope } from '../account.js';
import { ZErrorBodySchema } from '../errors.js';

/**
 * Who may call a route, and which rate limit it spends:
 * - `key`: a Bearer key is required; the key's rate limit and its share of request bodies in flight;
 * - `key-or-ip`: public, limited per IP; a key that is sent must be valid (and hold the scope) and spends its own budget;
 * - `ip`: public, limited per IP;
 * - `open`: public and unlimited (the health check a load balancer polls).
 */
export type RouteAccess = 'key' | 'key-or-ip' | 'ip' | 'open';

/** One answer of a route: a JSON body of `schema`, or none (204). */
export interface RouteResponse {
  description: string;
  schema?: z.ZodType;
  /** The answer carries Retry-After. */
  retryAfter?: boolean;
  /** The same answer is also given as text/csv to a request that accepts it; what the CSV holds. */
  csv?: string;
}

export interface RouteContract {
  method: 'get' | 'post' | 'delete';
  /** The full path in Express form: `/api/v1/jobs/:job_id`; each `:param` is a string path parameter. */
  path: string;
  access: RouteAccess;
  /** The scope the key must hold (403 insufficient_scope); on a `key-or-ip` route, only when a key is sent. */
  scope?: TScope;
  summary: string;
  description?: string;
  request?: {
    query?: z.ZodObject;
    /**
     * The JSON body. Routes whose domain function parses the body itself (the verify routes: the policy
     * fields with their own error codes, and the sync form on POST /verify) declare the schema that
     * function parses by; the other routes parse with this schema.
     */
    body?: z.ZodType;
    /** The body may be left out (it is then `{}`). */
    bodyOptional?: boolean;
    /** A multipart/form-data body, read by the route itself: no JSON parser, identity coding only, no idempotency replay of a stream. */
    multipart?: z.ZodObject;
  };
  /** The success answers and the route's own errors; an entry here replaces the implied one of the same status. */
  responses: Record<number, RouteResponse>;
  /** JSON body limit in bytes when it differs from COVERCHECK_JSON_LIMIT_KB. */
  bodyLimit?: number;
  /** Array elements and object members the JSON body may hold, when more than the default bound (connector/src/offload/json-shape.ts). */
  jsonValues?: number;
  /** Top-level body fields holding a base64 PDF, decoded as the body is read (connector/src/http/json-body.ts). */
  documentFields?: readonly string[];
  /** Its answer is never stored for an Idempotency-Key replay (it holds something the store must not keep); the header is ignored. */
  unstored?: boolean;
  /** The route calls the request's webhook_url with a signed WebhookEvent when the work finishes. */
  webhook?: boolean;
}

export const ok = (schema: z.ZodType, description: string): RouteResponse => ({ description, schema });
export const refused = (description: string, opts: { retryAfter?: boolean; schema?: z.ZodType } = {}): RouteResponse => ({
  description,
  schema: opts.schema ?? ZErrorBodySchema,
  retryAfter: opts.retryAfter,
});

/** 403 on routes that take a spreadsheet: the scope, or the spreadsheet's binding (docs/sheets-binding.md). */
export const SHEET_403 = refused(
  'insufficient_scope; or sheet_not_bound: the spreadsheet is not bound to this key (POST /api/v1/sheets/bindings)',
);

/** The route reads a multipart body itself. */
export const isMultipart = (route: RouteContract): boolean => route.request?.multipart !== undefined;

/** The route takes a JSON body. */
export const takesJson = (route: RouteContract): boolean => route.request?.body !== undefined;

/**
 * The route's POSTs are deduplicated by Idempotency-Key: every POST with a JSON body or none, unless
 * its answer must not be stored. (A stream cannot be replayed, so multipart routes are not.)
 */
export const isIdempotent = (route: RouteContract): boolean => route.method === 'post' && !isMultipart(route) && !route.unstored;

/** The names of the path's parameters, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/:(\w+)/g)].map((m) => m[1]!);

/**
 * The errors a route's fields imply, by status: what the middleware its fields mount can answer
 * (connector/src/app.ts mounts from the same fields). A route's own `responses` replace these.
 */
export function impliedErrors(route: RouteContract): Record<number, RouteResponse> {
  const out: Record<number, RouteResponse> = {};
  const keyed = route.access === 'key' || route.access === 'key-or-ip';
  const body = takesJson(route) || isMultipart(route);
  const budgeted = route.access === 'key' && body;
  const problems = [
    route.request?.query && 'a query parameter',
    takesJson(route) && 'the body (invalid_request) or its JSON (invalid_json)',
    isMultipart(route) && 'a form field',
    isIdempotent(route) && 'the Idempotency-Key',
  ].filter(Boolean);
  if (problems.length) out[400] = refused(`Invalid input: ${problems.join('; ')}`);
  if (keyed) out[401] = refused('Missing or invalid API key (unauthorized, invalid_api_key)');
  if (route.scope) out[403] = refused(`The key lacks the ${route.scope} scope (insufficient_scope)`);
  if (pathParams(route.path).length) out[404] = refused('Not found');
  if (isIdempotent(route)) {
    out[409] = refused('A request with the same Idempotency-Key is still running');
    out[422] = refused('Idempotency-Key reused with another body');
  }
  if (body) out[413] = refused('Body too large');
  if (takesJson(route)) out[415] = refused('Body is not JSON (UTF-8), or in a Content-Encoding other than gzip, deflate or br');
  if (isMultipart(route)) out[415] = refused('Not multipart/form-data, or in a Content-Encoding');
  if (route.access !== 'open')
    out[429] = refused(`rate_limit_exceeded${budgeted ? ': requests, or request bodies in flight for this key' : ''}; see Retry-After`, {
      retryAfter: true,
    });
  out[500] = refused('Internal error');
  if (budgeted) out[503] = refused('service_unavailable: too many request bodies in flight; see Retry-After', { retryAfter: true });
  return out;
}
