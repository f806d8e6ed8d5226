/** Asynchronous work: async verification, document extraction, batches, their status, webhook deliveries (spec 4.2, 4.3, 4.5, 4.6, 6). */
import { z } from 'zod';
import { ZBatchAcceptedSchema, ZBatchRequestSchema, ZBatchSchema } from '../batch.js';
import { ZDeliveryListSchema } from '../deliveries.js';
import { ZJobAcceptedSchema, ZJobDeletedSchema, ZJobSchema } from '../job.js';
import { MAX_DOCUMENT_BYTES, ZAsyncVerifyRequestSchema } from '../policy.js';
import { ZDeliveriesQuerySchema, ZWaitQuerySchema } from '../query.js';
import { ok, refused, SHEET_403, type RouteContract } from './types.js';

/** A 14 MB PDF is about 18.7 MB as base64; the async route takes that plus the policy fields. */
export const ASYNC_BODY_LIMIT = Math.ceil((MAX_DOCUMENT_BYTES * 4) / 3) + 64 * 1024;

/** 429 on the routes that take a document: the key's rate or its bodies in flight, or its storage quota (docs/document-limits.md, "Storage"). */
const DOCUMENT_429 = refused(
  'rate_limit_exceeded (requests, documents waiting or request bodies in flight for this key); or document_quota_exceeded: the key holds its quota of documents',
  { retryAfter: true },
);

export const jobRoutes = {
  extract: {
    method: 'post',
    path: '/api/v1/documents/extract',
    access: 'key',
    scope: 'extract',
    summary: 'Upload a policy PDF for field extraction',
    description:
      'multipart/form-data with file (a PDF, or a JPEG or PNG photo read as a one-page scan; at most 14 MB) and optional webhook_url (HTTPS). ' +
      'Answers 202 with job_id; the job carries the ' +
      'extracted fields (policy_number, insurer, insurance_type, start_date, end_date, vehicle_registration, each with a confidence) when ' +
      'complete, or unreadable_document when the PDF is corrupt, encrypted or has no readable text. A live key reserves 1 credit, kept on ' +
      'completion and refunded on failure. With too many documents waiting, 503 with Retry-After.',
    request: {
      multipart: z.object({
        file: z
          .string()
          .meta({ format: 'binary', description: 'The PDF, or a JPEG or PNG photo of the document (told by its first bytes).' }),
        webhook_url: z.string().optional().meta({ description: 'HTTPS URL for job.completed / job.failed.' }),
        sheet_target: z
          .string()
          .optional()
          .meta({ description: 'A SheetTarget as JSON text: write the extracted fields into a bound spreadsheet.' }),
      }),
    },
    responses: {
      202: ok(ZJobAcceptedSchema, 'Accepted'),
      400: refused(
        'missing_required_field (no file), invalid_document (empty, or not a PDF, JPEG or PNG), invalid_webhook_url, invalid_request',
      ),
      402: refused('insufficient_credits'),
      403: SHEET_403,
      413: refused('file larger than 14 MB'),
      429: DOCUMENT_429,
      503: refused('too many documents waiting, or too many request bodies in flight; see Retry-After', { retryAfter: true }),
      507: refused('insufficient_storage: the server stores no new document for now'),
    },
  },
  verifyAsync: {
    method: 'post',
    path: '/api/v1/verify/async',
    access: 'key',
    scope: 'verify',
    summary: 'Submit one policy for asynchronous verification',
    description:
      'Answers 202 at once; the job is stored before the answer. Reserves 1 credit on a live key, settled on completion with the sync rule ' +
      '(kept for verified or unverified, given back for inconclusive or an error). Poll poll_url, or give webhook_url (HTTPS) for a signed ' +
      'job.completed / job.failed callback (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).',
    // Parsed by submitAsyncVerification (the policy fields, the document, webhook_url, sheet_target).
    request: { body: ZAsyncVerifyRequestSchema },
    // A larger body limit than the other routes: it carries a base64 PDF, decoded as the body is read.
    bodyLimit: ASYNC_BODY_LIMIT,
    documentFields: ['document'],
    webhook: true,
    responses: {
      202: ok(ZJobAcceptedSchema, 'Accepted'),
      400: refused(
        'missing_required_field, unsupported_country, unsupported_insurance_type, invalid_policy_number, invalid_document, invalid_webhook_url, invalid_request, invalid_json',
      ),
      402: refused('insufficient_credits'),
      403: SHEET_403,
      413: refused('document larger than 14 MB decoded, or body too large'),
      429: DOCUMENT_429,
      503: refused('service_unavailable: too many documents waiting, or too many request bodies in flight; see Retry-After', {
        retryAfter: true,
      }),
      507: refused('insufficient_storage: the server stores no new document for now (with a document only)'),
    },
  },
  verifyBatch: {
    method: 'post',
    path: '/api/v1/verify/batch',
    access: 'key',
    scope: 'verify',
    summary: 'Submit 1 to 100 policies for verification',
    description:
      'Answers 202 at once with batch_id; poll GET /api/v1/batches/{batch_id}. Each item is validated on its own. A live key reserves 1 credit ' +
      'per valid item; each is settled like a sync call when it finishes.',
    // Parsed by submitBatch: the envelope as a whole, each item on its own.
    request: { body: ZBatchRequestSchema },
    responses: {
      202: ok(ZBatchAcceptedSchema, 'Accepted'),
      400: refused('No policies, more than 100, invalid_webhook_url, invalid_request, invalid_json'),
      402: refused('insufficient_credits for the valid items'),
      403: SHEET_403,
    },
  },
  job: {
    method: 'get',
    path: '/api/v1/jobs/:job_id',
    access: 'key',
    summary: 'A job: status, result when complete, error when failed',
    description:
      'Visible only to the key that created it; any other key gets 404. With ?wait=N (0-25) the answer is held until the job finishes or N seconds pass.',
    request: { query: ZWaitQuerySchema },
    responses: {
      200: ok(ZJobSchema, 'The job'),
      404: refused('not_found; or job_expired: the job was removed once its result retention ran out (said to its own key only)'),
    },
  },
  jobDelete: {
    method: 'delete',
    path: '/api/v1/jobs/:job_id',
    access: 'key',
    summary: 'Erase a finished job: its uploaded PDF, its result and its webhook deliveries',
    description:
      'An addition to the spec: erases at once what retention would remove later (docs/personal-data.md), and takes the PDF off the ' +
      "key's document quota. Only the key that created the job may; any other key gets 404, as for an unknown id. A job still pending " +
      'is 409 job_pending: delete it once it has finished. Erased is erased: a second DELETE, and any GET, answer 404 not_found. The ' +
      'credit ledger keeps its rows (they name the job id, nothing of its content).',
    responses: {
      200: ok(ZJobDeletedSchema, 'Erased'),
      409: refused('job_pending: the job is still queued or running'),
    },
  },
  batch: {
    method: 'get',
    path: '/api/v1/batches/:batch_id',
    access: 'key',
    summary: 'A batch: status, counts and per-policy results in submission order',
    description:
      'Visible only to the key that created it; any other key gets 404. With ?wait=N (0-25) the answer is held until the batch completes or N seconds pass.',
    request: { query: ZWaitQuerySchema },
    responses: {
      200: ok(ZBatchSchema, 'The batch'),
      404: refused('not_found; or batch_expired: the batch was removed once its result retention ran out (said to its own key only)'),
    },
  },
  deliveries: {
    method: 'get',
    path: '/api/v1/webhooks/deliveries',
    access: 'key',
    summary: "The calling key's webhook deliveries, newest first, with every attempt",
    request: { query: ZDeliveriesQuerySchema },
    responses: { 200: ok(ZDeliveryListSchema, 'Deliveries') },
  },
} satisfies Record<string, RouteContract>;
