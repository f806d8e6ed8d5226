/** Async verification, document extraction, batches, job and batch status, webhook delivery log (spec 4.2, 4.3, 4.5, 4.6, 6). */
import type { Response } from 'express';
import { MAX_DOCUMENT_BYTES } from '../../../shared/policy.js';
import { ROUTES } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { currentKey } from '../http/auth.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { documentsOf } from '../http/json-body.js';
import { readUpload } from '../http/multipart.js';
import { parseQuery } from '../http/query.js';
import { eraseJob } from '../jobs/erase.js';
import { readBatch, readJob, type ReadDeps } from '../jobs/read.js';
import { submitAsyncVerification, submitBatch, submitExtraction, type SubmitDeps, type SubmitOptions } from '../jobs/submit.js';
import { decodedDocument } from '../offload/body.js';
import { listDeliveries } from '../webhooks/deliveries.js';
import type { RouteHandlers } from './types.js';

export { ASYNC_BODY_LIMIT } from '../../../shared/routes/index.js';

/** The upload's text fields: those the contract's form declares besides the file. */
const UPLOAD_TEXT_FIELDS = Object.keys(ROUTES.extract.request.multipart.shape).filter((f) => f !== 'file');

/** The request's Idempotency-Key claim, completed with the 202 in the transaction that accepts the work. */
function submitOptions(res: Response): SubmitOptions {
  const idemKey = idempotencyKeyOf(res);
  return idemKey ? { idemKey } : {};
}

export function jobHandlers(
  ctx: AppContext,
): RouteHandlers<'extract' | 'verifyAsync' | 'verifyBatch' | 'job' | 'jobDelete' | 'batch' | 'deliveries'> {
  const deps: SubmitDeps = {
    store: ctx.store,
    allowPrivateWebhooks: ctx.config.webhooks.allowPrivate,
    lookup: ctx.lookup,
    now: ctx.now,
    notify: () => ctx.queue.notify(),
    maxPendingExtractions: ctx.config.extraction.maxPending,
    sandboxSharePct: ctx.config.extraction.sandboxSharePct,
    maxPendingDocumentsPerKey: ctx.config.extraction.maxPendingPerKey,
    sheetBindings: ctx.sheets?.bindings ?? null,
    documentStorage: ctx.config.documents,
  };
  const reads: ReadDeps = { store: ctx.store, completions: ctx.completions, resultRetentionDays: ctx.config.retention.resultDays };
  return {
    extract: [
      async (req, res) => {
        const upload = await readUpload(req, { fileField: 'file', maxFileBytes: MAX_DOCUMENT_BYTES, textFields: UPLOAD_TEXT_FIELDS });
        res
          .status(202)
          .json(
            await submitExtraction(
              upload.file?.content ?? null,
              upload.fields.webhook_url,
              currentKey(res),
              deps,
              upload.fields.sheet_target,
            ),
          );
      },
    ],
    verifyAsync: [
      async (req, res) => {
        const document = documentsOf(res).document;
        const submitDeps = document ? { ...deps, checkDocument: () => decodedDocument(document) } : deps;
        res.status(202).json(await submitAsyncVerification(req.body, currentKey(res), submitDeps, submitOptions(res)));
      },
    ],
    verifyBatch: [
      async (req, res) => {
        res.status(202).json(await submitBatch(req.body, currentKey(res), deps, submitOptions(res)));
      },
    ],
    job: [
      async (req, res) => {
        const { wait } = parseQuery(ROUTES.job.request.query, req.query as Record<string, unknown>);
        res.json(await readJob(currentKey(res).id, String(req.params.job_id), wait, reads));
      },
    ],
    jobDelete: [
      async (req, res) => {
        res.json(await eraseJob(currentKey(res).id, String(req.params.job_id), { store: ctx.store, now: ctx.now }));
      },
    ],
    batch: [
      async (req, res) => {
        const { wait } = parseQuery(ROUTES.batch.request.query, req.query as Record<string, unknown>);
        res.json(await readBatch(currentKey(res).id, String(req.params.batch_id), wait, reads));
      },
    ],
    deliveries: [
      async (req, res) => {
        const page = parseQuery(ROUTES.deliveries.request.query, req.query as Record<string, unknown>);
        res.json(await listDeliveries(currentKey(res).id, page, ctx.store));
      },
    ],
  };
}
