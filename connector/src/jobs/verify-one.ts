/**
 * Verifies one stored policy for a job or a batch item and prices it with the sync rule. Never
 * throws for a policy problem: those come back as an error body, stored with the job or item.
 */
import { performance } from 'node:perf_hooks';
import type { TErrorBody } from '../../../shared/errors.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { creditCost, isCharged } from '../credits/charge.js';
import type { ApiKeyRecord } from '../store/types.js';
import { AppError, errorBody } from '../errors.js';
import { verifyPolicy, type EngineDeps, type EngineResult } from '../verify/engine.js';

export type OneOutcome = { ok: true; result: TVerificationResult; cost: number } | { ok: false; error: TErrorBody };

/** `key` null (no longer in the store): served as the sandbox, never charged. */
export async function verifyOne(policy: TPolicy, key: Pick<ApiKeyRecord, 'mode'> | null, deps: EngineDeps): Promise<OneOutcome> {
  const started = performance.now();
  let result: EngineResult;
  try {
    result = await verifyPolicy(policy, deps, key?.mode ?? 'test');
  } catch (err) {
    // The engine's refusal of the policy is the item's answer; anything else is a failure the queue retries.
    if (err instanceof AppError && err.code === 'invalid_policy_number')
      return { ok: false, error: errorBody(err.code, err.publicMessage) };
    throw err;
  }
  const cost = key && isCharged(key) ? creditCost(result.status) : 0;
  return { ok: true, cost, result: { ...result, credits_charged: cost, processed_in_ms: Math.round(performance.now() - started) } };
}
