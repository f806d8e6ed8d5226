/**
 * Who may read GET /metrics (COVERCHECK_METRICS): off, loopback (the default: the socket's own address,
 * and no proxy in between, whatever COVERCHECK_TRUST_PROXY says) and token (Bearer, constant time).
 * Anyone refused gets exactly the 404 of a path that does not exist. The servers listen on loopback
 * only, so the address rule for another machine is checked on the rule itself (mayScrape).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../connector/src/config.js';
import { isLoopback, mayScrape } from '../../connector/src/metrics/index.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const TOKEN = 'a'.repeat(20) + '0123456789abcdef0123';
const servers: Record<'off' | 'loopback' | 'proxied' | 'token', TestServer> = {} as never;

beforeAll(async () => {
  servers.off = await startTestServer({ env: { COVERCHECK_METRICS: 'off' }, workers: false });
  servers.loopback = await startTestServer({ workers: false });
  // Behind a proxy that the connector trusts: X-Forwarded-For names the client for the rate limits and logs.
  servers.proxied = await startTestServer({ env: { COVERCHECK_TRUST_PROXY: 'true' }, workers: false });
  servers.token = await startTestServer({ env: { COVERCHECK_METRICS: 'token', COVERCHECK_METRICS_TOKEN: TOKEN }, workers: false });
});
afterAll(async () => {
  await Promise.all(Object.values(servers).map((s) => s?.close()));
});

const scrape = (srv: TestServer, headers: Record<string, string> = {}) => call(srv.url, 'GET', '/metrics', { headers });

/** The answer to a path that does not exist, with the path put back to /metrics. */
async function notFoundBody(srv: TestServer): Promise<unknown> {
  const other = await call(srv.url, 'GET', '/metricz');
  expect(other.status).toBe(404);
  return JSON.parse(JSON.stringify(other.body).replace('/metricz', '/metrics'));
}

describe('COVERCHECK_METRICS=off', () => {
  it('answers /metrics as a path that does not exist, and records nothing', async () => {
    const r = await scrape(servers.off);
    expect(r.status).toBe(404);
    expect(r.body).toEqual(await notFoundBody(servers.off));
    expect(servers.off.ctx.metrics.enabled).toBe(false);
    expect(servers.off.ctx.metrics.requests).toBeNull();
  });

  it('leaves /readyz on', async () => {
    expect((await call(servers.off.url, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('COVERCHECK_METRICS=loopback (the default)', () => {
  it('answers a scrape from this machine', async () => {
    const r = await scrape(servers.loopback);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('refuses, with the 404 of an unknown path, a request that came through a proxy (X-Forwarded-For or Forwarded)', async () => {
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-forwarded-for': '203.0.113.9' },
      { forwarded: 'for=127.0.0.1' },
    ];
    for (const headers of proxied) {
      const r = await scrape(servers.loopback, headers);
      expect(r.status, JSON.stringify(headers)).toBe(404);
      expect(r.body).toEqual(await notFoundBody(servers.loopback));
    }
  });

  it('with COVERCHECK_TRUST_PROXY on, still goes by the socket: a proxied request naming 127.0.0.1 is refused', async () => {
    expect((await scrape(servers.proxied)).status).toBe(200);
    expect((await scrape(servers.proxied, { 'x-forwarded-for': '127.0.0.1' })).status).toBe(404);
  });

  it('admits by the socket address only: loopback v4 and v6, and no other address whatever the headers claim', () => {
    const allowed = mayScrape({ mode: 'loopback' });
    const req = (remoteAddress: string | undefined, headers = {}) => ({ socket: { remoteAddress }, headers });
    expect(allowed(req('127.0.0.1'))).toBe(true);
    expect(allowed(req('127.8.9.10'))).toBe(true);
    expect(allowed(req('::1'))).toBe(true);
    expect(allowed(req('::ffff:127.0.0.1'))).toBe(true);
    expect(allowed(req('10.0.0.5', { 'x-forwarded-for': '127.0.0.1' }))).toBe(false);
    expect(allowed(req('203.0.113.9', { 'x-real-ip': '127.0.0.1' }))).toBe(false);
    expect(allowed(req('::ffff:10.0.0.5'))).toBe(false);
    expect(allowed(req(undefined))).toBe(false);
    expect(isLoopback('128.0.0.1')).toBe(false);
    expect(isLoopback('::2')).toBe(false);
  });
});

describe('COVERCHECK_METRICS=token', () => {
  it('answers the Bearer token, and nothing else, not even loopback without it', async () => {
    expect((await scrape(servers.token, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await scrape(servers.token, { authorization: `bearer ${TOKEN}` })).status).toBe(200);
    const refused: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` },
      { authorization: TOKEN },
    ];
    for (const headers of refused) {
      const r = await scrape(servers.token, headers);
      expect(r.status, JSON.stringify(headers)).toBe(404);
      expect(r.body).toEqual(await notFoundBody(servers.token));
    }
  });

  it('takes the token from the configuration only: a half-done setting stops the start, naming the variables', () => {
    expect(() => loadConfig({ COVERCHECK_METRICS: 'token' })).toThrow(/COVERCHECK_METRICS=token needs COVERCHECK_METRICS_TOKEN/);
    expect(() => loadConfig({ COVERCHECK_METRICS_TOKEN: TOKEN })).toThrow(
      /COVERCHECK_METRICS_TOKEN is set but COVERCHECK_METRICS is not token/,
    );
    expect(() => loadConfig({ COVERCHECK_METRICS: 'token', COVERCHECK_METRICS_TOKEN: 'short' })).toThrow(
      /COVERCHECK_METRICS_TOKEN: must be at least 32/,
    );
    expect(() => loadConfig({ COVERCHECK_METRICS: 'public' })).toThrow(/COVERCHECK_METRICS/);
    expect(loadConfig({}).metrics).toEqual({ mode: 'loopback' });
    expect(loadConfig({ COVERCHECK_METRICS: 'off' }).metrics).toBeNull();
  });
});
