/**
 * The OpenAPI 3.1 document, generated from the contract's zod schemas (never written by hand).
 * Each route the connector serves is registered here; a test checks the two lists are equal.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ZAccountSchema, ZHealthSchema } from './account.js';
import { ZErrorBodySchema, ZSyncErrorBodySchema } from './errors.js';
import { ZVerifyRequestSchema } from './policy.js';
import { ZVerificationResultSchema } from './verification.js';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { 'application/json': { schema } } });

function errors(...statuses: number[]) {
  const text: Record<number, string> = {
    400: 'Invalid input',
    401: 'Missing or invalid API key (unauthorized, invalid_api_key)',
    402: 'Insufficient credits',
    403: 'The key lacks the scope for this operation (insufficient_scope)',
    404: 'Not found',
    409: 'A request with the same Idempotency-Key is still running',
    413: 'Body too large',
    415: 'Body is not JSON',
    422: 'Idempotency-Key reused with another body',
    429: 'Rate limit exceeded; see Retry-After',
    500: 'Internal error',
  };
  return Object.fromEntries(statuses.map((s) => [String(s), json(ZErrorBodySchema, text[s] ?? 'Error')]));
}

const rateLimitHeaders = {
  'Retry-After': { description: 'Seconds to wait (on 429).', schema: { type: 'integer' as const } },
};

export function buildOpenApiDocument(opts: { serverUrl?: string; version?: string } = {}) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: pk_live_... (production, charged) or pk_test_... (sandbox, never charged).',
  });
  const security = [{ [bearer.name]: [] }];
  const idempotencyHeader = z.object({
    'Idempotency-Key': z.string().max(255).optional().meta({ description: 'Repeat a POST safely: a repeat returns the first response and charges nothing.' }),
  });

  registry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness and store check',
    responses: { 200: json(ZHealthSchema, 'Service and store are up'), 503: json(ZErrorBodySchema, 'Store unavailable') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    responses: { 200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: z.object({}).passthrough() } } }, ...errors(429) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/verify',
    summary: 'Verify one policy synchronously',
    description:
      'Checks the policy number against the format table, the insurer register, the country registry and the sanctions list. ' +
      'Costs 1 credit for a verified or unverified result, 0 for inconclusive or an error; sandbox keys are never charged. ' +
      'Validation and credit errors use the sync error form (error + detail); auth, rate-limit and body errors use the standard form.',
    security,
    request: { headers: idempotencyHeader, body: { required: true, content: { 'application/json': { schema: ZVerifyRequestSchema } } } },
    responses: {
      200: json(ZVerificationResultSchema, 'Verification result'),
      400: {
        description: 'missing_required_fields, unsupported_country, unsupported_insurance_type, invalid_policy_number, invalid_request (sync form); invalid_json (standard form)',
        content: { 'application/json': { schema: z.union([ZSyncErrorBodySchema, ZErrorBodySchema]) } },
      },
      402: json(ZSyncErrorBodySchema, 'insufficient_credits; detail and balance give the balance'),
      ...errors(401, 403, 409, 413, 415, 422, 500),
      429: { ...json(ZErrorBodySchema, 'rate_limit_exceeded'), headers: rateLimitHeaders },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/account',
    summary: "The calling key's plan, scopes and credit balance",
    security,
    responses: { 200: json(ZAccountSchema, 'Account'), ...errors(401, 429, 500) },
  });

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Covercheck Policy Verification Service',
      version: opts.version ?? '0.1.0',
      description: 'Verifies insurance policies for UK, DE and FR (motor, travel, health). Generated from the zod contract in shared/.',
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
  });
}
