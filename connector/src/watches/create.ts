/**
 * POST /api/v1/watches: the envelope checked against the contract, each policy as a batch item (the
 * first that fails refuses the watch, naming its index), the report's webhook URL, e-mail address and
 * sheet target (the binding rules of docs/sheets-binding.md); then the watch and its policies are stored
 * in one transaction, due at once.
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { VERIFICATION_COLUMNS } from '../../../shared/sheets.js';
import { MAX_WATCH_POLICIES, ZWatchRequestSchema, type TWatch } from '../../../shared/watches.js';
import { AppError } from '../errors.js';
import { checkSheetTarget, type SubmitDeps } from '../jobs/submit.js';
import { checkPolicy, checkWebhook } from '../jobs/validate.js';
import { parseOrRefuse } from '../parse.js';
import { idempotentRecord } from '../store/idempotent-record.js';
import type { ApiKeyRecord, NewWatch, NewWatchItem, Store } from '../store/types.js';
import { newWatchView } from './views.js';

export interface CreateWatchDeps extends Pick<SubmitDeps, 'sheetBindings' | 'allowPrivateWebhooks' | 'lookup'> {
  store: Pick<Store, 'watches'>;
  now: () => Date;
  /** Wakes the runner, so the first run starts without waiting for its next poll. */
  notify: () => void;
}

/** The envelope as the contract has it; the policies are checked one by one below, with the batch's error codes. */
const ZEnvelopeSchema = ZWatchRequestSchema.extend({ policies: z.array(z.unknown()).min(1).max(MAX_WATCH_POLICIES) });

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function watchItem(raw: unknown, idx: number): NewWatchItem {
  try {
    const policy = checkPolicy(raw, ['end_date']);
    const endDate = (raw as { end_date?: unknown }).end_date;
    if (endDate !== undefined && (typeof endDate !== 'string' || !DATE.test(endDate) || Number.isNaN(Date.parse(endDate))))
      throw new AppError('invalid_request', 'end_date must be a date as YYYY-MM-DD.');
    const input = endDate === undefined ? policy : { ...policy, end_date: endDate };
    return { idx, policy_number: policy.policy_number, input: JSON.stringify(input) };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    throw new AppError(err.code, `policies[${idx}]: ${err.publicMessage}`);
  }
}

export async function createWatch(
  body: unknown,
  key: ApiKeyRecord,
  deps: CreateWatchDeps,
  opts: { idemKey?: string } = {},
): Promise<TWatch> {
  const request = parseOrRefuse(ZEnvelopeSchema, body);
  const items = request.policies.map(watchItem);
  const report = request.report ?? { email: false };
  const webhook = await checkWebhook(report.webhook_url, { allowPrivate: deps.allowPrivateWebhooks, lookup: deps.lookup });
  if (report.email && !key.email)
    throw new AppError('invalid_request', 'report.email: this API key has no e-mail address to send digests to; use a webhook or a sheet.');
  const sheet = await checkSheetTarget(report.sheet_target, key, deps, VERIFICATION_COLUMNS);

  const now = deps.now().toISOString();
  const watch: NewWatch = {
    id: `wat_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`,
    key_id: key.id,
    cadence: request.cadence,
    expiry_window_days: request.expiry_window_days,
    webhook_url: webhook,
    email_to: report.email ? key.email : null,
    sheet_target: sheet,
    notify_unchanged: request.notify_unchanged,
    // The first run, at once: it records where each policy stands, and later runs report against it.
    next_run_at: now,
    created_at: now,
    items,
  };
  const view = newWatchView(watch, key);
  await deps.store.watches.create(watch, idempotentRecord(opts.idemKey, 201, view));
  deps.notify();
  return view;
}
