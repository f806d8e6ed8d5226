/** Compares what a document says with what was submitted for verification. */
import type { TExtractedFields } from '../../../shared/job.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { normaliseInsurerName } from '../insurers/normalise.js';
import { normalisePolicyNumber } from '../verify/normalise.js';

export type Mismatch = 'policy_number' | 'insurer' | 'insurance_type';

/** Fields the document states differently; a field the document lacks is not a mismatch. */
export function crossCheck(policy: TPolicy, result: TVerificationResult, fields: TExtractedFields): Mismatch[] {
  const out: Mismatch[] = [];
  if (fields.policy_number && normalisePolicyNumber(fields.policy_number) !== normalisePolicyNumber(policy.policy_number))
    out.push('policy_number');
  const claimed = result.insurer?.name ?? policy.provider;
  if (fields.insurer && claimed && normaliseInsurerName(fields.insurer) !== normaliseInsurerName(claimed)) out.push('insurer');
  if (fields.insurance_type && fields.insurance_type !== policy.insurance_type) out.push('insurance_type');
  return out;
}
