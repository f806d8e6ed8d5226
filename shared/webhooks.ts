/** Webhook signing and verification (Standard Webhooks, v1 HMAC-SHA256) and the webhook event body. */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Prefix of every webhook signing secret; the rest is the base64 of the key. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** How far a webhook's timestamp may be from the receiver's clock, either way, by default. */
const DEFAULT_TOLERANCE_S = 5 * 60;

/**
 * A new signing secret: `whsec_` + base64 of 32 random bytes. Shown to the customer once, stored
 * by us to sign deliveries.
 */
export function generateWebhookSecret(random: (n: number) => Buffer = randomBytes): string {
  return WEBHOOK_SECRET_PREFIX + random(32).toString('base64');
}

/**
 * The HMAC key of a secret. Accepts it with or without the `whsec_` prefix, as the reference
 * library does. An empty key is a misconfiguration on our side, so a plain Error, not a
 * verification failure.
 */
function secretKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error('Webhook secret is empty');
  return key;
}

/**
 * The `webhook-signature` header value for one delivery: `v1,` + base64 HMAC-SHA256 of
 * `${id}.${timestampS}.${body}`. `body` must be the exact bytes sent.
 */
export function signWebhook(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', secretKey(secret)).update(`${id}.${timestampS}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** A delivery failed verification: missing headers, stale timestamp, or no matching signature. */
export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyOptions {
  /** Seconds the timestamp may differ from now, either way (default 300). */
  toleranceS?: number;
  /** The receiver's clock in Unix seconds (default: the system clock). */
  nowS?: number;
}

/** One header's value, looked up case-insensitively; repeated headers are joined with a space. */
function header(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name || value === undefined) continue;
    return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

/**
 * Checks a received webhook and returns its parsed JSON body (undefined for an empty body).
 * Accepts any one of the space-separated `v1,` signatures, so a sender can sign with the old and
 * the new secret while rotating; other versions are ignored. Use the `webhook-id` header as the
 * idempotency key: retries of one event carry the same id.
 *
 * @throws WebhookVerificationError when a header is missing, the timestamp is malformed or outside
 *   the tolerance (replay protection), no signature matches, or the body is not JSON.
 */
export function verifyWebhook(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  body: string,
  opts: VerifyOptions = {},
): unknown {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  const missing = [!id && 'webhook-id', !timestamp && 'webhook-timestamp', !signatures && 'webhook-signature'].filter(Boolean);
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError(`Missing required header(s): ${missing.join(', ')}`);

  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('Invalid webhook-timestamp: expected Unix seconds');
  const timestampS = Number(timestamp);
  const nowS = opts.nowS ?? Math.floor(Date.now() / 1000);
  const toleranceS = opts.toleranceS ?? DEFAULT_TOLERANCE_S;
  if (nowS - timestampS > toleranceS) throw new WebhookVerificationError('Message timestamp too old');
  if (timestampS - nowS > toleranceS) throw new WebhookVerificationError('Message timestamp too new');

  const expected = Buffer.from(signWebhook(secret, id, timestampS, body).slice('v1,'.length));
  const matched = signatures.split(' ').some((versioned) => {
    const comma = versioned.indexOf(',');
    if (comma < 0 || versioned.slice(0, comma) !== 'v1') return false;
    const candidate = Buffer.from(versioned.slice(comma + 1));
    // The length of a valid signature is public, so only the bytes need a constant-time compare.
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
  if (!matched) throw new WebhookVerificationError('No matching signature found');

  if (body === '') return undefined;
  try {
    return JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('Webhook body is not valid JSON');
  }
}

/** Every event type we deliver. */
export const WEBHOOK_EVENT_TYPES = ['job.completed', 'job.failed', 'batch.completed', 'watch.run.changed'] as const;

/** The body of every webhook delivery. */
export const ZWebhookEventSchema = z
  .object({
    type: z.enum(WEBHOOK_EVENT_TYPES),
    created_at: z.iso.datetime(),
    data: z.record(z.string(), z.unknown()).meta({ description: 'The event payload; its shape depends on `type`.' }),
  })
  .meta({
    id: 'WebhookEvent',
    description:
      'POSTed to your webhook_url, signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers). ' +
      'The webhook-id is the same on every retry of one event: use it to drop duplicates.',
  });
export type TWebhookEvent = z.infer<typeof ZWebhookEventSchema>;
