/** POST /api/v1/verify: one policy, synchronously (spec 4.1). */
import { z } from 'zod';
import { ZErrorBodySchema, ZSyncErrorBodySchema } from '../errors.js';
import { ZVerifyRequestSchema } from '../policy.js';
import { ZVerificationResultSchema } from '../verification.js';
import { ok, refused, type RouteContract } from './types.js';

export const verifyRoutes = {
  verify: {
    method: 'post',
    path: '/api/v1/verify',
    access: 'key',
    scope: 'verify',
    summary: 'Verify one policy synchronously',
    description:
      'Checks the policy number against the format table, the insurer register, the country registry and the sanctions list. ' +
      'Costs 1 credit for a verified or unverified result, 0 for inconclusive or an error; sandbox keys are never charged. ' +
      'Validation and credit errors use the sync error form (error + detail); auth, rate-limit and body errors use the standard form.',
    // Parsed by runSyncVerification (parsePolicyInput), whose refusals take the sync form.
    request: { body: ZVerifyRequestSchema },
    responses: {
      200: ok(ZVerificationResultSchema, 'Verification result'),
      400: refused(
        'missing_required_fields, unsupported_country, unsupported_insurance_type, invalid_policy_number, invalid_request (sync form); invalid_json, a bad Idempotency-Key (standard form)',
        { schema: z.union([ZSyncErrorBodySchema, ZErrorBodySchema]) },
      ),
      402: refused('insufficient_credits; detail and balance give the balance', { schema: ZSyncErrorBodySchema }),
    },
  },
} satisfies Record<string, RouteContract>;
