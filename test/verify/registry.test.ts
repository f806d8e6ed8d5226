import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importOperatorRegistry } from '../helpers/operator-registry.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

/** A fake upstream registry on loopback whose behaviour each test sets. */
let mode: 'found' | 'missing' | 'slow' | 'down' | 'garbage' = 'found';
let hits = 0;
const upstream = http.createServer((req, res) => {
  hits++;
  if (mode === 'slow') {
    setTimeout(() => res.end('{}'), 2_000).unref();
    return;
  }
  if (mode === 'down') return void res.writeHead(503).end();
  if (mode === 'garbage') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"found": "yes?"');
  if (mode === 'missing') return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"found":false}');
  const number = decodeURIComponent(req.url!.split('/').pop()!);
  res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      found: true,
      policies: [
        {
          policy_number: number,
          insurance_type: 'health',
          insurer_reference: '21090402',
          start_date: '2026-01-01',
          end_date: '2030-12-31',
          status: 'active',
        },
      ],
    }),
  );
});

let srv: TestServer;
let key: string;
beforeAll(async () => {
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as AddressInfo).port;
  srv = await startTestServer({
    env: { COVERCHECK_REGISTRY_UPSTREAMS: `FR=http://127.0.0.1:${port}`, COVERCHECK_REGISTRY_TIMEOUT_MS: '300' },
  });
  key = (await srv.key({ mode: 'live', credits: 100 })).key;
});
afterAll(async () => {
  await srv.close();
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

const frHealth = { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' };

describe('upstream registry adapter', () => {
  it('an upstream that knows the policy makes it verified', async () => {
    mode = 'found';
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: frHealth });
    expect(r.body).toMatchObject({ status: 'verified', credits_charged: 1, insurer: { reference: '21090402', demo: false } });
    // No real sanctions list is loaded on this server, and a live key never sees the demo one.
    expect(r.body.flags).toEqual(['sanctions_not_checked']);
  });
  it('an upstream 404 makes it unverified', async () => {
    mode = 'missing';
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: frHealth });
    expect(r.body).toMatchObject({ status: 'unverified', credits_charged: 1 });
  });
  it('a timeout is inconclusive, free, and answered within the deadline — never a 500', async () => {
    mode = 'slow';
    const started = Date.now();
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: frHealth });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'inconclusive', credits_charged: 0 });
    expect(r.body.flags).toContain('registry_unavailable');
    expect(r.body.checks.find((c: any) => c.source === 'registry').detail).toContain('timed out');
    expect(Date.now() - started).toBeLessThan(1_900);
  });
  it('an outage (503) or a broken body is inconclusive', async () => {
    for (const m of ['down', 'garbage'] as const) {
      mode = m;
      const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: frHealth });
      expect(r.status, m).toBe(200);
      expect(r.body.status, m).toBe('inconclusive');
    }
  });
  it('the local registry answers first: a locally known FR policy never reaches the upstream', async () => {
    mode = 'down';
    await importOperatorRegistry(srv.store);
    const before = hits;
    const r = await call(srv.url, 'POST', '/api/v1/verify', {
      key,
      body: { policy_number: 'AUTO-2109-900001', country: 'FR', insurance_type: 'motor' },
    });
    expect(r.body.status).toBe('verified');
    expect(hits).toBe(before);
  });
});

describe('upstream limiter', () => {
  it('never has more calls in flight to one upstream than COVERCHECK_REGISTRY_MAX_CONCURRENT', async () => {
    let inFlight = 0;
    let peak = 0;
    const slow = http.createServer((_req, res) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        res.writeHead(404).end('{"found":false}');
      }, 40);
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    const limited = await startTestServer({
      env: {
        COVERCHECK_REGISTRY_UPSTREAMS: `UK=http://127.0.0.1:${(slow.address() as AddressInfo).port}`,
        COVERCHECK_REGISTRY_MAX_CONCURRENT: '2',
        COVERCHECK_REGISTRY_TIMEOUT_MS: '5000',
      },
    });
    try {
      // A live key: a sandbox key never reaches an upstream (sandbox.test.ts).
      const { key: k } = await limited.key({ mode: 'live', credits: 100 });
      const rs = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          call(limited.url, 'POST', '/api/v1/verify', {
            key: k,
            body: { policy_number: `UKM-7777-${String(i).padStart(4, '0')}`, country: 'UK', insurance_type: 'motor' },
          }),
        ),
      );
      expect(rs.every((r) => r.status === 200 && r.body.status === 'unverified')).toBe(true);
      expect(peak).toBe(2);
    } finally {
      await limited.close();
      slow.closeAllConnections();
      await new Promise((r) => slow.close(r));
    }
  });
});
