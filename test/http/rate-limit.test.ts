import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

beforeAll(async () => {
  srv = await startTestServer({ env: { COVERCHECK_RATE_LIMIT_KEY_PER_MIN: '5', COVERCHECK_RATE_LIMIT_IP_PER_MIN: '3' } });
});
afterAll(async () => srv.close());

describe('rate limits', () => {
  it('per key: the 6th call in a minute gets 429 with Retry-After and retry_after', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const retryAfter = Number(last!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(last!.body).toEqual({ error: 'rate_limit_exceeded', message: expect.any(String), code: 429, retry_after: retryAfter });
  });
  it('per key: another key is not affected', async () => {
    const { key } = await srv.key({ mode: 'test' });
    expect((await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy })).status).toBe(200);
  });
  it('public dataset routes are limited per IP, not per key', async () => {
    const fresh = await startTestServer({ workers: false, env: { COVERCHECK_RATE_LIMIT_IP_PER_MIN: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(fresh.url, 'GET', '/api/v1/datasets?limit=1')).status);
      expect(statuses).toEqual([200, 200, 429]);
      const { key } = await fresh.key({ scopes: ['datasets'] });
      expect((await call(fresh.url, 'GET', '/api/v1/datasets?limit=1', { key })).status).toBe(200);
    } finally {
      await fresh.close();
    }
  });
  it('per IP on unauthenticated routes and failed auth: 429 after the budget', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(srv.url, 'GET', '/api/v1/openapi.json')).status);
    const bad = await call(srv.url, 'POST', '/api/v1/verify', { key: 'pk_live_' + 'B'.repeat(44), body: policy });
    expect(statuses).toEqual([200, 200, 200]);
    expect(bad.status).toBe(429);
    expect(bad.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
