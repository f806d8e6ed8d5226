/** The calling key's own view of itself: what the add-on's "test connection" shows. */
import { z } from 'zod';

export const SCOPES = ['verify', 'extract', 'datasets'] as const;
export const ZScopeSchema = z.enum(SCOPES).meta({ id: 'Scope' });
export type TScope = z.infer<typeof ZScopeSchema>;

export const PLANS = ['free', 'standard', 'enterprise'] as const;
export const ZPlanSchema = z.enum(PLANS).meta({ id: 'Plan' });
export type TPlan = z.infer<typeof ZPlanSchema>;

export const ZAccountSchema = z
  .object({
    key_id: z.string(),
    name: z.string(),
    mode: z.enum(['live', 'test']),
    plan: ZPlanSchema,
    scopes: z.array(ZScopeSchema),
    credits: z.object({
      balance: z.number().int().meta({ description: 'Credits left in this billing period. Sandbox keys are never charged.' }),
      allowance: z.number().int().meta({ description: 'Credits granted at the start of each billing period.' }),
      period: z.string().meta({ description: 'Billing period, calendar month YYYY-MM (UTC).' }),
      charged: z.boolean().meta({ description: 'False for pk_test_ keys.' }),
    }),
  })
  .meta({ id: 'Account' });
export type TAccount = z.infer<typeof ZAccountSchema>;

export const ZHealthSchema = z.object({ status: z.literal('ok'), version: z.string() }).meta({ id: 'Health' });
