/** GET /api/v1/webhooks/deliveries: the calling key's webhook delivery log. */
import { z } from 'zod';

export const ZDeliveryAttemptSchema = z
  .object({
    attempt: z.number().int().min(1),
    at: z.iso.datetime(),
    status: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'HTTP status the receiver answered, null when no answer (timeout, refused, TLS).' }),
    error: z.string().nullable(),
    duration_ms: z.number().int(),
  })
  .meta({ id: 'DeliveryAttempt' });

export const ZDeliverySchema = z
  .object({
    webhook_id: z.string().meta({ description: "The webhook-id header: the same on every attempt, the receiver's idempotency key." }),
    event_type: z.enum(['job.completed', 'job.failed', 'batch.completed']),
    subject_id: z.string().meta({ description: 'The job_id or batch_id the event is about.' }),
    url: z.string(),
    status: z
      .enum(['pending', 'delivered', 'failed'])
      .meta({ description: 'pending (retrying), delivered (2xx received) or failed (attempts exhausted).' }),
    attempts: z.number().int(),
    next_attempt_at: z.iso.datetime().nullable(),
    created_at: z.iso.datetime(),
    delivered_at: z.iso.datetime().nullable(),
    attempt_log: z.array(ZDeliveryAttemptSchema),
  })
  .meta({ id: 'Delivery' });
export type TDelivery = z.infer<typeof ZDeliverySchema>;

export const ZDeliveryListSchema = z
  .object({ deliveries: z.array(ZDeliverySchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'DeliveryList' });
export type TDeliveryList = z.infer<typeof ZDeliveryListSchema>;
