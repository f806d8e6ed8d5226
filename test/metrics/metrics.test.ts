/**
 * GET /metrics on the real server (loopback, the default protection): the Prometheus text parses,
 * and each family moves with the work that feeds it: requests by route name and status, credits,
 * the queue's depth, webhook attempts, upstream calls and extractions. No label carries an API key,
 * a key id, a policy number or a job id, and a path's own values never become a label.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPdf } from '../extract/helpers.js';
import { OPERATOR_DE_MOTOR, OPERATOR_UK_MOTOR, importOperatorRegistry } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { has, parseExposition, valueOf, type Exposition } from './exposition.js';

let srv: TestServer;
let hooks: WebhookReceiver;
let registry: http.Server;
let live: { key: string; id: string };
/** Everything a label must never hold: keys, key ids, policy numbers, job and batch ids. */
const secrets: string[] = [];

/** A policy registry upstream on loopback: 503 for numbers ending in 9, else not found. */
function startRegistryStandIn(): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const unavailable = /9$/.test(req.url ?? '');
    res.writeHead(unavailable ? 503 : 404, { 'content-type': 'application/json' }).end(unavailable ? '{}' : '{"found":false}');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  registry = await startRegistryStandIn();
  srv = await startTestServer({
    extraction: true,
    // Started in the queue test, after the queued work has been seen.
    workers: false,
    env: {
      COVERCHECK_REGISTRY_UPSTREAMS: `UK=http://127.0.0.1:${(registry.address() as AddressInfo).port}`,
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
    },
  });
  await importOperatorRegistry(srv.store);
  live = await srv.key({ mode: 'live', credits: 1000 });
  hooks.secret = (await srv.store.keys.get(live.id))!.webhook_secret ?? '';
  secrets.push(live.key, live.id);
});

afterAll(async () => {
  await srv?.close();
  await hooks?.close();
  registry?.closeAllConnections();
  await new Promise((r) => registry?.close(r));
});

async function scrape(): Promise<{ exp: Exposition; text: string }> {
  const res = await fetch(`${srv.url}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  return { exp: parseExposition(text), text };
}

const verify = (body: object) => call(srv.url, 'POST', '/api/v1/verify', { key: live.key, body });

describe('GET /metrics', () => {
  it('answers the Prometheus text format from loopback, with the process metrics and every family declared', async () => {
    const { exp } = await scrape();
    expect(exp.types.get('process_cpu_user_seconds_total')).toBe('counter');
    expect(exp.types.get('covercheck_http_request_duration_seconds')).toBe('histogram');
    for (const [name, type] of [
      ['covercheck_jobs_queued', 'gauge'],
      ['covercheck_jobs_running', 'gauge'],
      ['covercheck_jobs_oldest_queued_age_seconds', 'gauge'],
      ['covercheck_credits_charged_total', 'counter'],
      ['covercheck_webhook_attempts_total', 'counter'],
      ['covercheck_webhook_attempt_duration_seconds', 'histogram'],
      ['covercheck_sheets_writeback_lag_seconds', 'gauge'],
      ['covercheck_extraction_duration_seconds', 'histogram'],
      ['covercheck_extraction_refusals_total', 'counter'],
      ['covercheck_upstream_request_duration_seconds', 'histogram'],
      ['covercheck_upstream_requests_total', 'counter'],
    ])
      expect(exp.types.get(name!), name).toBe(type);
  });

  it('counts a sync verification under its route name and status, with its latency, and the credit it charged', async () => {
    const before = (await scrape()).exp;
    secrets.push(OPERATOR_DE_MOTOR.policy_number);
    const r = await verify({ ...OPERATOR_DE_MOTOR, provider: 'HDI Global SE' });
    expect(r.status).toBe(200);
    expect(r.body.credits_charged).toBe(1);
    const after = (await scrape()).exp;
    const count = (e: Exposition) => valueOf(e, 'covercheck_http_request_duration_seconds_count', { route: 'verify', status: '200' });
    expect(count(after) - count(before)).toBe(1);
    const slowest = valueOf(after, 'covercheck_http_request_duration_seconds_bucket', { route: 'verify', status: '200', le: '+Inf' });
    expect(slowest).toBe(count(after));
    expect(valueOf(after, 'covercheck_http_request_duration_seconds_sum', { route: 'verify', status: '200' })).toBeGreaterThan(0);
    const credits = (e: Exposition) => valueOf(e, 'covercheck_credits_charged_total', { via: 'verify' });
    expect(credits(after) - credits(before)).toBe(1);
  });

  it('labels a path with an id by its route, and an unknown path as unmatched: no raw path becomes a label', async () => {
    const id = `0b5c0000-0000-4000-8000-${Date.now().toString().padStart(12, '0')}`;
    const unknown = `/nothing-here-${Date.now()}`;
    secrets.push(id, unknown);
    expect((await call(srv.url, 'GET', `/api/v1/jobs/${id}`, { key: live.key })).status).toBe(404);
    expect((await call(srv.url, 'GET', unknown)).status).toBe(404);
    const { exp } = await scrape();
    expect(has(exp, 'covercheck_http_request_duration_seconds_count', { route: 'job', status: '404' })).toBe(true);
    expect(has(exp, 'covercheck_http_request_duration_seconds_count', { route: 'unmatched', status: '404' })).toBe(true);
  });

  it('shows a batch queued with its age, then running to the end, and the credits its items charged', async () => {
    const before = (await scrape()).exp;
    secrets.push(OPERATOR_UK_MOTOR.policy_number);
    const batch = await call(srv.url, 'POST', '/api/v1/verify/batch', {
      key: live.key,
      body: { policies: [OPERATOR_DE_MOTOR, OPERATOR_UK_MOTOR] },
    });
    expect(batch.status).toBe(202);
    secrets.push(batch.body.batch_id);
    await new Promise((r) => setTimeout(r, 30));
    const queued = (await scrape()).exp;
    expect(valueOf(queued, 'covercheck_jobs_queued', { kind: 'batch' })).toBe(1);
    expect(valueOf(queued, 'covercheck_jobs_running', { kind: 'batch' })).toBe(0);
    expect(valueOf(queued, 'covercheck_jobs_oldest_queued_age_seconds', { kind: 'batch' })).toBeGreaterThan(0);

    srv.connector.startWorkers();
    await pollUntil(srv.url, `/api/v1/batches/${batch.body.batch_id}`, live.key, (b: any) => b.status === 'complete');
    const after = (await scrape()).exp;
    expect(valueOf(after, 'covercheck_jobs_queued', { kind: 'batch' })).toBe(0);
    expect(valueOf(after, 'covercheck_jobs_oldest_queued_age_seconds', { kind: 'batch' })).toBe(0);
    const credits = (e: Exposition) => valueOf(e, 'covercheck_credits_charged_total', { via: 'batch' });
    expect(credits(after) - credits(before)).toBe(2);
  });

  it('counts a webhook delivery by its outcome and the answer it got', async () => {
    const before = (await scrape()).exp;
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key: live.key,
      body: { ...OPERATOR_DE_MOTOR, webhook_url: `${hooks.url}/metrics` },
    });
    expect(r.status).toBe(202);
    secrets.push(r.body.job_id);
    await pollUntil(srv.url, r.body.poll_url, live.key, (b: any) => b.webhook?.status === 'delivered');
    const after = (await scrape()).exp;
    const delivered = (e: Exposition) => valueOf(e, 'covercheck_webhook_attempts_total', { outcome: 'delivered', answer: '2xx' });
    expect(delivered(after) - delivered(before)).toBe(1);
    expect(valueOf(after, 'covercheck_webhook_attempt_duration_seconds_count')).toBeGreaterThanOrEqual(1);
    const credits = (e: Exposition) => valueOf(e, 'covercheck_credits_charged_total', { via: 'job' });
    expect(credits(after) - credits(before)).toBe(1);
  });

  it('times registry upstream calls and counts them by answer: not found (4xx) and unavailable (5xx)', async () => {
    const before = (await scrape()).exp;
    secrets.push('AB12345678', 'AB12345679');
    expect((await verify({ policy_number: 'AB12345678', country: 'UK', insurance_type: 'motor' })).status).toBe(200);
    expect((await verify({ policy_number: 'AB12345679', country: 'UK', insurance_type: 'motor' })).status).toBe(200);
    const after = (await scrape()).exp;
    const calls = (e: Exposition, outcome: string) => valueOf(e, 'covercheck_upstream_requests_total', { upstream: 'registry', outcome });
    expect(calls(after, '4xx') - calls(before, '4xx')).toBe(1);
    expect(calls(after, '5xx') - calls(before, '5xx')).toBe(1);
    const timed = (e: Exposition) => valueOf(e, 'covercheck_upstream_request_duration_seconds_count', { upstream: 'registry' });
    expect(timed(after) - timed(before)).toBe(2);
  });

  it('times an extraction that read its document, and counts a refused one by its reason', async () => {
    const before = (await scrape()).exp;
    const upload = async (pdf: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'policy.pdf');
      const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${live.key}` },
        body: form,
      });
      expect(res.status).toBe(202);
      const body = (await res.json()) as { job_id: string; poll_url: string };
      secrets.push(body.job_id);
      return pollUntil(srv.url, body.poll_url, live.key, (b: any) => b.status !== 'pending', 60_000);
    };
    expect((await upload(corpusPdf('002'))).status).toBe('complete');
    const broken = Buffer.alloc(2000, 0x41);
    broken.write('%PDF-1.7\n');
    expect((await upload(broken)).status).toBe('failed');
    const after = (await scrape()).exp;
    const timed = (e: Exposition, outcome: string) => valueOf(e, 'covercheck_extraction_duration_seconds_count', { outcome });
    expect(timed(after, 'read') - timed(before, 'read')).toBe(1);
    expect(timed(after, 'refused') - timed(before, 'refused')).toBe(1);
    const refused = after.samples.filter((s) => s.name === 'covercheck_extraction_refusals_total' && s.value > 0);
    expect(refused.map((s) => s.labels.reason)).toEqual([expect.stringMatching(/^(corrupt_pdf|no_readable_text)$/)]);
  });

  it('puts no key, key id, policy number, job id or path value in any label, nor anywhere in the text', async () => {
    const { exp, text } = await scrape();
    const labelValues = exp.samples.flatMap((s) => Object.values(s.labels));
    expect(secrets.length).toBeGreaterThan(8);
    for (const secret of secrets) {
      expect(
        labelValues.filter((v) => v.includes(secret)),
        secret,
      ).toEqual([]);
      expect(text.includes(secret), secret).toBe(false);
    }
    expect(text).not.toMatch(/pk_(live|test)_/);
    // Routes are the table's names (or "unmatched"), never paths.
    const routes = new Set(exp.samples.filter((s) => s.name.startsWith('covercheck_http_')).map((s) => s.labels.route));
    for (const route of routes) expect(route).toMatch(/^[a-zA-Z]+$/);
  });
});
