/**
 * Accepting async work: validate, reserve credits and store the job or batch in one transaction,
 * then wake the workers. Nothing is acknowledged before it is committed.
 *
 * Credits: a live key reserves 1 credit per policy that passed validation; when the work
 * finishes, the sync rule settles it (1 kept for verified or unverified, given back for
 * inconclusive or an error), exactly once. Sandbox keys reserve nothing.
 *
 * Documents: one key may have only so many jobs carrying a document pending at once
 * (maxPendingDocumentsPerKey; 429 with Retry-After beyond it). A document over the extraction
 * limits is refused in milliseconds and its credit given back like any unreadable one; what a key
 * could still take from other tenants is extraction time, and this bounds its share of the queue
 * (docs/document-limits.md, "Credits").
 */
import crypto from 'node:crypto';
import type { TBatchAccepted } from '../../../shared/batch.js';
import { MAX_BATCH_SIZE } from '../../../shared/batch.js';
import type { TErrorBody, TErrorCode } from '../../../shared/errors.js';
import { ERROR_STATUS } from '../../../shared/errors.js';
import type { TJobAccepted } from '../../../shared/job.js';
import { EXTRACTION_COLUMNS, VERIFICATION_COLUMNS, ZSheetTargetSchema } from '../../../shared/sheets.js';
import { isCharged } from '../credits/charge.js';
import { AppError, errorBody } from '../errors.js';
import { billingPeriod } from '../credits/period.js';
import type { SheetBindings } from '../sheets/bindings.js';
import type { ApiKeyRecord, NewBatch, Reservation, Store } from '../store/types.js';
import type { LookupAll } from '../webhooks/url-guard.js';
import { checkDocument, checkPolicy, checkWebhook, type Checked } from './validate.js';

export interface SubmitDeps {
  store: Pick<Store, 'jobs' | 'batches'>;
  /**
   * Refuses a spreadsheet not bound to the key (throws AppError sheet_not_bound). Absent when no
   * Google service account is configured: sheet targets are then refused.
   */
  sheetBindings?: Pick<SheetBindings, 'require'> | null;
  /** Pending extraction jobs above which uploads are refused with 503 and Retry-After. */
  maxPendingExtractions?: number;
  /** Pending jobs carrying a document one key may have; more are refused with 429 and Retry-After. */
  maxPendingDocumentsPerKey?: number;
  allowPrivateWebhooks: boolean;
  lookup?: LookupAll;
  now: () => Date;
  /** Wakes the workers so new work starts without waiting for the next poll. */
  notify: () => void;
  /** checkDocument, unless the document was already checked and decoded as the body was read (offload/body.ts). */
  checkDocument?: (raw: unknown) => Checked<Buffer>;
}

/** `retryAfter` (seconds) on refusals the client should retry: Retry-After, and retry_after in the body. */
export type Submitted<T> = ({ status: 202; body: T } | { status: number; body: TErrorBody }) & { retryAfter?: number };

/** Seconds a refused upload is told to wait: a document takes a few seconds to read. */
const DOCUMENT_RETRY_AFTER_S = 10;

/** The per-key bound on pending documents: a refusal when `key` is at it, else null. The count and the insert are not one transaction: concurrent uploads may pass it by a few. */
async function documentsWaiting(key: ApiKeyRecord, deps: SubmitDeps): Promise<{ status: number; body: TErrorBody; retryAfter: number } | null> {
  const max = deps.maxPendingDocumentsPerKey ?? Infinity;
  const waiting = await deps.store.jobs.pendingDocuments(key.id);
  if (waiting < max) return null;
  return {
    ...refuse('rate_limit_exceeded', `This key already has ${waiting} document${waiting === 1 ? '' : 's'} waiting to be read, the limit per key; retry when one has finished.`),
    retryAfter: DOCUMENT_RETRY_AFTER_S,
  };
}

function refuse(error: TErrorCode, message: string): { status: number; body: TErrorBody } {
  return { status: ERROR_STATUS[error], body: errorBody(error, message) };
}

function outOfCredits(balance: number, needed: number, now: Date) {
  return refuse('insufficient_credits', `This needs ${needed} credit${needed > 1 ? 's' : ''}; balance for billing period ${billingPeriod(now)} is ${balance}.`);
}

export const jobPollUrl = (id: string) => `/api/v1/jobs/${id}`;

/**
 * An optional sheet_target: validated against the contract, refused when Sheets is not configured
 * or the spreadsheet is not bound to the key (before anything about the spreadsheet is read).
 */
async function checkSheetTarget(
  raw: unknown,
  key: ApiKeyRecord,
  deps: SubmitDeps,
  allowed: readonly string[],
): Promise<{ ok: true; value: string | null } | { ok: false; refusal: { status: number; body: TErrorBody } }> {
  if (raw === undefined || raw === null) return { ok: true, value: null };
  if (!deps.sheetBindings) return { ok: false, refusal: refuse('invalid_request', 'sheet_target is not available: this connector has no Google service account configured.') };
  const parsed = ZSheetTargetSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, refusal: refuse('invalid_request', `sheet_target.${issue.path.join('.')}: ${issue.message}`) };
  }
  const unknown = Object.keys(parsed.data.columns).filter((f) => !allowed.includes(f));
  if (unknown.length) return { ok: false, refusal: refuse('invalid_request', `sheet_target.columns: unknown field${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; use ${allowed.join(', ')}.`) };
  try {
    await deps.sheetBindings.require(key.id, parsed.data.spreadsheet_id);
  } catch (err) {
    if (err instanceof AppError) return { ok: false, refusal: { status: err.status, body: err.toBody() } };
    throw err;
  }
  return { ok: true, value: JSON.stringify(parsed.data) };
}

/** POST /api/v1/verify/async. */
export async function submitAsyncVerification(body: unknown, key: ApiKeyRecord, deps: SubmitDeps): Promise<Submitted<TJobAccepted>> {
  const policy = checkPolicy(body, ['document', 'webhook_url', 'sheet_target']);
  if (!policy.ok) return refuse(policy.error, policy.message);
  const raw = body as Record<string, unknown>;
  let document: Buffer | undefined;
  if (raw.document !== undefined) {
    const doc = (deps.checkDocument ?? checkDocument)(raw.document);
    if (!doc.ok) return refuse(doc.error, doc.message);
    document = doc.value;
  }
  const webhook = await checkWebhook(raw.webhook_url, { allowPrivate: deps.allowPrivateWebhooks, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  if (!webhook.ok) return refuse(webhook.error, webhook.message);
  const sheet = await checkSheetTarget(raw.sheet_target, key, deps, VERIFICATION_COLUMNS);
  if (!sheet.ok) return sheet.refusal;
  if (document) {
    const busy = await documentsWaiting(key, deps);
    if (busy) return busy;
  }

  const now = deps.now();
  const id = crypto.randomUUID();
  const reserve: Reservation | null = isCharged(key) ? { amount: 1, period: billingPeriod(now), ref: `job:${id}` } : null;
  const outcome = await deps.store.jobs.create(
    {
      id,
      key_id: key.id,
      kind: 'verification',
      payload: JSON.stringify({ policy: policy.value }),
      webhook_url: webhook.value,
      sheet_target: sheet.value,
      created_at: now.toISOString(),
      ...(document ? { document } : {}),
    },
    reserve,
  );
  if (!outcome.ok) return outOfCredits(outcome.balance, 1, now);
  deps.notify();
  return { status: 202, body: { job_id: id, status: 'pending', poll_url: jobPollUrl(id) } };
}

const PDF_MAGIC = Buffer.from('%PDF-');

/**
 * POST /api/v1/documents/extract, after the multipart body is read. Reserves 1 credit on a live
 * key: kept when extraction completes, refunded when the document turns out unreadable.
 * Back-pressure: with too many extractions pending, answers 503 with Retry-After instead of
 * queueing without bound.
 */
export async function submitExtraction(
  file: Buffer | null,
  webhookUrl: string | undefined,
  key: ApiKeyRecord,
  deps: SubmitDeps,
  sheetTargetJson?: string,
): Promise<Submitted<TJobAccepted>> {
  if (!file) return refuse('missing_required_field', 'file is required: the policy PDF as a multipart/form-data file field.');
  if (file.length === 0) return refuse('invalid_document', 'The uploaded file is empty.');
  if (!file.subarray(0, PDF_MAGIC.length).equals(PDF_MAGIC)) return refuse('invalid_document', 'The uploaded file is not a PDF (it does not start with %PDF-).');
  const webhook = await checkWebhook(webhookUrl, { allowPrivate: deps.allowPrivateWebhooks, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  if (!webhook.ok) return refuse(webhook.error, webhook.message);
  let sheetRaw: unknown;
  if (sheetTargetJson !== undefined) {
    try {
      sheetRaw = JSON.parse(sheetTargetJson);
    } catch {
      return refuse('invalid_request', 'sheet_target must be a JSON object (as text in the multipart field).');
    }
  }
  const sheet = await checkSheetTarget(sheetRaw, key, deps, EXTRACTION_COLUMNS);
  if (!sheet.ok) return sheet.refusal;
  const max = deps.maxPendingExtractions ?? Infinity;
  if ((await deps.store.jobs.pendingCount('extraction')) >= max) {
    return { ...refuse('service_unavailable', `Too many documents are waiting for extraction (${max}); retry shortly.`), retryAfter: DOCUMENT_RETRY_AFTER_S };
  }
  const busy = await documentsWaiting(key, deps);
  if (busy) return busy;
  const now = deps.now();
  const id = crypto.randomUUID();
  const reserve: Reservation | null = isCharged(key) ? { amount: 1, period: billingPeriod(now), ref: `job:${id}` } : null;
  const outcome = await deps.store.jobs.create(
    { id, key_id: key.id, kind: 'extraction', payload: '{}', webhook_url: webhook.value, sheet_target: sheet.value, created_at: now.toISOString(), document: file },
    reserve,
  );
  if (!outcome.ok) return outOfCredits(outcome.balance, 1, now);
  deps.notify();
  return { status: 202, body: { job_id: id, status: 'pending', poll_url: jobPollUrl(id) } };
}

/** POST /api/v1/verify/batch. */
export async function submitBatch(body: unknown, key: ApiKeyRecord, deps: SubmitDeps): Promise<Submitted<TBatchAccepted>> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return refuse('invalid_request', 'The request body must be a JSON object with a policies array.');
  const raw = body as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => !['policies', 'webhook_url', 'sheet_target'].includes(k));
  if (unknown.length > 0) return refuse('invalid_request', `Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}. Accepted: policies, webhook_url, sheet_target.`);
  if (raw.policies === undefined) return refuse('missing_required_field', 'policies is required: an array of 1 to 100 policy objects.');
  if (!Array.isArray(raw.policies)) return refuse('invalid_request', 'policies must be an array of policy objects.');
  const n = raw.policies.length;
  if (n === 0 || n > MAX_BATCH_SIZE) return refuse('invalid_request', `policies must hold 1 to ${MAX_BATCH_SIZE} policy objects; got ${n}.`);
  const webhook = await checkWebhook(raw.webhook_url, { allowPrivate: deps.allowPrivateWebhooks, ...(deps.lookup ? { lookup: deps.lookup } : {}) });
  if (!webhook.ok) return refuse(webhook.error, webhook.message);
  const sheet = await checkSheetTarget(raw.sheet_target, key, deps, VERIFICATION_COLUMNS);
  if (!sheet.ok) return sheet.refusal;

  const charged = isCharged(key);
  const items: NewBatch['items'] = raw.policies.map((item, idx) => {
    const checked = checkPolicy(item);
    const number = typeof (item as { policy_number?: unknown })?.policy_number === 'string' ? ((item as { policy_number: string }).policy_number) : null;
    if (!checked.ok) {
      const error: TErrorBody = errorBody(checked.error, checked.message);
      return { idx, policy_number: number, input: JSON.stringify(item ?? null), state: 'done' as const, result: null, error: JSON.stringify(error), reserved: 0 };
    }
    return { idx, policy_number: checked.value.policy_number, input: JSON.stringify(checked.value), state: 'pending' as const, result: null, error: null, reserved: charged ? 1 : 0 };
  });
  const toReserve = items.reduce((s, i) => s + i.reserved, 0);
  const now = deps.now();
  const id = crypto.randomUUID();
  const outcome = await deps.store.batches.create(
    { id, key_id: key.id, webhook_url: webhook.value, sheet_target: sheet.value, created_at: now.toISOString(), items },
    toReserve > 0 ? { amount: toReserve, period: billingPeriod(now), ref: `batch:${id}` } : null,
  );
  if (!outcome.ok) return outOfCredits(outcome.balance, toReserve, now);
  deps.notify();
  return { status: 202, body: { batch_id: id, status: 'pending', total_count: n } };
}
