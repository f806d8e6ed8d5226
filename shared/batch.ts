/** Batches (spec 2.4): up to 100 policies verified together and polled. */
import { z } from 'zod';
import { ZErrorBodySchema } from './errors.js';
import { ZVerifyRequestSchema } from './policy.js';
import { ZVerificationResultSchema } from './verification.js';
import { ZSheetTargetSchema, ZSheetWritebackSchema } from './sheets.js';
import { ZWebhookStateSchema } from './webhook-state.js';

export const MAX_BATCH_SIZE = 100;

export const ZBatchRequestSchema = z
  .strictObject({
    policies: z.array(ZVerifyRequestSchema).min(1).max(MAX_BATCH_SIZE).meta({
      description:
        '1 to 100 policy objects. Each is validated on its own: a bad item gets its own error in the results and does not sink the batch.',
    }),
    webhook_url: z
      .string()
      .optional()
      .meta({ description: 'HTTPS URL called with batch.completed when every item has a result or an error (our extension).' }),
    sheet_target: ZSheetTargetSchema.optional().meta({
      description: 'Write the results into a Google Sheet when the batch completes (our extension).',
    }),
  })
  .meta({ id: 'BatchRequest' });
export type TBatchRequest = z.infer<typeof ZBatchRequestSchema>;

export const ZBatchStatusSchema = z.enum(['pending', 'processing', 'complete']).meta({
  id: 'BatchStatus',
  description: 'pending (accepted, nothing done) -> processing (some results in) -> complete (every item has a result or an error).',
});

export const ZBatchItemResultSchema = z
  .object({
    index: z.number().int().min(0),
    policy_number: z.string().nullable(),
    result: ZVerificationResultSchema.optional(),
    error: ZErrorBodySchema.optional(),
  })
  .meta({ id: 'BatchItemResult', description: 'One per submitted policy, in submission order: a result or an error, never both.' });

export const ZBatchSchema = z
  .object({
    batch_id: z.string(),
    status: ZBatchStatusSchema,
    total_count: z.number().int(),
    completed_count: z.number().int(),
    created_at: z.iso.datetime(),
    completed_at: z.iso.datetime().nullable(),
    results: z
      .array(ZBatchItemResultSchema)
      .meta({ description: 'One entry per submitted policy, in submission order; items not yet done are absent.' }),
    webhook: ZWebhookStateSchema.optional().meta({
      description: 'The callback, when one was given: its delivery state (null until the batch completes).',
    }),
    sheet_writeback: ZSheetWritebackSchema.nullable()
      .optional()
      .meta({ description: 'When a sheet_target was given: null until the batch completes, then the write-back state.' }),
  })
  .meta({ id: 'Batch' });
export type TBatch = z.infer<typeof ZBatchSchema>;

export const ZBatchAcceptedSchema = z
  .object({ batch_id: z.string(), status: z.literal('pending'), total_count: z.number().int() })
  .meta({ id: 'BatchAccepted' });
export type TBatchAccepted = z.infer<typeof ZBatchAcceptedSchema>;
