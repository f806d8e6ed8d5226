/** Store records -> the contract's job and batch bodies. */
import type { TBatch } from '../../../shared/batch.js';
import type { TErrorBody } from '../../../shared/errors.js';
import type { TJob } from '../../../shared/job.js';
import type { BatchItemRecord, BatchRecord, JobRecord, OutboxRecord } from '../store/types.js';
import { jobPollUrl } from './submit.js';

export const DOCUMENT_NOT_EXTRACTED =
  'PDF extraction is not available on this server: the document is stored with the job, no fields were extracted or cross-checked.';

export type DocumentOutcome = NonNullable<TJob['document']>;

function webhookView(url: string | null, deliveries: OutboxRecord[] | undefined) {
  if (!url) return undefined;
  const d = deliveries?.[0];
  return { url, status: d ? d.status : null, attempts: d ? d.attempts : 0 };
}

export function jobView(job: JobRecord, deliveries?: OutboxRecord[]): TJob {
  const view: TJob = {
    job_id: job.id,
    status: job.status,
    kind: job.kind,
    poll_url: jobPollUrl(job.id),
    created_at: job.created_at,
    updated_at: job.updated_at,
    completed_at: job.completed_at,
  };
  if (job.status === 'complete' && job.result) view.result = JSON.parse(job.result) as TJob['result'];
  if (job.status === 'failed' && job.error) view.error = JSON.parse(job.error) as TErrorBody;
  if (job.document_outcome) view.document = JSON.parse(job.document_outcome) as DocumentOutcome;
  // `document` reports on the PDF sent with an async verification. An extraction job's PDF is its
  // subject, not an attachment: its outcome is the job's own result or error.
  else if (job.kind === 'verification' && job.document_bytes !== null && job.status !== 'pending') {
    view.document = { bytes: job.document_bytes, extraction: 'not_available', detail: DOCUMENT_NOT_EXTRACTED };
  }
  const webhook = webhookView(job.webhook_url, deliveries);
  if (webhook) view.webhook = webhook;
  return view;
}

export function batchView(batch: BatchRecord, items: BatchItemRecord[], deliveries?: OutboxRecord[]): TBatch {
  const view: TBatch = {
    batch_id: batch.id,
    status: batch.status,
    total_count: batch.total_count,
    completed_count: batch.completed_count,
    created_at: batch.created_at,
    completed_at: batch.completed_at,
    results: items
      .filter((i) => i.state === 'done')
      .map((i) => ({
        index: i.idx,
        policy_number: i.policy_number,
        ...(i.result ? { result: JSON.parse(i.result) } : {}),
        ...(i.error ? { error: JSON.parse(i.error) as TErrorBody } : {}),
      })),
  };
  const webhook = webhookView(batch.webhook_url, deliveries);
  if (webhook) view.webhook = webhook;
  return view;
}
