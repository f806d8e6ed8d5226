/** Builds webhook events ({type, created_at, data}) as outbox rows, to be written with the work they report. */
import crypto from 'node:crypto';
import type { WEBHOOK_EVENT_TYPES } from '../../../shared/webhooks.js';
import type { NewOutbox } from '../store/types.js';

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function outboxEvent(type: WebhookEventType, keyId: string, url: string, subjectId: string, data: unknown, at: string): NewOutbox {
  return {
    // Also the webhook-id header: stable across retries, so receivers can drop duplicates.
    id: `msg_${crypto.randomUUID().replace(/-/g, '')}`,
    key_id: keyId,
    url,
    event_type: type,
    subject_id: subjectId,
    body: JSON.stringify({ type, created_at: at, data }),
    created_at: at,
  };
}
