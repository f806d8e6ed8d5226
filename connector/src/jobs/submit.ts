/**
 * Accepting async work: validate, reserve credits and store the job or batch in one transaction,
 * then wake the workers. Nothing is acknowledged before it is committed.
 *
 * Credits: a live key reserves 1 credit per policy that passed validation; when the work
 * finishes, the sync rule settles it (1 kept for verified or unverified, given back for
 * inconclusive or an error), exactly once. An async verification sent with a document reserves
 * 1 more for reading it, kept when it was read (credits/charge.ts documentCost). Sandbox keys
 * reserve nothing.
 *
 * Documents: one key may have only so many jobs carrying a document pending at once
 * (maxPendingDocumentsPerKey; refused with a retry delay beyond it). A document over the extraction
 * limits is refused in milliseconds and its credit given back like any unreadable one; what a key
 * could still take from other tenants is extraction time, and this bounds its share of the queue
 * (docs/document-limits.md, "Credits").
 */
import crypto from 'node:crypto';
import type { TBatchAccepted } from '../../../shared/batch.js';
import { MAX_BATCH_SIZE } from '../../../shared/batch.js';
import { echoedList } from '../../../shared/errors.js';
import type { TJobAccepted } from '../../../shared/job.js';
import { EXTRACTION_COLUMNS, VERIFICATION_COLUMNS, ZSheetTargetSchema } from '../../../shared/sheets.js';
import { DOCUMENT_CREDIT, isCharged, outOfCredits } from '../credits/charge.js';
import { AppError, errorBody } from '../errors.js';
import { billingPeriod } from '../credits/period.js';
import { parseOrRefuse } from '../parse.js';
import type { SheetBindings } from '../sheets/bindings.js';
import { idempotentRecord } from '../store/idempotent-record.js';
import type { ApiKeyRecord, NewBatch, Reservation, Store } from '../store/types.js';
import type { LookupAll } from '../webhooks/url-guard.js';
import { requireDocumentRoom } from './document-room.js';
import { requireDocumentStorage, type DocumentStorage } from './document-storage.js';
import { checkDocument, checkPolicy, checkWebhook, requirePdfOrImage } from './validate.js';

export interface SubmitDeps {
  store: Pick<Store, 'jobs' | 'batches'>;
  /**
   * Refuses a spreadsheet not bound to the key (throws AppError sheet_not_bound). Absent when no
   * Google service account is configured: sheet targets are then refused.
   */
  sheetBindings?: Pick<SheetBindings, 'require'> | null;
  /** Pending jobs carrying a document above which uploads are refused with service_unavailable and a retry delay. */
  maxPendingExtractions?: number;
  /** The part of that bound sandbox keys may fill together, in percent. */
  sandboxSharePct?: number;
  /** Pending jobs carrying a document one key may have; more are refused with rate_limit_exceeded and a retry delay. */
  maxPendingDocumentsPerKey?: number;
  allowPrivateWebhooks: boolean;
  lookup?: LookupAll;
  now: () => Date;
  /** Wakes the workers so new work starts without waiting for the next poll. */
  notify: () => void;
  /** checkDocument, unless the document was already checked and decoded as the body was read (offload/body.ts). */
  checkDocument?: (raw: unknown) => Buffer;
  /** The per-key quota of stored document bytes and the disk guard (document-storage.ts); absent: neither. */
  documentStorage?: DocumentStorage;
}

/** The bounds on documents waiting to be read: per key, sandbox keys together, everyone (document-room.ts). */
function requireRoom(key: ApiKeyRecord, deps: SubmitDeps): Promise<void> {
  const limits = {
    perKey: deps.maxPendingDocumentsPerKey ?? Infinity,
    max: deps.maxPendingExtractions ?? Infinity,
    sandboxSharePct: deps.sandboxSharePct ?? 100,
  };
  return requireDocumentRoom(key, deps.store, limits, deps.now());
}

/** A job's credits (`amount`, default 1) reserved on a live key, settled when the job finishes; nothing on a sandbox key. */
function jobReservation(key: ApiKeyRecord, id: string, now: Date, amount = 1): Reservation | null {
  return isCharged(key) ? { amount, period: billingPeriod(now), ref: `job:${id}` } : null;
}

export const jobPollUrl = (id: string) => `/api/v1/jobs/${id}`;

const webhookOf = (raw: unknown, deps: SubmitDeps) => checkWebhook(raw, { allowPrivate: deps.allowPrivateWebhooks, lookup: deps.lookup });

/**
 * An optional sheet_target: validated against the contract, refused when Sheets is not configured
 * or the spreadsheet is not bound to the key (before anything about the spreadsheet is read).
 * Returns it as stored (JSON), or null.
 */
export async function checkSheetTarget(
  raw: unknown,
  key: ApiKeyRecord,
  deps: Pick<SubmitDeps, 'sheetBindings'>,
  allowed: readonly string[],
): Promise<string | null> {
  if (raw === undefined || raw === null) return null;
  if (!deps.sheetBindings)
    throw new AppError('invalid_request', 'sheet_target is not available: this connector has no Google service account configured.');
  const target = parseOrRefuse(ZSheetTargetSchema, raw, 'sheet_target');
  const unknown = Object.keys(target.columns).filter((f) => !allowed.includes(f));
  if (unknown.length)
    throw new AppError(
      'invalid_request',
      `sheet_target.columns: unknown field${unknown.length > 1 ? 's' : ''} ${echoedList(unknown)}; use ${allowed.join(', ')}.`,
    );
  await deps.sheetBindings.require(key.id, target.spreadsheet_id);
  return JSON.stringify(target);
}

/**
 * What a submission is told about the request: `idemKey`, its Idempotency-Key claim, which is completed
 * with the 202 answer in the transaction that accepts the work. A crash after that commit and before the
 * answer reaches the client then leaves a claim that replays, never one a repeat would submit again.
 */
export interface SubmitOptions {
  idemKey?: string;
}

/** POST /api/v1/verify/async. */
export async function submitAsyncVerification(
  body: unknown,
  key: ApiKeyRecord,
  deps: SubmitDeps,
  opts: SubmitOptions = {},
): Promise<TJobAccepted> {
  const policy = checkPolicy(body, ['document', 'webhook_url', 'sheet_target']);
  const raw = body as Record<string, unknown>;
  const document = raw.document !== undefined ? (deps.checkDocument ?? checkDocument)(raw.document) : undefined;
  const webhook = await webhookOf(raw.webhook_url, deps);
  const sheet = await checkSheetTarget(raw.sheet_target, key, deps, VERIFICATION_COLUMNS);
  if (document) await requireRoom(key, deps);
  if (document && deps.documentStorage) await requireDocumentStorage(key, document.length, deps.store, deps.documentStorage);

  const now = deps.now();
  const id = crypto.randomUUID();
  const accepted: TJobAccepted = { job_id: id, status: 'pending', poll_url: jobPollUrl(id) };
  // The verification's credit, and the document's: reading it costs what /documents/extract costs.
  const credits = document ? 1 + DOCUMENT_CREDIT : 1;
  const outcome = await deps.store.jobs.create(
    {
      id,
      key_id: key.id,
      kind: 'verification',
      payload: JSON.stringify({ policy }),
      webhook_url: webhook,
      sheet_target: sheet,
      created_at: now.toISOString(),
      ...(document ? { document } : {}),
    },
    jobReservation(key, id, now, credits),
    idempotentRecord(opts.idemKey, 202, accepted),
  );
  if (!outcome.ok) throw outOfCredits(outcome.balance, credits, now);
  deps.notify();
  return accepted;
}

/**
 * POST /api/v1/documents/extract, after the multipart body is read. Reserves 1 credit on a live
 * key: kept when extraction completes, refunded when the document turns out unreadable.
 * Back-pressure: with too many extractions pending, refuses (service_unavailable, with a retry
 * delay) instead of queueing without bound.
 */
export async function submitExtraction(
  file: Buffer | null,
  webhookUrl: string | undefined,
  key: ApiKeyRecord,
  deps: SubmitDeps,
  sheetTargetJson?: string,
): Promise<TJobAccepted> {
  if (!file)
    throw new AppError(
      'missing_required_field',
      'file is required: the policy PDF (or a JPEG or PNG photo) as a multipart/form-data file field.',
    );
  if (file.length === 0) throw new AppError('invalid_document', 'The uploaded file is empty.');
  requirePdfOrImage(file, 'The uploaded file');
  const webhook = await webhookOf(webhookUrl, deps);
  let sheetRaw: unknown;
  if (sheetTargetJson !== undefined) {
    try {
      sheetRaw = JSON.parse(sheetTargetJson);
    } catch {
      throw new AppError('invalid_request', 'sheet_target must be a JSON object (as text in the multipart field).');
    }
  }
  const sheet = await checkSheetTarget(sheetRaw, key, deps, EXTRACTION_COLUMNS);
  await requireRoom(key, deps);
  if (deps.documentStorage) await requireDocumentStorage(key, file.length, deps.store, deps.documentStorage);
  const now = deps.now();
  const id = crypto.randomUUID();
  const outcome = await deps.store.jobs.create(
    {
      id,
      key_id: key.id,
      kind: 'extraction',
      payload: '{}',
      webhook_url: webhook,
      sheet_target: sheet,
      created_at: now.toISOString(),
      document: file,
    },
    jobReservation(key, id, now),
  );
  if (!outcome.ok) throw outOfCredits(outcome.balance, 1, now);
  deps.notify();
  return { job_id: id, status: 'pending', poll_url: jobPollUrl(id) };
}

/** One batch item as stored: checked and pending, or refused at once with its error body (the batch itself is accepted). */
function batchItem(item: unknown, idx: number, charged: boolean): NewBatch['items'][number] {
  try {
    const policy = checkPolicy(item);
    return {
      idx,
      policy_number: policy.policy_number,
      input: JSON.stringify(policy),
      state: 'pending',
      result: null,
      error: null,
      reserved: charged ? 1 : 0,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const number =
      typeof (item as { policy_number?: unknown })?.policy_number === 'string' ? (item as { policy_number: string }).policy_number : null;
    const error = JSON.stringify(errorBody(err.code, err.publicMessage));
    return { idx, policy_number: number, input: JSON.stringify(item ?? null), state: 'done', result: null, error, reserved: 0 };
  }
}

/** POST /api/v1/verify/batch. */
export async function submitBatch(body: unknown, key: ApiKeyRecord, deps: SubmitDeps, opts: SubmitOptions = {}): Promise<TBatchAccepted> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new AppError('invalid_request', 'The request body must be a JSON object with a policies array.');
  const raw = body as Record<string, unknown>;
  const unknown = Object.keys(raw).filter((k) => !['policies', 'webhook_url', 'sheet_target'].includes(k));
  if (unknown.length > 0)
    throw new AppError(
      'invalid_request',
      `Unknown field${unknown.length > 1 ? 's' : ''}: ${echoedList(unknown)}. Accepted: policies, webhook_url, sheet_target.`,
    );
  if (raw.policies === undefined)
    throw new AppError('missing_required_field', 'policies is required: an array of 1 to 100 policy objects.');
  if (!Array.isArray(raw.policies)) throw new AppError('invalid_request', 'policies must be an array of policy objects.');
  const n = raw.policies.length;
  if (n === 0 || n > MAX_BATCH_SIZE)
    throw new AppError('invalid_request', `policies must hold 1 to ${MAX_BATCH_SIZE} policy objects; got ${n}.`);
  const webhook = await webhookOf(raw.webhook_url, deps);
  const sheet = await checkSheetTarget(raw.sheet_target, key, deps, VERIFICATION_COLUMNS);

  const charged = isCharged(key);
  const items = raw.policies.map((item, idx) => batchItem(item, idx, charged));
  const toReserve = items.reduce((s, i) => s + i.reserved, 0);
  const now = deps.now();
  const id = crypto.randomUUID();
  const accepted: TBatchAccepted = { batch_id: id, status: 'pending', total_count: n };
  const outcome = await deps.store.batches.create(
    { id, key_id: key.id, webhook_url: webhook, sheet_target: sheet, created_at: now.toISOString(), items },
    toReserve > 0 ? { amount: toReserve, period: billingPeriod(now), ref: `batch:${id}` } : null,
    idempotentRecord(opts.idemKey, 202, accepted),
  );
  if (!outcome.ok) throw outOfCredits(outcome.balance, toReserve, now);
  deps.notify();
  return accepted;
}
