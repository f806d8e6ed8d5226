/** Issues a new API key: the one place keys are minted (CLI, demo seed, later the portal). */
import crypto from 'node:crypto';
import type { TPlan, TScope } from '../../../shared/account.js';
import type { ApiKeyRecord, KeyMode, Store } from '../store/types.js';
import { billingPeriod } from '../credits/period.js';
import { generateWebhookSecret } from '../../../shared/webhooks.js';
import { generateKey, PLAN_ALLOWANCE } from './keys.js';

/** The name the demo's sandbox key is minted under (demo/seed.ts); the unused-key sweep spares it. */
export const SANDBOX_KEY_NAME = 'sandbox (printed at start)';

export interface CreateKeyInput {
  mode: KeyMode;
  name: string;
  email?: string | null;
  plan?: TPlan;
  scopes: TScope[];
  /** Allowance per billing period; defaults to the plan's. */
  credits?: number;
  now?: Date;
}

/** Returns the plain key exactly once (only its hash is stored) and the key's webhook signing secret. */
export async function createApiKey(store: Pick<Store, 'keys'>, input: CreateKeyInput): Promise<{ key: string; record: ApiKeyRecord }> {
  const now = input.now ?? new Date();
  const plan = input.plan ?? 'free';
  const generated = generateKey(input.mode);
  const record = await store.keys.create({
    id: `key_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
    lookup: generated.lookup,
    hash: generated.hash,
    name: input.name,
    email: input.email ?? null,
    mode: input.mode,
    plan,
    scopes: input.scopes,
    allowance: input.credits ?? PLAN_ALLOWANCE[plan],
    period: billingPeriod(now),
    created_at: now.toISOString(),
    webhook_secret: generateWebhookSecret(),
  });
  return { key: generated.key, record };
}
