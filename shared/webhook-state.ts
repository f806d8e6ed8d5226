/** The callback of a job or batch as its view shows it: the URL and its delivery state. */
import { z } from 'zod';

export const ZWebhookStateSchema = z.object({
  url: z.string(),
  status: z.enum(['pending', 'delivered', 'failed']).nullable(),
  attempts: z.number().int(),
});
export type TWebhookState = z.infer<typeof ZWebhookStateSchema>;
