import https from 'node:https';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { makeTestCert } from '../helpers/tls.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkWebhookUrl, deliverWebhook, type LookupAll } from '../../connector/src/webhooks/index.js';
import { ADDRESS_NOT_ALLOWED } from '../../connector/src/webhooks/url-guard.js';
import { generateWebhookSecret, verifyWebhook } from '../../shared/webhooks.js';

/** A customer's receiver on loopback; each test sets how it answers. */
type Mode = 'ok' | 'error' | 'hang' | 'redirect' | 'flood';
let mode: Mode = 'ok';
let received: { headers: IncomingHttpHeaders; body: string; servername: string | false | null | undefined }[] = [];
let connections = 0;
let server: https.Server;
let port = 0;
let ca = '';

const SECRET = generateWebhookSecret();
const BODY = JSON.stringify({ type: 'job.completed', created_at: '2026-01-01T00:00:00Z', data: { job_id: 'j1', note: 'é ✓' } });

beforeAll(async () => {
  const pems = await makeTestCert(['hooks.customer.test']);
  pems.remove();
  ca = pems.cert;
  server = https.createServer({ key: pems.key, cert: pems.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        servername: (req.socket as import('node:tls').TLSSocket).servername,
      });
      if (mode === 'hang') return;
      if (mode === 'error') return void res.writeHead(500).end('boom');
      if (mode === 'redirect') return void res.writeHead(302, { location: 'https://169.254.169.254/' }).end();
      if (mode === 'flood') {
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        return pump();
      }
      res.writeHead(204).end();
    });
  });
  server.on('secureConnection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  mode = 'ok';
  received = [];
  connections = 0;
});

/** Resolves every name to 127.0.0.1 and counts calls, so tests never depend on real DNS. */
function loopbackLookup(): LookupAll & { calls: number } {
  const fn = Object.assign(
    async () => {
      fn.calls++;
      return [{ address: '127.0.0.1', family: 4 }];
    },
    { calls: 0 },
  );
  return fn;
}

const request = (url = `https://localhost:${port}/hooks/covercheck?tenant=7`) => ({
  url,
  id: 'msg_1',
  timestampS: Math.floor(Date.now() / 1000),
  body: BODY,
  secret: SECRET,
});

describe('deliverWebhook', () => {
  it('delivers a body the receiver verifies with the shared helper', async () => {
    const lookup = loopbackLookup();
    const req = request();
    const attempt = await deliverWebhook(req, { timeoutMs: 5_000, allowPrivate: true, ca, lookup });
    expect(attempt).toMatchObject({ ok: true, status: 204, error: null });
    expect(attempt.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    const got = received[0]!;
    expect(got.body).toBe(BODY);
    expect(verifyWebhook(SECRET, got.headers, got.body)).toEqual(JSON.parse(BODY));
    expect(got.headers['webhook-id']).toBe('msg_1');
    expect(got.headers['webhook-timestamp']).toBe(String(req.timestampS));
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['content-length']).toBe(String(Buffer.byteLength(BODY)));
    expect(got.headers['user-agent']).toBe('Covercheck-Webhooks/1');
    expect(lookup.calls).toBe(1);
  });

  it('connects to the checked address and checks the certificate against the host name', async () => {
    // The system resolver knows nothing of .test names: success means the socket used the pinned address.
    const attempt = await deliverWebhook(request(`https://hooks.customer.test:${port}/x`), {
      timeoutMs: 5_000,
      allowPrivate: true,
      ca,
      lookup: loopbackLookup(),
    });
    expect(attempt).toMatchObject({ ok: true, status: 204 });
    expect(received[0]!.servername).toBe('hooks.customer.test');
  });

  it('reports a 500 answer as a failure with its status', async () => {
    mode = 'error';
    expect(await deliverWebhook(request(), { timeoutMs: 5_000, allowPrivate: true, ca, lookup: loopbackLookup() })).toMatchObject({
      ok: false,
      status: 500,
      error: 'HTTP 500',
    });
  });

  it('does not follow a redirect', async () => {
    mode = 'redirect';
    expect(await deliverWebhook(request(), { timeoutMs: 5_000, allowPrivate: true, ca, lookup: loopbackLookup() })).toMatchObject({
      ok: false,
      status: 302,
      error: 'HTTP 302',
    });
    expect(received).toHaveLength(1);
  });

  it('gives up on a receiver that never answers after timeoutMs', async () => {
    mode = 'hang';
    const started = Date.now();
    const attempt = await deliverWebhook(request(), { timeoutMs: 300, allowPrivate: true, ca, lookup: loopbackLookup() });
    const elapsed = Date.now() - started;
    expect(attempt).toMatchObject({ ok: false, status: null, error: 'timed out after 300 ms' });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(300 + 1_000);
    expect(received).toHaveLength(1);
  });

  it('times out a lookup that never answers', async () => {
    const never: LookupAll = () => new Promise(() => {});
    const attempt = await deliverWebhook(request(), { timeoutMs: 200, allowPrivate: true, ca, lookup: never });
    expect(attempt).toMatchObject({ ok: false, status: null, error: 'timed out after 200 ms' });
    expect(connections).toBe(0);
  });

  it('stops reading an endless response body and keeps the status', async () => {
    mode = 'flood';
    const attempt = await deliverWebhook(request(), { timeoutMs: 5_000, allowPrivate: true, ca, lookup: loopbackLookup() });
    expect(attempt).toMatchObject({ ok: true, status: 200, error: null });
    expect(attempt.durationMs).toBeLessThan(5_000);
  });

  it('refuses a private address without connecting when private targets are not allowed', async () => {
    const attempt = await deliverWebhook(request(`https://127.0.0.1:${port}/hook`), { timeoutMs: 5_000, allowPrivate: false, ca });
    expect(attempt).toMatchObject({ ok: false, status: null, error: `refused: ${ADDRESS_NOT_ALLOWED}` });
    expect(connections).toBe(0);
    expect(received).toHaveLength(0);
  });

  it('refuses a host that rebinds to a private address after passing the registration check', async () => {
    let calls = 0;
    // Public at registration, loopback at delivery: the classic DNS rebinding move.
    const rebinding: LookupAll = async () =>
      calls++ === 0 ? [{ address: '93.184.215.14', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const url = `https://localhost:${port}/hook`;
    expect((await checkWebhookUrl(url, { allowPrivate: false, lookup: rebinding })).ok).toBe(true);
    const attempt = await deliverWebhook(request(url), { timeoutMs: 5_000, allowPrivate: false, ca, lookup: rebinding });
    expect(attempt).toMatchObject({ ok: false, status: null, error: `refused: ${ADDRESS_NOT_ALLOWED}` });
    expect(connections).toBe(0);
  });

  it('refuses http before any lookup', async () => {
    const lookup = loopbackLookup();
    const attempt = await deliverWebhook(request(`http://localhost:${port}/`), { timeoutMs: 5_000, allowPrivate: true, lookup });
    expect(attempt).toMatchObject({ ok: false, status: null, error: 'refused: webhook_url must use https' });
    expect(lookup.calls).toBe(0);
  });

  it('fails with a TLS error when the certificate is not trusted', async () => {
    const attempt = await deliverWebhook(request(), { timeoutMs: 5_000, allowPrivate: true, lookup: loopbackLookup() });
    expect(attempt.ok).toBe(false);
    expect(attempt.status).toBeNull();
    expect(attempt.error).toMatch(/^TLS error: .*\(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
    expect(received).toHaveLength(0);
  });

  it('fails with a TLS error when the certificate does not name the host', async () => {
    const attempt = await deliverWebhook(request(`https://other.customer.test:${port}/`), {
      timeoutMs: 5_000,
      allowPrivate: true,
      ca,
      lookup: loopbackLookup(),
    });
    expect(attempt).toMatchObject({ ok: false, status: null });
    expect(attempt.error).toMatch(/^TLS error: .*\(ERR_TLS_CERT_ALTNAME_INVALID\)/);
    expect(received).toHaveLength(0);
  });

  it('reports a refused connection', async () => {
    const closed = https.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const freePort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const attempt = await deliverWebhook(request(`https://localhost:${freePort}/`), {
      timeoutMs: 5_000,
      allowPrivate: true,
      ca,
      lookup: loopbackLookup(),
    });
    expect(attempt).toMatchObject({ ok: false, status: null, error: 'connection refused' });
  });

  it('uses a clock it is given for durationMs', async () => {
    let t = 1_000;
    const attempt = await deliverWebhook(request(), {
      timeoutMs: 5_000,
      allowPrivate: true,
      ca,
      lookup: loopbackLookup(),
      now: () => (t += 7),
    });
    expect(attempt).toMatchObject({ ok: true, durationMs: 7 });
  });
});
