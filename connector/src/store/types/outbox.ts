/** Storage of the webhook outbox: deliveries queued with finished work, leased, attempted and logged. */

export interface NewOutbox {
  id: string;
  key_id: string;
  url: string;
  event_type: string;
  subject_id: string;
  body: string;
  created_at: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface OutboxRecord {
  id: string;
  key_id: string;
  url: string;
  event_type: string;
  subject_id: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

export interface AttemptRecord {
  attempt: number;
  at: string;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export interface OutboxStore {
  /** Claims the next due pending delivery for `leaseUntil`, or null. */
  lease(now: string, leaseUntil: string): Promise<OutboxRecord | null>;
  /** Records one attempt and the delivery's new state in one transaction. */
  recordAttempt(id: string, attempt: AttemptRecord, next: { status: DeliveryStatus; next_attempt_at: string | null }): Promise<void>;
  get(id: string): Promise<OutboxRecord | null>;
  list(
    keyId: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: (OutboxRecord & { attempt_log: AttemptRecord[] })[]; total: number }>;
  forSubject(subjectId: string): Promise<OutboxRecord[]>;
}
