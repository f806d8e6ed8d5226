/** Async verification, batches, job and batch status, webhook delivery log (spec 4.2, 4.3, 4.5, 4.6, 6). */
import { MAX_DOCUMENT_BYTES } from '../../../shared/policy.js';
import type { TDelivery, TDeliveryList } from '../../../shared/deliveries.js';
import type { Response } from 'express';
import type { AppContext } from '../context.js';
import { AppError } from '../errors.js';
import { currentKey, requireScope } from '../http/auth.js';
import { documentsOf } from '../http/json-body.js';
import { readUpload } from '../http/multipart.js';
import { waitFor } from '../jobs/completions.js';
import { parseQuery } from '../http/query.js';
import { ZDeliveriesQuerySchema, ZWaitQuerySchema } from '../../../shared/query.js';
import { submitAsyncVerification, submitBatch, submitExtraction, type SubmitDeps, type Submitted } from '../jobs/submit.js';
import { batchView, jobView } from '../jobs/views.js';
import type { OutboxRecord, WritebackRecord } from '../store/types.js';
import type { TSheetWriteback } from '../../../shared/sheets.js';
import type { KeyedRoute } from './types.js';

/** A 14 MB PDF is about 18.7 MB as base64; the async route takes that plus the policy fields. */
export const ASYNC_BODY_LIMIT = Math.ceil((MAX_DOCUMENT_BYTES * 4) / 3) + 64 * 1024;

// Unknown and foreign ids get the same 404: whether an id exists is not revealed to other keys.
const notFound = (what: 'job' | 'batch', id: string) => new AppError('not_found', `No ${what} ${id} for this API key.`);

/** A submission's answer; a refusal to retry carries Retry-After and retry_after (spec 7). */
function answer<T extends object>(res: Response, out: Submitted<T>): void {
  if (out.retryAfter) res.set('Retry-After', String(out.retryAfter));
  res.status(out.status).json(out.retryAfter ? { ...out.body, retry_after: out.retryAfter } : out.body);
}

function deliveryView(d: OutboxRecord & { attempt_log: TDelivery['attempt_log'] }): TDelivery {
  return {
    webhook_id: d.id,
    event_type: d.event_type as TDelivery['event_type'],
    subject_id: d.subject_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    created_at: d.created_at,
    delivered_at: d.delivered_at,
    attempt_log: d.attempt_log,
  };
}

function writebackView(wb: WritebackRecord): TSheetWriteback {
  const target = JSON.parse(wb.target) as { sheet_name: string };
  return {
    status: wb.status,
    spreadsheet_id: wb.spreadsheet_id,
    sheet_name: target.sheet_name,
    written: wb.written,
    missing: wb.missing,
    error: wb.last_error,
    attempts: wb.attempts,
    updated_at: wb.updated_at,
  };
}

export function jobRoutes(ctx: AppContext): KeyedRoute[] {
  const deps: SubmitDeps = {
    store: ctx.store,
    allowPrivateWebhooks: ctx.config.webhooks.allowPrivate,
    ...(ctx.lookup ? { lookup: ctx.lookup } : {}),
    now: ctx.now,
    notify: () => ctx.queue.notify(),
    maxPendingExtractions: ctx.config.extraction.maxPending,
    maxPendingDocumentsPerKey: ctx.config.extraction.maxPendingPerKey,
    sheetBindings: ctx.sheets?.bindings ?? null,
  };
  const withWriteback = async <T extends object>(view: T, subjectId: string, hasTarget: boolean): Promise<T> => {
    if (!hasTarget) return view;
    const wb = await ctx.store.writebacks.forSubject(subjectId);
    return { ...view, sheet_writeback: wb ? writebackView(wb) : null };
  };
  return [
    {
      method: 'post',
      path: '/documents/extract',
      multipart: true,
      handlers: [
        requireScope('extract'),
        async (req, res) => {
          const upload = await readUpload(req, { fileField: 'file', maxFileBytes: MAX_DOCUMENT_BYTES, textFields: ['webhook_url', 'sheet_target'] });
          answer(res, await submitExtraction(upload.file?.content ?? null, upload.fields.webhook_url, currentKey(res), deps, upload.fields.sheet_target));
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
          answer(res, await submitAsyncVerification(req.body, currentKey(res), document ? { ...deps, checkDocument: () => document } : deps));
        },
      ],
    },
    {
      method: 'post',
      path: '/verify/batch',
      handlers: [
        requireScope('verify'),
        async (req, res) => {
          const out = await submitBatch(req.body, currentKey(res), deps);
          res.status(out.status).json(out.body);
        },
      ],
    },
    {
      method: 'get',
      path: '/jobs/:job_id',
      handlers: [
        async (req, res) => {
          const id = String(req.params.job_id);
          const { wait } = parseQuery(ZWaitQuerySchema, req.query as Record<string, unknown>);
          let job = await ctx.store.jobs.get(id);
          if (!job || job.key_id !== currentKey(res).id) throw notFound('job', id);
          if (wait > 0 && job.status === 'pending') {
            await waitFor(ctx.completions, id, wait, async () => (await ctx.store.jobs.get(id))?.status !== 'pending');
            job = (await ctx.store.jobs.get(id))!;
          }
          res.json(await withWriteback(jobView(job, job.webhook_url ? await ctx.store.outbox.forSubject(job.id) : undefined), job.id, job.sheet_target !== null));
        },
      ],
    },
    {
      method: 'get',
      path: '/batches/:batch_id',
      handlers: [
        async (req, res) => {
          const id = String(req.params.batch_id);
          const { wait } = parseQuery(ZWaitQuerySchema, req.query as Record<string, unknown>);
          let batch = await ctx.store.batches.get(id);
          if (!batch || batch.key_id !== currentKey(res).id) throw notFound('batch', id);
          if (wait > 0 && batch.status !== 'complete') {
            await waitFor(ctx.completions, id, wait, async () => (await ctx.store.batches.get(id))?.status === 'complete');
            batch = (await ctx.store.batches.get(id))!;
          }
          const view = batchView(batch, await ctx.store.batches.items(id), batch.webhook_url ? await ctx.store.outbox.forSubject(id) : undefined);
          res.json(await withWriteback(view, id, batch.sheet_target !== null));
        },
      ],
    },
    {
      method: 'get',
      path: '/webhooks/deliveries',
      handlers: [
        async (req, res) => {
          const page = parseQuery(ZDeliveriesQuerySchema, req.query as Record<string, unknown>);
          const { items, total } = await ctx.store.outbox.list(currentKey(res).id, page);
          const body: TDeliveryList = { deliveries: items.map(deliveryView), total, ...page };
          res.json(body);
        },
      ],
    },
  ];
}
