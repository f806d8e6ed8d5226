/**
 * POST /api/v1/verify as a plain function: validate, check credits, run the engine, charge, record.
 * Refusals are thrown as AppError (the route answers them in the sync form, spec 4.1).
 *
 * The result's history entry (docs/history.md) is committed before the answer is sent: in the charge's
 * transaction when the result is charged, so no crash leaves a charge without its entry; on its own
 * otherwise. A crash between that commit and the answer loses only the answer (the client retries),
 * never an entry: a client never holds a result its history lacks.
 */
import { performance } from 'node:perf_hooks';
import { parsePolicyInput } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { chargeKey, creditCost, isCharged, outOfCredits, spendableBalance } from '../credits/charge.js';
import { AppError } from '../errors.js';
import type { MetricsSink } from '../metrics/sink.js';
import type { ApiKeyRecord, CreditStore, HistoryStore } from '../store/types.js';
import { verificationRow } from '../store/verification-row.js';
import { verifyPolicy, type EngineDeps } from './engine.js';

export interface SyncDeps extends EngineDeps {
  credits: CreditStore;
  history: HistoryStore;
  /** Where the credits kept are counted. */
  metrics?: MetricsSink;
}

const ASYNC_ONLY = ['document', 'webhook_url'];

export async function runSyncVerification(
  body: unknown,
  key: ApiKeyRecord,
  deps: SyncDeps,
  opts: { idemKey?: string } = {},
): Promise<TVerificationResult> {
  const started = performance.now();
  const now = deps.now?.() ?? new Date();
  if (typeof body === 'object' && body !== null) {
    const asyncOnly = ASYNC_ONLY.filter((f) => f in body);
    if (asyncOnly.length > 0) {
      throw new AppError(
        'invalid_request',
        `${asyncOnly.join(' and ')} ${asyncOnly.length > 1 ? 'are' : 'is'} accepted only by POST /api/v1/verify/async.`,
      );
    }
  }
  const input = parsePolicyInput(body);
  if (!input.ok) throw new AppError(input.problem.error, input.problem.detail);

  // Cheap early refusal; the authoritative check is the atomic charge below.
  if (isCharged(key)) {
    const balance = spendableBalance(key, now);
    if (balance < 1) throw outOfCredits(balance, 1, now);
  }

  const outcome = await verifyPolicy(input.policy, deps, key.mode);
  const cost = isCharged(key) ? creditCost(outcome.status) : 0;
  const result: TVerificationResult = { ...outcome, credits_charged: cost, processed_in_ms: Math.round(performance.now() - started) };
  const entry = verificationRow({ key_id: key.id, source: 'sync', source_id: null, input: body, result, at: now.toISOString() });
  if (cost > 0) {
    const record = opts.idemKey ? { idemKey: opts.idemKey, response: { status: 200, body: JSON.stringify(result) } } : undefined;
    const charged = await chargeKey(deps.credits, key, cost, `verify:${result.country}:${result.policy_number}`, now, record, entry);
    if (!charged.ok) throw outOfCredits(charged.balance, cost, now);
    deps.metrics?.creditsCharged('verify', cost);
  } else {
    await deps.history.record(entry);
  }
  return result;
}
