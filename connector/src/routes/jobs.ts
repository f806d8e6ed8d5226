/** Async verification, batches, job and batch status, webhook delivery log (spec 4.2, 4.3, 4.5, 4.6, 6). */
import type { Response } from 'express';
import { MAX_DOCUMENT_BYTES } from '../../../shared/policy.js';
import { ZDeliveriesQuerySchema, ZWaitQuerySchema } from '../../../shared/query.js';
import type { AppContext } from '../context.js';
import { currentKey, requireScope } from '../http/auth.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { documentsOf } from '../http/json-body.js';
import { readUpload } from '../http/multipart.js';
import { parseQuery } from '../http/query.js';
import { readBatch, readJob, type ReadDeps } from '../jobs/read.js';
import { submitAsyncVerification, submitBatch, submitExtraction, type SubmitDeps, type SubmitOptions } from '../jobs/submit.js';
import { decodedDocument } from '../offload/body.js';
import { listDeliveries } from '../webhooks/deliveries.js';
import type { KeyedRoute } from './types.js';

/** A 14 MB PDF is about 18.7 MB as base64; the async route takes that plus the policy fields. */
export const ASYNC_BODY_LIMIT = Math.ceil((MAX_DOCUMENT_BYTES * 4) / 3) + 64 * 1024;

/** The request's Idempotency-Key claim, completed with the 202 in the transaction that accepts the work. */
function submitOptions(res: Response): SubmitOptions {
  const idemKey = idempotencyKeyOf(res);
  return idemKey ? { idemKey } : {};
}

export function jobRoutes(ctx: AppContext): KeyedRoute[] {
  const deps: SubmitDeps = {
    store: ctx.store,
    allowPrivateWebhooks: ctx.config.webhooks.allowPrivate,
    ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    now: ctx.now,
    notify: () => ctx.queue.notify(),
    maxPendingExtractions: ctx.config.extraction.maxPending,
    sandboxSharePct: ctx.config.extraction.sandboxSharePct,
    maxPendingDocumentsPerKey: ctx.config.extraction.maxPendingPerKey,
    sheetBindings: ctx.sheets?.bindings ?? null,
    documentStorage: ctx.config.documents,
  };
  const reads: ReadDeps = { store: ctx.store, completions: ctx.completions };
  return [
    {
      method: 'post',
      path: '/documents/extract',
      multipart: true,
      handlers: [
        requireScope('extract'),
        async (req, res) => {
          const upload = await readUpload(req, { fileField: 'file', maxFileBytes: MAX_DOCUMENT_BYTES, textFields: ['webhook_url', 'sheet_target'] });
          res.status(202).json(await submitExtraction(upload.file?.content ?? null, upload.fields.webhook_url, currentKey(res), deps, upload.fields.sheet_target));
        },
      ],
    },
    {
      method: 'post',
      path: '/verify/async',
      // A larger body limit than the other routes: it carries a base64 PDF, decoded as the body is read.
      bodyLimit: ASYNC_BODY_LIMIT,
      documentFields: ['document'],
      handlers: [
        requireScope('verify'),
        async (req, res) => {
          const document = documentsOf(res).document;
          const submitDeps = document ? { ...deps, checkDocument: () => decodedDocument(document) } : deps;
          res.status(202).json(await submitAsyncVerification(req.body, currentKey(res), submitDeps, submitOptions(res)));
        },
      ],
    },
    {
      method: 'post',
      path: '/verify/batch',
      handlers: [
        requireScope('verify'),
        async (req, res) => {
          res.status(202).json(await submitBatch(req.body, currentKey(res), deps, submitOptions(res)));
        },
      ],
    },
    {
      method: 'get',
      path: '/jobs/:job_id',
      handlers: [
        async (req, res) => {
          const { wait } = parseQuery(ZWaitQuerySchema, req.query as Record<string, unknown>);
          res.json(await readJob(currentKey(res).id, String(req.params.job_id), wait, reads));
        },
      ],
    },
    {
      method: 'get',
      path: '/batches/:batch_id',
      handlers: [
        async (req, res) => {
          const { wait } = parseQuery(ZWaitQuerySchema, req.query as Record<string, unknown>);
          res.json(await readBatch(currentKey(res).id, String(req.params.batch_id), wait, reads));
        },
      ],
    },
    {
      method: 'get',
      path: '/webhooks/deliveries',
      handlers: [
        async (req, res) => {
          const page = parseQuery(ZDeliveriesQuerySchema, req.query as Record<string, unknown>);
          res.json(await listDeliveries(currentKey(res).id, page, ctx.store));
        },
      ],
    },
  ];
}
