/**
 * The OpenAPI 3.1 document, generated from the route table (shared/routes/) and the contract's zod
 * schemas, never written by hand: one loop over the table, each route's errors those its fields
 * imply (impliedErrors) under the ones it declares itself.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { COUNTRIES, INSURANCE_TYPES } from './policy.js';
import { ROUTES, impliedErrors, isIdempotent, pathParams, type RouteContract, type RouteResponse } from './routes/index.js';
import { ZWebhookEventSchema } from './webhooks.js';

const retryAfterHeader = { 'Retry-After': { description: 'Seconds to wait.', schema: { type: 'integer' as const } } };

const idempotencyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .max(255)
    .optional()
    .meta({ description: 'Repeat a POST safely: a repeat returns the first response and charges nothing.' }),
});

function response(r: RouteResponse) {
  return {
    description: r.description,
    ...(r.schema
      ? {
          content: {
            'application/json': { schema: r.schema },
            ...(r.csv ? { 'text/csv': { schema: { type: 'string' as const, description: r.csv } } } : {}),
          },
        }
      : {}),
    ...(r.retryAfter ? { headers: retryAfterHeader } : {}),
  };
}

/** The callback a route with `webhook` makes to the request's webhook_url (the event's schema is registered by hand below). */
const webhookCallback = {
  jobFinished: {
    '{$request.body#/webhook_url}': {
      post: {
        summary: 'job.completed or job.failed',
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
        responses: { '2XX': { description: 'Received; any other answer is retried with backoff' } },
      },
    },
  },
};

function operation(route: RouteContract, bearer: string): RouteConfig {
  const params = pathParams(route.path);
  const { query, body, bodyOptional, multipart } = route.request ?? {};
  const request: NonNullable<RouteConfig['request']> = {
    ...(isIdempotent(route) ? { headers: idempotencyHeader } : {}),
    ...(params.length ? { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } : {}),
    ...(query ? { query } : {}),
    ...(body ? { body: { required: !bodyOptional, content: { 'application/json': { schema: body } } } } : {}),
    ...(multipart ? { body: { required: true, content: { 'multipart/form-data': { schema: multipart } } } } : {}),
  };
  const responses = { ...impliedErrors(route), ...route.responses };
  const security = route.access === 'key' ? [{ [bearer]: [] }] : route.access === 'key-or-ip' ? [{}, { [bearer]: [] }] : undefined;
  return {
    method: route.method,
    path: route.path.replace(/:(\w+)/g, '{$1}'),
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(security ? { security } : {}),
    ...(Object.keys(request).length ? { request } : {}),
    responses: Object.fromEntries(Object.entries(responses).map(([status, r]) => [status, response(r)])),
    ...(route.webhook ? { callbacks: webhookCallback } : {}),
  };
}

export function buildOpenApiDocument(opts: { serverUrl?: string; version?: string } = {}) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'API key: pk_live_... (production, charged) or pk_test_... (sandbox, never charged).',
  });
  for (const route of Object.values(ROUTES) as RouteContract[]) registry.registerPath(operation(route, bearer.name));

  // Only referenced from a callback (raw OpenAPI), so its JSON Schema is registered by hand.
  // (zod puts a schema with an id under $defs and answers with a $ref to it.)
  const eventJson = z.toJSONSchema(ZWebhookEventSchema) as { $defs?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  const { id: _id, ...webhookEvent } = eventJson.$defs?.WebhookEvent ?? eventJson;
  registry.registerComponent('schemas', 'WebhookEvent', webhookEvent);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Covercheck Policy Verification Service',
      version: opts.version ?? '0.1.0',
      description: `Verifies insurance policies for ${COUNTRIES.join(', ')} (${INSURANCE_TYPES.join(', ')}). Generated from the zod contract in shared/.`,
    },
    servers: [{ url: opts.serverUrl ?? '/' }],
  });
}
