/**
 * POST /api/v1/verify as a plain function: validate, check credits, run the engine, charge.
 * Answers in the sync error form (spec 4.1: `error` + `detail`).
 */
import { performance } from 'node:perf_hooks';
import type { TSyncErrorBody } from '../../../shared/errors.js';
import { parsePolicyInput } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { chargeKey, creditCost, isCharged, spendableBalance } from '../credits/charge.js';
import { billingPeriod } from '../credits/period.js';
import type { ApiKeyRecord, CreditStore } from '../store/types.js';
import { verifyPolicy, type EngineDeps } from './engine.js';

export interface SyncDeps extends EngineDeps {
  credits: CreditStore;
}

export type SyncResponse = { status: 200; body: TVerificationResult } | { status: 400 | 402; body: TSyncErrorBody };

const ASYNC_ONLY = ['document', 'webhook_url'];

function outOfCredits(balance: number, now: Date): SyncResponse {
  return {
    status: 402,
    body: { error: 'insufficient_credits', detail: `Credits exhausted for billing period ${billingPeriod(now)}: balance ${balance}.`, balance },
  };
}

export async function runSyncVerification(body: unknown, key: ApiKeyRecord, deps: SyncDeps, opts: { idemKey?: string } = {}): Promise<SyncResponse> {
  const started = performance.now();
  const now = deps.now?.() ?? new Date();
  if (typeof body === 'object' && body !== null) {
    const asyncOnly = ASYNC_ONLY.filter((f) => f in body);
    if (asyncOnly.length > 0) {
      return { status: 400, body: { error: 'invalid_request', detail: `${asyncOnly.join(' and ')} ${asyncOnly.length > 1 ? 'are' : 'is'} accepted only by POST /api/v1/verify/async.` } };
    }
  }
  const input = parsePolicyInput(body);
  if (!input.ok) return { status: 400, body: { error: input.problem.error, detail: input.problem.detail } };

  // Cheap early refusal; the authoritative check is the atomic charge below.
  if (isCharged(key)) {
    const balance = spendableBalance(key, now);
    if (balance < 1) return outOfCredits(balance, now);
  }

  const outcome = await verifyPolicy(input.policy, deps, key.mode);
  if (!outcome.ok) return { status: 400, body: { error: outcome.error, detail: outcome.detail } };

  const cost = isCharged(key) ? creditCost(outcome.result.status) : 0;
  const result: TVerificationResult = { ...outcome.result, credits_charged: cost, processed_in_ms: Math.round(performance.now() - started) };
  if (cost > 0) {
    const record = opts.idemKey ? { idemKey: opts.idemKey, response: { status: 200, body: JSON.stringify(result) } } : undefined;
    const charged = await chargeKey(deps.credits, key, cost, `verify:${result.country}:${result.policy_number}`, now, record);
    if (!charged.ok) return outOfCredits(charged.balance, now);
  }
  return { status: 200, body: result };
}
