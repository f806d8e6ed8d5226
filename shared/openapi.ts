/**
 * The OpenAPI 3.1 document, generated from the contract's zod schemas (never written by hand).
 * Each route the connector serves is registered here; a test checks the two lists are equal.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ZAccountSchema, ZHealthSchema } from './account.js';
import { ZBatchAcceptedSchema, ZBatchRequestSchema, ZBatchSchema } from './batch.js';
import { ZDatasetListQuerySchema, ZDatasetListSchema, ZDatasetSchema, ZSeriesQuerySchema, ZSeriesSchema } from './dataset.js';
import { ZDeliveriesQuerySchema, ZWaitQuerySchema } from './query.js';
import { ZDeliveryListSchema } from './deliveries.js';
import {
  ZScheduleListSchema,
  ZScheduleRequestSchema,
  ZScheduleResumeRequestSchema,
  ZScheduleSchema,
  ZServiceAccountSchema,
  ZSheetBindingIssuedSchema,
  ZSheetBindingListSchema,
  ZSheetBindingRequestSchema,
  ZSheetBindingSchema,
} from './sheets.js';
import { ZJobAcceptedSchema, ZJobSchema } from './job.js';
import { ZWebhookEventSchema } from './webhooks.js';
import { ZErrorBodySchema, ZSyncErrorBodySchema } from './errors.js';
import { COUNTRIES, INSURANCE_TYPES, ZAsyncVerifyRequestSchema, ZVerifyRequestSchema } from './policy.js';
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

/** 403 on routes that take a spreadsheet: the scope, or the spreadsheet's binding (docs/sheets-binding.md). */
const sheet403 = json(ZErrorBodySchema, 'insufficient_scope; or sheet_not_bound: the spreadsheet is not bound to this key (POST /api/v1/sheets/bindings)');

/** 429 on the routes that take a document: the key's rate or its bodies in flight, or its storage quota (docs/document-limits.md, "Storage"). */
const DOCUMENT_429 = 'rate_limit_exceeded (requests, documents waiting or request bodies in flight for this key); or document_quota_exceeded: the key holds its quota of documents';

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
    method: 'post',
    path: '/api/v1/verify/async',
    summary: 'Submit one policy for asynchronous verification',
    description:
      'Answers 202 at once; the job is stored before the answer. Reserves 1 credit on a live key, settled on completion with the sync rule ' +
      '(kept for verified or unverified, given back for inconclusive or an error). Poll poll_url, or give webhook_url (HTTPS) for a signed ' +
      'job.completed / job.failed callback (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).',
    security,
    request: { headers: idempotencyHeader, body: { required: true, content: { 'application/json': { schema: ZAsyncVerifyRequestSchema } } } },
    responses: {
      202: json(ZJobAcceptedSchema, 'Accepted'),
      400: json(ZErrorBodySchema, 'missing_required_field, unsupported_country, unsupported_insurance_type, invalid_policy_number, invalid_document, invalid_webhook_url, invalid_request, invalid_json'),
      402: json(ZErrorBodySchema, 'insufficient_credits'),
      413: json(ZErrorBodySchema, 'document larger than 14 MB decoded, or body too large'),
      ...errors(401, 403, 409, 415, 422, 500),
      403: sheet403,
      429: { ...json(ZErrorBodySchema, DOCUMENT_429), headers: rateLimitHeaders },
      503: { ...json(ZErrorBodySchema, 'service_unavailable: too many documents waiting, or too many request bodies in flight; see Retry-After'), headers: rateLimitHeaders },
      507: json(ZErrorBodySchema, 'insufficient_storage: the server stores no new document for now (with a document only)'),
    },
    callbacks: {
      jobFinished: {
        '{$request.body#/webhook_url}': {
          post: {
            summary: 'job.completed or job.failed',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/WebhookEvent' } } } },
            responses: { '2XX': { description: 'Received; any other answer is retried with backoff' } },
          },
        },
      },
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/documents/extract',
    summary: 'Upload a policy PDF for field extraction',
    description:
      'multipart/form-data with file (a PDF, at most 14 MB) and optional webhook_url (HTTPS). Answers 202 with job_id; the job carries the ' +
      'extracted fields (policy_number, insurer, insurance_type, start_date, end_date, vehicle_registration, each with a confidence) when ' +
      'complete, or unreadable_document when the PDF is corrupt, encrypted or has no readable text. A live key reserves 1 credit, kept on ' +
      'completion and refunded on failure. With too many documents waiting, 503 with Retry-After.',
    security,
    request: {
      body: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: z.object({
              file: z.string().meta({ format: 'binary', description: 'The PDF.' }),
              webhook_url: z.string().optional().meta({ description: 'HTTPS URL for job.completed / job.failed.' }),
              sheet_target: z.string().optional().meta({ description: 'A SheetTarget as JSON text: write the extracted fields into a bound spreadsheet.' }),
            }),
          },
        },
      },
    },
    responses: {
      202: json(ZJobAcceptedSchema, 'Accepted'),
      400: json(ZErrorBodySchema, 'missing_required_field (no file), invalid_document (empty or not a PDF), invalid_webhook_url, invalid_request'),
      402: json(ZErrorBodySchema, 'insufficient_credits'),
      413: json(ZErrorBodySchema, 'file larger than 14 MB'),
      415: json(ZErrorBodySchema, 'not multipart/form-data'),
      503: { ...json(ZErrorBodySchema, 'too many documents waiting, or too many request bodies in flight; see Retry-After'), headers: rateLimitHeaders },
      ...errors(401, 403, 500),
      403: sheet403,
      429: { ...json(ZErrorBodySchema, DOCUMENT_429), headers: rateLimitHeaders },
      507: json(ZErrorBodySchema, 'insufficient_storage: the server stores no new document for now'),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/verify/batch',
    summary: 'Submit 1 to 100 policies for verification',
    description:
      'Answers 202 at once with batch_id; poll GET /api/v1/batches/{batch_id}. Each item is validated on its own. A live key reserves 1 credit ' +
      'per valid item; each is settled like a sync call when it finishes.',
    security,
    request: { headers: idempotencyHeader, body: { required: true, content: { 'application/json': { schema: ZBatchRequestSchema } } } },
    responses: {
      202: json(ZBatchAcceptedSchema, 'Accepted'),
      400: json(ZErrorBodySchema, 'No policies, more than 100, invalid_webhook_url, invalid_request, invalid_json'),
      402: json(ZErrorBodySchema, 'insufficient_credits for the valid items'),
      ...errors(401, 403, 409, 413, 415, 422, 500),
      403: sheet403,
      429: { ...json(ZErrorBodySchema, 'rate_limit_exceeded'), headers: rateLimitHeaders },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/jobs/{job_id}',
    summary: 'A job: status, result when complete, error when failed',
    description: 'Visible only to the key that created it; any other key gets 404. With ?wait=N (0-25) the answer is held until the job finishes or N seconds pass.',
    security,
    request: { params: z.object({ job_id: z.string() }), query: ZWaitQuerySchema },
    responses: { 200: json(ZJobSchema, 'The job'), ...errors(400, 401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/batches/{batch_id}',
    summary: 'A batch: status, counts and per-policy results in submission order',
    description: 'Visible only to the key that created it; any other key gets 404. With ?wait=N (0-25) the answer is held until the batch completes or N seconds pass.',
    security,
    request: { params: z.object({ batch_id: z.string() }), query: ZWaitQuerySchema },
    responses: { 200: json(ZBatchSchema, 'The batch'), ...errors(400, 401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    summary: "The calling key's webhook deliveries, newest first, with every attempt",
    security,
    request: { query: ZDeliveriesQuerySchema },
    responses: { 200: json(ZDeliveryListSchema, 'Deliveries'), ...errors(400, 401, 429, 500) },
  });
  const optionalSecurity = [{}, { [bearer.name]: [] }];
  const datasetAuth =
    'Public: no key needed, rate-limited per IP. A key may be sent to use its own budget; a key that is sent must be valid and hold the datasets scope.';
  registry.registerPath({
    method: 'get',
    path: '/api/v1/datasets',
    summary: 'Search and list the dataset catalogue',
    description: `${datasetAuth} Without q, datasets are ordered by title.`,
    security: optionalSecurity,
    request: { query: ZDatasetListQuerySchema },
    responses: { 200: json(ZDatasetListSchema, 'A page of datasets and the total'), ...errors(400, 401, 403, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/datasets/{slug}',
    summary: 'One dataset',
    description: datasetAuth,
    security: optionalSecurity,
    request: { params: z.object({ slug: z.string() }) },
    responses: { 200: json(ZDatasetSchema, 'The dataset'), ...errors(401, 403, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/datasets/{slug}/series',
    summary: 'Points of a dataset',
    description: `${datasetAuth} Points are always in ascending date order; direction picks which end of the series they come from.`,
    security: optionalSecurity,
    request: {
      params: z.object({ slug: z.string() }),
      query: ZSeriesQuerySchema,
    },
    responses: { 200: json(ZSeriesSchema, 'The points'), ...errors(400, 401, 403, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sheets/service-account',
    summary: 'The Google service account that writes into sheets: share target sheets with it',
    security,
    responses: { 200: json(ZServiceAccountSchema, 'The address'), 503: json(ZErrorBodySchema, 'Sheets not configured on this connector'), ...errors(401, 429, 500) },
  });
  const bindingDoc = 'docs/sheets-binding.md';
  registry.registerPath({
    method: 'post',
    path: '/api/v1/sheets/bindings',
    summary: 'Ask to bind a spreadsheet to this key: returns a token for an editor to write into it',
    description:
      'A key may write into a spreadsheet (sheet_target, schedules) only once an editor of the spreadsheet has proved it: the add-on, running ' +
      "as the user, writes metadata_value as DOCUMENT-visible developer metadata under metadata_key on the spreadsheet, then calls .../verify. " +
      'The token is shown only here; asking again for the same spreadsheet replaces it (the old one stops counting). Any valid key may ask. ' +
      `See ${bindingDoc}.`,
    security,
    request: { body: { required: true, content: { 'application/json': { schema: ZSheetBindingRequestSchema } } } },
    responses: { 201: json(ZSheetBindingIssuedSchema, 'Issued, pending'), 503: json(ZErrorBodySchema, 'Sheets not configured'), ...errors(400, 401, 429, 500) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/sheets/bindings/{binding_id}/verify',
    summary: "Look for the binding's token in the spreadsheet now; active when found",
    description:
      'Reads the developer metadata of the spreadsheet through the Sheets API. 403 sheet_not_bound when the token is not there, or the ' +
      'spreadsheet is not shared with the service account, or does not exist: the same answer in every case.',
    security,
    request: { params: z.object({ binding_id: z.string() }) },
    responses: {
      200: json(ZSheetBindingSchema, 'Active'),
      403: json(ZErrorBodySchema, 'sheet_not_bound'),
      503: { ...json(ZErrorBodySchema, 'Sheets not configured, or the Sheets API could not be reached; see Retry-After'), headers: rateLimitHeaders },
      ...errors(401, 404, 429, 500),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sheets/bindings',
    summary: "The calling key's spreadsheet bindings (never their tokens)",
    security,
    responses: { 200: json(ZSheetBindingListSchema, 'Bindings'), 503: json(ZErrorBodySchema, 'Sheets not configured'), ...errors(401, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sheets/bindings/{binding_id}',
    summary: 'One binding',
    security,
    request: { params: z.object({ binding_id: z.string() }) },
    responses: { 200: json(ZSheetBindingSchema, 'The binding'), 503: json(ZErrorBodySchema, 'Sheets not configured'), ...errors(401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/sheets/bindings/{binding_id}',
    summary: 'Unbind: the key may no longer write into the spreadsheet, from now on',
    security,
    request: { params: z.object({ binding_id: z.string() }) },
    responses: { 204: { description: 'Removed' }, 503: json(ZErrorBodySchema, 'Sheets not configured'), ...errors(401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/sheets/schedules',
    summary: 'Schedule a dataset refresh into a sheet',
    description:
      'The sheet (which must exist and be shared with the service account) is cleared and rewritten with the latest points on the cadence; the ' +
      'first run is immediate. A run missed while the connector was down runs once when it is back, not once per missed period. The ' +
      `spreadsheet must be bound to the key (${bindingDoc}); a run whose spreadsheet is no longer bound fails and writes nothing.`,
    security,
    request: { body: { required: true, content: { 'application/json': { schema: ZScheduleRequestSchema } } } },
    responses: {
      201: json(ZScheduleSchema, 'Created'),
      404: json(ZErrorBodySchema, 'No such dataset'),
      503: json(ZErrorBodySchema, 'Sheets not configured'),
      ...errors(400, 401, 403, 429, 500),
      403: sheet403,
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sheets/schedules',
    summary: "The calling key's schedules with their latest runs",
    security,
    responses: { 200: json(ZScheduleListSchema, 'Schedules'), ...errors(401, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/sheets/schedules/{schedule_id}',
    summary: 'One schedule with its run history',
    security,
    request: { params: z.object({ schedule_id: z.string() }) },
    responses: { 200: json(ZScheduleSchema, 'The schedule'), ...errors(401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/sheets/schedules/{schedule_id}/resume',
    summary: 'Resume a schedule that paused itself after failed runs in a row',
    description: 'Clears the pause and the failure count and runs the schedule at once. Another key gets 404, as for every per-key read.',
    security,
    request: { params: z.object({ schedule_id: z.string() }), body: { required: false, content: { 'application/json': { schema: ZScheduleResumeRequestSchema } } } },
    responses: { 200: json(ZScheduleSchema, 'The schedule, resumed'), 503: json(ZErrorBodySchema, 'Sheets not configured'), ...errors(400, 401, 403, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/sheets/schedules/{schedule_id}',
    summary: 'Remove a schedule',
    security,
    request: { params: z.object({ schedule_id: z.string() }) },
    responses: { 204: { description: 'Removed' }, ...errors(401, 404, 429, 500) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/account',
    summary: "The calling key's plan, scopes and credit balance",
    security,
    responses: { 200: json(ZAccountSchema, 'Account'), ...errors(401, 429, 500) },
  });

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
