/** GET /readyz's answer: whether this instance can take work now, and each check behind it (docs/metrics.md). */
import { z } from 'zod';

export const ZReadinessCheckSchema = z
  .object({
    /** `off`: not configured here (Redis without COVERCHECK_REDIS_URL, extraction with no threads). */
    status: z.enum(['ok', 'failed', 'off']),
    /** How long the check took; absent when it was off. */
    ms: z.number().int().nonnegative().optional(),
    /** Why it failed. */
    detail: z.string().optional(),
  })
  .meta({ id: 'ReadinessCheck' });

export const ZReadinessSchema = z
  .object({
    /** `ready` (200) when no check failed, else `not_ready` (503). */
    status: z.enum(['ready', 'not_ready']),
    checks: z.object({ store: ZReadinessCheckSchema, redis: ZReadinessCheckSchema, extraction: ZReadinessCheckSchema }),
  })
  .meta({ id: 'Readiness' });

export type TReadinessCheck = z.infer<typeof ZReadinessCheckSchema>;
export type TReadiness = z.infer<typeof ZReadinessSchema>;
