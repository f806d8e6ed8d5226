/** Accepting async work without HTTP: every refusal is an AppError with the code (and retry delay) the routes answer with. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey } from '../../connector/src/auth/create-key.js';
import { AppError } from '../../connector/src/errors.js';
import { submitAsyncVerification, submitBatch, submitExtraction, type SubmitDeps } from '../../connector/src/jobs/submit.js';
import type { ApiKeyRecord, Store } from '../../connector/src/store/types.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';

let store: Store;
let key: ApiKeyRecord;
let notified: number;
const now = () => new Date('2026-11-22T10:00:00Z');
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
const pdf = Buffer.from('%PDF-1.4\n%%EOF\n');

const deps = (over: Partial<SubmitDeps> = {}): SubmitDeps => ({
  store,
  allowPrivateWebhooks: true,
  lookup: async () => [{ address: '203.0.113.10', family: 4 }],
  now,
  notify: () => void notified++,
  ...over,
});

/** The AppError a submission throws. */
async function refusal(p: Promise<unknown>): Promise<AppError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

beforeEach(async () => {
  store = openTempStore('submit').store;
  notified = 0;
  key = (await createApiKey(store, { mode: 'live', name: 's', scopes: ['verify', 'extract'], credits: 2, now: now() })).record;
});
afterEach(closeTempStores);

describe('submitAsyncVerification', () => {
  it('stores the job, reserves one credit, wakes the workers and returns the accepted body', async () => {
    const out = await submitAsyncVerification(policy, key, deps());
    expect(out).toEqual({ job_id: expect.any(String), status: 'pending', poll_url: `/api/v1/jobs/${out.job_id}` });
    expect((await store.jobs.get(out.job_id))?.status).toBe('pending');
    expect((await store.keys.get(key.id))!.balance).toBe(1);
    expect(notified).toBe(1);
  });

  it('refuses a number not in its country and type format with the same message the engine gives', async () => {
    const err = await refusal(submitAsyncVerification({ ...policy, policy_number: 'X!' }, key, deps()));
    expect(err.code).toBe('invalid_policy_number');
    expect(err.publicMessage).toMatch(/^Policy number "X!" is not a recognised UK motor format: /);
    expect(notified).toBe(0);
  });

  it('a missing field is missing_required_field (singular) off the sync route', async () => {
    expect((await refusal(submitAsyncVerification({ country: 'UK', insurance_type: 'motor' }, key, deps()))).code).toBe(
      'missing_required_field',
    );
  });

  it('refuses a document that is not a PDF, and a private webhook address when those are not allowed', async () => {
    const notPdf = await refusal(submitAsyncVerification({ ...policy, document: Buffer.from('hello').toString('base64') }, key, deps()));
    expect([notPdf.code, notPdf.publicMessage]).toEqual(['invalid_document', 'document is not a PDF (it does not start with %PDF-).']);
    const hook = await refusal(
      submitAsyncVerification(
        { ...policy, webhook_url: 'https://10.0.0.1/x' },
        key,
        deps({ allowPrivateWebhooks: false, lookup: async () => [{ address: '10.0.0.1', family: 4 }] }),
      ),
    );
    expect(hook.code).toBe('invalid_webhook_url');
  });

  it('a pre-decoded document is taken from deps.checkDocument, whose refusal stands', async () => {
    const refused = new AppError('payload_too_large', 'too big');
    const err = await refusal(
      submitAsyncVerification(
        { ...policy, document: 'sha256:abc' },
        key,
        deps({
          checkDocument: () => {
            throw refused;
          },
        }),
      ),
    );
    expect(err).toBe(refused);
    const out = await submitAsyncVerification({ ...policy, document: 'sha256:abc' }, key, deps({ checkDocument: () => pdf }));
    expect((await store.jobs.document(out.job_id))?.equals(pdf)).toBe(true);
  });

  it('a key at its bound on waiting documents is told to retry in 10 s', async () => {
    await submitAsyncVerification({ ...policy, document: pdf.toString('base64') }, key, deps({ maxPendingDocumentsPerKey: 1 }));
    const err = await refusal(
      submitAsyncVerification({ ...policy, document: pdf.toString('base64') }, key, deps({ maxPendingDocumentsPerKey: 1 })),
    );
    expect([err.code, err.retryAfter]).toEqual(['rate_limit_exceeded', 10]);
  });

  it('out of credits: insufficient_credits carrying the balance', async () => {
    await submitAsyncVerification(policy, key, deps());
    await submitAsyncVerification(policy, key, deps());
    const err = await refusal(submitAsyncVerification(policy, key, deps()));
    expect([err.code, err.balance]).toEqual(['insufficient_credits', 0]);
    expect(err.publicMessage).toBe('Credits exhausted for billing period 2026-11: balance 0.');
  });

  it('a sheet_target is refused when no Google service account is configured', async () => {
    const err = await refusal(submitAsyncVerification({ ...policy, sheet_target: { spreadsheet_id: 'x' } }, key, deps()));
    expect(err.code).toBe('invalid_request');
    expect(err.publicMessage).toMatch(/no Google service account/);
  });
});

describe('submitExtraction', () => {
  it('refuses no file, an empty file and a file that is not a PDF, JPEG or PNG', async () => {
    expect((await refusal(submitExtraction(null, undefined, key, deps()))).code).toBe('missing_required_field');
    expect((await refusal(submitExtraction(Buffer.alloc(0), undefined, key, deps()))).publicMessage).toBe('The uploaded file is empty.');
    const notPdf = await refusal(submitExtraction(Buffer.from('GIF89a'), undefined, key, deps()));
    expect([notPdf.code, notPdf.publicMessage]).toEqual([
      'invalid_document',
      'The uploaded file is not a PDF, JPEG or PNG (it starts with none of their signatures).',
    ]);
  });

  it('with too many extractions waiting: service_unavailable with a retry delay, nothing stored', async () => {
    await submitExtraction(pdf, undefined, key, deps());
    const err = await refusal(submitExtraction(pdf, undefined, key, deps({ maxPendingExtractions: 1 })));
    expect([err.code, err.retryAfter]).toEqual(['service_unavailable', 10]);
    expect(await store.jobs.pendingCount('extraction')).toBe(1);
  });

  it('a sheet_target that is not JSON is invalid_request', async () => {
    expect((await refusal(submitExtraction(pdf, undefined, key, deps(), '{nope'))).publicMessage).toBe(
      'sheet_target must be a JSON object (as text in the multipart field).',
    );
  });

  it('a sheet_target may map the coverage details and needs_review; the coverage object itself, and coverage on a verification, are refused', async () => {
    const bound = deps({ sheetBindings: { require: async () => {} } });
    const target = (columns: Record<string, string>) =>
      JSON.stringify({ spreadsheet_id: 'sheet-submit-test-0001', sheet_name: 'Policies', key_column: 'A', columns });
    const columns = { insurer: 'B', motor_cover: 'C', trip_type: 'D', region: 'E', health_plan: 'F', needs_review: 'G' };
    const { job_id } = await submitExtraction(pdf, undefined, key, bound, target(columns));
    expect(JSON.parse((await store.jobs.get(job_id))!.sheet_target!)).toMatchObject({ columns });
    const err = await refusal(submitExtraction(pdf, undefined, key, bound, target({ coverage: 'C' })));
    expect(err.publicMessage).toBe(
      'sheet_target.columns: unknown field coverage; use policy_number, insurer, insurance_type, start_date, end_date, vehicle_registration, motor_cover, trip_type, region, health_plan, needs_review.',
    );
    const onVerification = await refusal(
      submitAsyncVerification({ ...policy, sheet_target: JSON.parse(target({ status: 'B', motor_cover: 'C' })) }, key, bound),
    );
    expect(onVerification.publicMessage).toMatch(/^sheet_target\.columns: unknown field motor_cover;/);
  });
});

describe('submitBatch', () => {
  it('accepts the batch; an invalid item is stored done with its error body and reserves nothing', async () => {
    const out = await submitBatch({ policies: [policy, { ...policy, policy_number: 'X!' }, { country: 'UK' }] }, key, deps());
    expect(out).toEqual({ batch_id: expect.any(String), status: 'pending', total_count: 3 });
    const items = await store.batches.items(out.batch_id);
    expect(items.map((i) => i.state)).toEqual(['pending', 'done', 'done']);
    expect(JSON.parse(items[1]!.error!)).toEqual({
      error: 'invalid_policy_number',
      message: expect.stringContaining('is not a recognised UK motor format'),
      code: 400,
    });
    expect(JSON.parse(items[2]!.error!)).toMatchObject({ error: 'missing_required_field', code: 400 });
    expect(items[1]!.policy_number).toBe('X!');
    expect((await store.keys.get(key.id))!.balance).toBe(1);
  });

  it('refuses a batch larger than the key can pay for, naming what it needs', async () => {
    const err = await refusal(submitBatch({ policies: [policy, policy, policy] }, key, deps()));
    expect([err.code, err.balance]).toEqual(['insufficient_credits', 2]);
    expect(err.publicMessage).toBe('Credits exhausted for billing period 2026-11: balance 2; this needs 3.');
  });

  it('refuses bodies of the wrong shape', async () => {
    expect((await refusal(submitBatch([], key, deps()))).code).toBe('invalid_request');
    expect((await refusal(submitBatch({}, key, deps()))).code).toBe('missing_required_field');
    expect((await refusal(submitBatch({ policies: [] }, key, deps()))).publicMessage).toBe(
      'policies must hold 1 to 100 policy objects; got 0.',
    );
    expect((await refusal(submitBatch({ policies: [policy], extra: 1 }, key, deps()))).publicMessage).toBe(
      'Unknown field: extra. Accepted: policies, webhook_url, sheet_target.',
    );
  });
});
