/**
 * End to end: a connector delivering to a real HTTPS receiver on loopback (test/helpers/webhook-receiver.ts)
 * that fails its first 3 deliveries and then accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZWebhookEventSchema } from '../../shared/webhooks.js';
import { corpusPdf } from '../extract/helpers.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

let hooks: WebhookReceiver;
let receiverUrl: string;
/** Deliveries the receiver still answers 500 to before it accepts. */
let failFirst = 3;
let srv: TestServer;

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  hooks.answer = () => (failFirst > 0 ? (failFirst--, 500) : 204);
  receiverUrl = `${hooks.url}/covercheck`;
  srv = await startTestServer({
    // For the extraction callback below; the pool starts on first use.
    extraction: true,
    env: {
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
      // The documented schedule (10 s, 30 s, 2 min, ...) run 100,000 times faster.
      COVERCHECK_WEBHOOK_RETRY_SCALE: '0.00001',
      COVERCHECK_WEBHOOK_TIMEOUT_MS: '2000',
      // The schedule alone: in compressed time a host's breaker (test/webhooks/host-limits.test.ts)
      // would hold the receiver that never accepts for its cool-down, longer than the whole schedule.
      COVERCHECK_WEBHOOK_BREAKER_FAILURES: '0',
    },
  });
});

afterAll(async () => {
  await srv.close();
  await hooks.close();
});

async function waitFor(cond: () => boolean, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('signed webhooks with retries', () => {
  it('a receiver failing 3 times then accepting gets exactly one logical event, validly signed, same webhook-id on every attempt', async () => {
    const k = await srv.key({ mode: 'test' });
    hooks.secret = (await srv.store.keys.get(k.id))!.webhook_secret!;
    expect(hooks.secret).toMatch(/^whsec_/);
    hooks.received.length = 0;
    failFirst = 3;
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: k.key,
      body: { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', webhook_url: receiverUrl },
    });
    expect(r.status).toBe(202);
    await waitFor(() => hooks.received.some((x) => x.status === 204));
    await new Promise((res) => setTimeout(res, 100));

    expect(hooks.received.map((x) => x.status)).toEqual([500, 500, 500, 204]);
    expect(new Set(hooks.received.map((x) => x.id)).size).toBe(1);
    expect(hooks.received.every((x) => x.verified)).toBe(true);
    const accepted = new Map(hooks.received.filter((x) => x.status < 300).map((x) => [x.id, x.event]));
    expect(accepted.size).toBe(1);
    const event = ZWebhookEventSchema.parse([...accepted.values()][0]);
    expect(event).toMatchObject({
      type: 'job.completed',
      data: { job_id: r.body.job_id, status: 'complete', result: { status: 'verified' } },
    });

    const job = await pollUntil(srv.url, r.body.poll_url, k.key, (b: any) => b.webhook?.status === 'delivered');
    expect(job.webhook).toEqual({ url: receiverUrl, status: 'delivered', attempts: 4 });
    const log = await call(srv.url, 'GET', '/api/v1/webhooks/deliveries', { key: k.key });
    expect(log.status).toBe(200);
    expect(log.body).toMatchObject({ total: 1, limit: 50, offset: 0 });
    expect(log.body.deliveries[0]).toMatchObject({
      webhook_id: hooks.received[0]!.id,
      event_type: 'job.completed',
      subject_id: r.body.job_id,
      status: 'delivered',
      attempts: 4,
    });
    expect(log.body.deliveries[0].attempt_log.map((a: any) => a.status)).toEqual([500, 500, 500, 204]);
  });

  it('a batch with webhook_url sends batch.completed with every result', async () => {
    const k = await srv.key({ mode: 'test' });
    hooks.secret = (await srv.store.keys.get(k.id))!.webhook_secret!;
    hooks.received.length = 0;
    failFirst = 0;
    const r = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: k.key,
      body: {
        webhook_url: receiverUrl,
        policies: [{ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }, { country: 'UK' }],
      },
    });
    await waitFor(() => hooks.received.length === 1);
    expect(hooks.received[0]!.verified).toBe(true);
    expect(hooks.received[0]!.event).toMatchObject({
      type: 'batch.completed',
      data: { batch_id: r.body.batch_id, status: 'complete', completed_count: 2 },
    });
    expect(hooks.received[0]!.event.data.results).toHaveLength(2);
  });

  it('an extraction job calls back with its fields as result and no `document` outcome (that is for verifications with a PDF)', async () => {
    const k = await srv.key({ mode: 'test' });
    hooks.secret = (await srv.store.keys.get(k.id))!.webhook_secret!;
    hooks.received.length = 0;
    failFirst = 0;
    const form = new FormData();
    form.append('file', new Blob([corpusPdf('002')], { type: 'application/pdf' }), 'policy.pdf');
    form.append('webhook_url', receiverUrl);
    const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}` },
      body: form,
    });
    expect(res.status).toBe(202);
    await waitFor(() => hooks.received.length === 1, 30_000);
    const event = ZWebhookEventSchema.parse(hooks.received[0]!.event);
    expect(event).toMatchObject({
      type: 'job.completed',
      data: { kind: 'extraction', status: 'complete', result: { insurance_type: 'motor' } },
    });
    expect(event.data).not.toHaveProperty('document');
  });

  it('a receiver that never accepts: every scheduled attempt is made, then the delivery is failed', async () => {
    const k = await srv.key({ mode: 'test' });
    hooks.secret = (await srv.store.keys.get(k.id))!.webhook_secret!;
    hooks.received.length = 0;
    failFirst = 1_000;
    await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: k.key,
      body: { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', webhook_url: receiverUrl },
    });
    const deadline = Date.now() + 15_000;
    let delivery: any;
    while (Date.now() < deadline) {
      delivery = (await call(srv.url, 'GET', '/api/v1/webhooks/deliveries', { key: k.key })).body.deliveries[0];
      if (delivery?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(delivery).toMatchObject({ status: 'failed', attempts: 9, next_attempt_at: null });
    expect(hooks.received).toHaveLength(9);
    expect(new Set(hooks.received.map((x) => x.id)).size).toBe(1);
  });

  it('the delivery log is per key and paginated; bad page parameters -> 400', async () => {
    const k = await srv.key({ mode: 'test' });
    const empty = await call(srv.url, 'GET', '/api/v1/webhooks/deliveries', { key: k.key });
    expect(empty.body).toEqual({ deliveries: [], total: 0, limit: 50, offset: 0 });
    for (const q of ['limit=0', 'limit=201', 'limit=-1', 'offset=x']) {
      const r = await call(srv.url, 'GET', `/api/v1/webhooks/deliveries?${q}`, { key: k.key });
      expect(r.status, q).toBe(400);
      expect(r.body.error).toBe('invalid_request');
    }
  });
});
