/** GET /api/v1/verifications: the calling key's result history (our extension; docs/history.md). */
import { z } from 'zod';
import { MAX_POLICY_NUMBER_LENGTH, ZCountrySchema, ZInsuranceTypeSchema } from './policy.js';
import { intQueryParam } from './query.js';
import { ZCheckSchema, ZVerificationResultSchema, ZVerificationStatusSchema } from './verification.js';

export const HISTORY_SOURCES = ['sync', 'async', 'batch', 'watch'] as const;
export const ZHistorySourceSchema = z.enum(HISTORY_SOURCES).meta({
  id: 'HistorySource',
  description: 'sync: POST /verify; async: a job of POST /verify/async; batch: an item of POST /verify/batch; watch: a run of a watch.',
});
export type THistorySource = z.infer<typeof ZHistorySourceSchema>;

export const MAX_HISTORY_PAGE = 1000;
export const DEFAULT_HISTORY_PAGE = 100;

export const ZVerificationEntrySchema = z
  .object({
    id: z.string(),
    created_at: z.iso.datetime().meta({ description: 'When the result was given.' }),
    source: ZHistorySourceSchema,
    source_id: z.string().nullable().meta({ description: 'The job_id (async), batch_id (batch) or watch id (watch); null for sync.' }),
    policy_number: z.string().meta({ description: 'As the result has it: normalised for matching.' }),
    country: ZCountrySchema,
    insurance_type: ZInsuranceTypeSchema,
    status: ZVerificationStatusSchema,
    confidence_score: z.number().min(0).max(1),
    checks: z.array(ZCheckSchema),
    input: z.record(z.string(), z.unknown()).meta({
      description: 'The policy as the key sent it: the body of POST /verify as typed; the accepted policy of a job, batch item or watch.',
    }),
    result: ZVerificationResultSchema,
  })
  .meta({ id: 'VerificationEntry', description: 'One verification result given to the key.' });
export type TVerificationEntry = z.infer<typeof ZVerificationEntrySchema>;

export const ZVerificationListSchema = z
  .object({
    verifications: z.array(ZVerificationEntrySchema).meta({ description: 'Newest first.' }),
    next_cursor: z
      .string()
      .nullable()
      .meta({ description: 'Pass as ?cursor= for the next (older) page, with the same filters; null on the last page.' }),
  })
  .meta({ id: 'VerificationList' });
export type TVerificationList = z.infer<typeof ZVerificationListSchema>;

const instant = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()], {
    error: 'must be an ISO 8601 date or date-time, such as 2026-03-01 or 2026-03-01T09:00:00Z',
  })
  .optional();

// Strict: a misspelt filter would otherwise answer everything as if it had matched.
export const ZVerificationsQuerySchema = z.strictObject({
  from: instant.meta({ description: 'Results given at or after this time (a date means its start, UTC).' }),
  to: instant.meta({ description: 'Results given before this time (a date means its start, UTC: to=2026-04-01 ends with March).' }),
  status: ZVerificationStatusSchema.optional(),
  policy_number: z
    .string()
    .min(1)
    .max(MAX_POLICY_NUMBER_LENGTH)
    .optional()
    .meta({ description: 'One policy: case, spaces and dashes are ignored, as when verifying.' }),
  watch_id: z.string().min(1).max(100).optional().meta({ description: "The results of one watch's runs." }),
  limit: intQueryParam('limit', 1, MAX_HISTORY_PAGE, DEFAULT_HISTORY_PAGE).meta({
    description: `1 to ${MAX_HISTORY_PAGE}, default ${DEFAULT_HISTORY_PAGE}.`,
  }),
  cursor: z.string().min(1).max(400).optional().meta({ description: 'next_cursor of the previous page (opaque).' }),
});
export type TVerificationsQuery = z.infer<typeof ZVerificationsQuerySchema>;

/** The columns of the CSV form (Accept: text/csv), in order. */
export const HISTORY_CSV_COLUMNS = [
  'created_at',
  'id',
  'source',
  'source_id',
  'policy_number',
  'country',
  'insurance_type',
  'provider',
  'status',
  'confidence_score',
  'credits_charged',
  'insurer',
  'registry_status',
  'end_date',
  'flags',
  'checks',
] as const;
