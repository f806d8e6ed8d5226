/**
 * Hostile requests: requests that could crash the connector, stall it or be answered 500 are
 * refused with a 4xx in the contract's error body;
 * secrets kept out of the request log; a second Authorization header refused.
 */
import net from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZAccountSchema } from '../../shared/account.js';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { createLogger } from '../../connector/src/logger.js';
import { encodeRequest, multipartBody, parseResponse, sendRaw, type RawRequest, type RawResponse } from '../helpers/raw-http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
let key: string;
const logged: Record<string, unknown>[] = [];

beforeAll(async () => {
  const logger = createLogger('info', { write: (line: string) => void logged.push(JSON.parse(line) as Record<string, unknown>) });
  srv = await startTestServer({ workers: false, logger });
  key = (await srv.key({ mode: 'test' })).key;
});
afterAll(async () => srv.close());

async function send(req: RawRequest): Promise<RawResponse> {
  const out = await sendRaw(srv.url, req);
  if (!out.ok) throw new Error(`${req.method} ${req.path}: ${out.reason}`);
  return out.response;
}

/** A 4xx with the contract's error body and the given code; the server still answers /healthz. */
async function expectRefused(req: RawRequest, status: number, error: string): Promise<RawResponse> {
  const res = await send(req);
  expect(res.status, res.text).toBe(status);
  expect(ZErrorBodySchema.parse(JSON.parse(res.text))).toMatchObject({ error, code: status });
  expect((await send({ method: 'GET', path: '/healthz', headers: [] })).status).toBe(200);
  return res;
}

const auth = (): [string, string] => ['Authorization', `Bearer ${key}`];
const json: [string, string] = ['Content-Type', 'application/json'];
const policy = Buffer.from(JSON.stringify({ policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' }));
const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;

describe('multipart uploads that end badly are a 400, never a crash', () => {
  const upload = (body: Buffer, boundary = 'XX'): RawRequest => ({
    method: 'POST',
    path: '/api/v1/documents/extract',
    headers: [auth(), ['Content-Type', `multipart/form-data; boundary=${boundary}`]],
    body,
  });

  it('a file part that never reaches its closing boundary -> 400 invalid_request', async () => {
    const body = Buffer.from(
      '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 truncated',
    );
    const res = await expectRefused(upload(body), 400, 'invalid_request');
    expect(JSON.parse(res.text).message).toMatch(/Unexpected end of (form|file)/);
  });
  it('a form cut inside a part header, a malformed header, a wrong boundary, no boundary -> 400', async () => {
    await expectRefused(upload(Buffer.from('--XX\r\nContent-Disposition: form-da')), 400, 'invalid_request');
    await expectRefused(upload(Buffer.from('--XX\r\nno colon here\r\n\r\n%PDF-1.4\r\n--XX--\r\n')), 400, 'invalid_request');
    const form = multipartBody('AAA', [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 x' }]);
    await expectRefused(upload(form, 'BBB'), 400, 'invalid_request');
    await expectRefused({ ...upload(form), headers: [auth(), ['Content-Type', 'multipart/form-data']] }, 400, 'invalid_request');
  });
  it('a truncated second part after a whole file part -> 400, the file is not taken', async () => {
    const whole = multipartBody('XX', [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 whole' }], {
      close: false,
    });
    const jobsBefore = await srv.store.jobs.pendingCount('extraction');
    await expectRefused(
      upload(Buffer.concat([whole, Buffer.from('--XX\r\nContent-Disposition: form-data; name="webhook_url"\r\n\r\nhttps://ex')])),
      400,
      'invalid_request',
    );
    expect(await srv.store.jobs.pendingCount('extraction')).toBe(jobsBefore);
  });
  it('a compressed multipart body -> 415 (busboy inflates nothing)', async () => {
    const form = zlib.gzipSync(multipartBody('XX', [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: '%PDF-1.4 x' }]));
    await expectRefused(
      { ...upload(form), headers: [...upload(form).headers, ['Content-Encoding', 'gzip']] },
      415,
      'unsupported_media_type',
    );
  });
  it('a client that leaves mid-upload leaves the server answering', async () => {
    const form = multipartBody('XX', [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: Buffer.alloc(200_000, 0x41) }]);
    for (let i = 0; i < 5; i++) await sendRaw(srv.url, { ...upload(form), abortAfter: 1000 + i * 30_000 });
    expect((await send({ method: 'GET', path: '/healthz', headers: [] })).status).toBe(200);
  });
});

describe('nesting depth and value count are bounded before JSON.parse, for every JSON route', () => {
  it('nesting past 32 levels -> 400 invalid_json naming the limit; 32 levels parse (and the route judges them)', async () => {
    const deep = await expectRefused(
      { method: 'POST', path: '/api/v1/verify/async', headers: [auth(), json], body: Buffer.from(`{"provider":${nested(32)}}`) },
      400,
      'invalid_json',
    );
    expect(JSON.parse(deep.text).message).toBe('The JSON body is nested more than 32 levels deep.');
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify/async', headers: [auth(), json], body: Buffer.from(`{"provider":${nested(31)}}`) },
      400,
      'invalid_request',
    );
  });
  it('depth 9e6, gzipped to ~17 KB, on /verify/async -> 400 at once', async () => {
    const body = zlib.gzipSync(`{"provider":${nested(9_000_000)}}`);
    expect(body.length).toBeLessThan(40_000);
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify/async', headers: [auth(), json, ['Content-Encoding', 'gzip']], body },
      400,
      'invalid_json',
    );
  });
  it('more than 10,000 values -> 400 invalid_json', async () => {
    const body = Buffer.from(`{"policies":[${'0,'.repeat(10_000)}0]}`);
    const res = await expectRefused({ method: 'POST', path: '/api/v1/verify/batch', headers: [auth(), json], body }, 400, 'invalid_json');
    expect(JSON.parse(res.text).message).toMatch(/more than 10000 values/);
  });
  it('brackets inside strings do not count', async () => {
    const body = Buffer.from(
      JSON.stringify({
        policy_number: 'UKM-1000-0001',
        country: 'UK',
        insurance_type: 'motor',
        provider: `${'['.repeat(90)}\\"${'{'.repeat(90)}`,
      }),
    );
    const res = await send({ method: 'POST', path: '/api/v1/verify', headers: [auth(), json], body });
    expect(res.status, res.text).toBe(200);
  });
  it.each(['gzip', 'deflate', 'br'] as const)('a %s bomb is cut at the inflated limit -> 413', async (coding) => {
    const plain = Buffer.alloc(50 * 1024 * 1024, 0x20);
    const body = coding === 'gzip' ? zlib.gzipSync(plain) : coding === 'deflate' ? zlib.deflateSync(plain) : zlib.brotliCompressSync(plain);
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['Content-Encoding', coding]], body },
      413,
      'payload_too_large',
    );
  });
  it('zstd, stacked codings and unknown codings -> 415, on node versions with and without zstd', async () => {
    for (const coding of ['zstd', 'gzip, gzip', 'compress', 'x-gzip', 'identity, gzip']) {
      await expectRefused(
        { method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['Content-Encoding', coding]], body: policy },
        415,
        'unsupported_media_type',
      );
    }
  });
  it('gzip, deflate and br bodies are read (case-insensitively named)', async () => {
    for (const [coding, body] of [
      ['gzip', zlib.gzipSync(policy)],
      ['Deflate', zlib.deflateSync(policy)],
      ['BR', zlib.brotliCompressSync(policy)],
    ] as const) {
      const res = await send({ method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['Content-Encoding', coding]], body });
      expect(res.status, `${coding}: ${res.text}`).toBe(200);
    }
  });
});

describe('client errors are 4xx in the contract body, never a 500', () => {
  const routes = ['/api/v1/verify', '/api/v1/verify/async', '/api/v1/verify/batch', '/api/v1/sheets/schedules'];
  it.each(['gzip', 'deflate', 'br'] as const)('a corrupt %s body -> 400 on every JSON route', async (coding) => {
    for (const path of routes) {
      const res = await expectRefused(
        { method: 'POST', path, headers: [auth(), json, ['Content-Encoding', coding]], body: Buffer.from('this is not compressed at all') },
        400,
        'invalid_request',
      );
      expect(JSON.parse(res.text).message, path).toMatch(/not valid for its Content-Encoding/);
    }
  });
  it('a truncated gzip body and a plain body labelled gzip -> 400', async () => {
    await expectRefused(
      {
        method: 'POST',
        path: '/api/v1/verify',
        headers: [auth(), json, ['Content-Encoding', 'gzip']],
        body: zlib.gzipSync(policy).subarray(0, 20),
      },
      400,
      'invalid_request',
    );
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['Content-Encoding', 'gzip']], body: policy },
      400,
      'invalid_request',
    );
  });
  it('deep nesting with an Idempotency-Key (JSON.stringify overflowed) -> 400 invalid_json', async () => {
    await expectRefused(
      {
        method: 'POST',
        path: '/api/v1/verify',
        headers: [auth(), json, ['Idempotency-Key', 'deep-1']],
        body: Buffer.from(`{"provider":${nested(20_000)}}`),
      },
      400,
      'invalid_json',
    );
  });
  it('deep nesting inside a batch item -> 400 invalid_json', async () => {
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify/batch', headers: [auth(), json], body: Buffer.from(`{"policies":[${nested(20_000)}]}`) },
      400,
      'invalid_json',
    );
  });
  it('JSON in UTF-16 -> 415 (RFC 8259: UTF-8)', async () => {
    const body = Buffer.from(policy.toString(), 'utf16le');
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), ['Content-Type', 'application/json; charset=utf-16']], body },
      415,
      'unsupported_media_type',
    );
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), ['Content-Type', 'application/json; charset=klingon']], body: policy },
      415,
      'unsupported_media_type',
    );
  });
  it('a path parameter that is not valid percent-encoding -> 400', async () => {
    await expectRefused({ method: 'GET', path: '/api/v1/jobs/%E0%A4%A', headers: [auth()] }, 400, 'invalid_request');
  });
  it('requests node refuses before the app: the contract body, 400 or 431', async () => {
    await expectRefused({ method: 'GET', path: '/api/v1/account', headers: [auth(), ['Bad Header', 'x']] }, 400, 'invalid_request');
    await expectRefused(
      {
        method: 'POST',
        path: '/api/v1/verify',
        headers: [auth(), json, ['Content-Length', '5'], ['Transfer-Encoding', 'chunked']],
        body: policy,
      },
      400,
      'invalid_request',
    );
    await expectRefused(
      { method: 'GET', path: '/api/v1/account', headers: [auth(), ['X-Big', 'a'.repeat(20_000)]] },
      431,
      'headers_too_large',
    );
  });
  it('the refusal reaches a client still sending a large body (lingering close, not a reset)', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 0x20);
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['Bad Header', 'x']], body },
      400,
      'invalid_request',
    );
    await expectRefused(
      { method: 'POST', path: '/api/v1/verify', headers: [auth(), json, ['X-Big', 'a'.repeat(20_000)]], body },
      431,
      'headers_too_large',
    );
  });
  describe('a large body the server answers before reading: the answer, then a graceful close, never a reset', () => {
    // What the fuzz's case 340 of seed 17 sent (HEAD /documents/extract, a 14 MB multipart body, no
    // framing): for HTTP/1.1 an unframed body is the next request, so node's parser refuses its bytes
    // while the request in front of them is answered.
    const unframed = Buffer.concat([
      Buffer.from('--\'()+_,-./:=?\r\nContent-Disposition: form-data; name="file"\r\n\r\n%PDF-1.7\n'),
      Buffer.alloc(16 * 1024 * 1024, 0x20),
    ]);
    const withoutLength = (method: string, path: string, headers: [string, string][] = []): RawRequest => ({
      method,
      path,
      headers,
      body: unframed,
      contentLength: false,
    });

    /**
     * Sends it all and waits for the connection to end, keeping any socket error: a server that
     * closes on unread bytes resets the connection, which fails the client's write (and, by timing,
     * may discard the answer before it is read: the fuzz saw 0 bytes).
     */
    function exchange(req: RawRequest): Promise<{ response: RawResponse | null; error: string | null }> {
      const url = new URL(srv.url);
      return new Promise((resolve) => {
        const chunks: Buffer[] = [];
        let error: string | null = null;
        const socket = net.connect(Number(url.port), url.hostname, () => socket.write(encodeRequest(url.host, req)));
        socket.on('data', (c: Buffer) => chunks.push(c));
        socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
        socket.on('close', () => resolve({ response: parseResponse(Buffer.concat(chunks), req.method), error }));
      });
    }
    async function expectAnswered(req: RawRequest, status: number): Promise<RawResponse> {
      const { response, error } = await exchange(req);
      expect(error, 'the connection was reset').toBeNull();
      expect(response?.status, response?.text).toBe(status);
      expect((await send({ method: 'GET', path: '/healthz', headers: [] })).status).toBe(200);
      return response!;
    }

    it('a route answered at once gets its 404 and a graceful close, not a reset', async () => {
      const res = await expectAnswered(withoutLength('GET', '/api/v1/nowhere'), 404);
      expect(ZErrorBodySchema.parse(JSON.parse(res.text))).toMatchObject({ error: 'not_found', code: 404 });
    });
    it('the fuzz case: HEAD /api/v1/documents/extract?%E0%A4%A with the multipart body unframed -> 404', async () => {
      const res = await expectAnswered(
        withoutLength('HEAD', '/api/v1/documents/extract?%E0%A4%A', [
          auth(),
          ['Content-Type', "multipart/form-data; boundary='()+_,-./:=?"],
        ]),
        404,
      );
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });
    it('a route that answers later (auth looks the key up) gets its own answer first, not the refusal of the bytes after it', async () => {
      const res = await expectAnswered(withoutLength('GET', '/api/v1/account', [auth()]), 200);
      expect(ZAccountSchema.parse(JSON.parse(res.text)).mode).toBe('test');
    });
    it('a client that asks to close (Connection: close) still gets the answer, then a graceful close', async () => {
      const res = await expectAnswered(withoutLength('GET', '/api/v1/nowhere', [['Connection', 'close']]), 404);
      expect(res.headers.connection).toBe('close');
      expect(ZErrorBodySchema.parse(JSON.parse(res.text))).toMatchObject({ error: 'not_found', code: 404 });
    });
    it('a framed body refused before it is read, on a closing connection (401 on a 16 MB upload without a key), is read off, not reset', async () => {
      const upload = multipartBody('b', [{ name: 'file', filename: 'big.pdf', type: 'application/pdf', data: unframed }]);
      const res = await expectAnswered(
        {
          method: 'POST',
          path: '/api/v1/documents/extract',
          headers: [
            ['Content-Type', 'multipart/form-data; boundary=b'],
            ['Connection', 'close'],
          ],
          body: upload,
        },
        401,
      );
      expect(ZErrorBodySchema.parse(JSON.parse(res.text))).toMatchObject({ error: 'unauthorized', code: 401 });
    });
  });
  it('CONNECT and an unknown Expect get the contract, not a dropped connection or an empty 417', async () => {
    await expectRefused({ method: 'CONNECT', path: 'example.com:443', headers: [auth()] }, 400, 'invalid_request');
    const res = await send({ method: 'GET', path: '/api/v1/account', headers: [auth(), ['Expect', 'something-else']] });
    expect(res.status).toBe(200);
  });

  describe('portal POSTs keep their HTML pages, with a 4xx status', () => {
    const form = (headers: [string, string][], body = Buffer.from('who=Ada&mode=test')): RawRequest => ({
      method: 'POST',
      path: '/portal/keys',
      headers,
      body,
    });
    const expectPage = async (req: RawRequest, status: number) => {
      const res = await send(req);
      expect(res.status, res.text.slice(0, 200)).toBe(status);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toContain('The form could not be read');
    };
    it('charset=utf-16 -> 415', () => expectPage(form([['Content-Type', 'application/x-www-form-urlencoded; charset=utf-16']]), 415));
    it('Content-Encoding: zstd -> 415', () =>
      expectPage(
        form([
          ['Content-Type', 'application/x-www-form-urlencoded'],
          ['Content-Encoding', 'zstd'],
        ]),
        415,
      ));
    it('a corrupt gzip form -> 400', () =>
      expectPage(
        form([
          ['Content-Type', 'application/x-www-form-urlencoded'],
          ['Content-Encoding', 'gzip'],
        ]),
        400,
      ));
    it('a form over 4 KB -> 413', () =>
      expectPage(form([['Content-Type', 'application/x-www-form-urlencoded']], Buffer.from(`who=${'a'.repeat(5000)}`)), 413));
  });
});

describe('the request log never holds an activation token or a key', () => {
  it('GET /portal/activate?%74oken=... is logged with the token redacted', async () => {
    const secret = 'S3cr3tActivationToken0123456789';
    for (const name of ['token', '%74oken', 'to%6Ben', 'TOKEN', '%54OKEN']) {
      await send({ method: 'GET', path: `/portal/activate?${name}=${secret}&x=1`, headers: [] });
    }
    await send({ method: 'GET', path: `/api/v1/jobs/pk_live_${'A'.repeat(44)}`, headers: [] });
    const lines = logged.filter(
      (l) => typeof l.url === 'string' && (String(l.url).startsWith('/portal/activate') || String(l.url).startsWith('/api/v1/jobs/pk_')),
    );
    expect(lines).toHaveLength(6);
    expect(JSON.stringify(logged)).not.toContain(secret);
    expect(JSON.stringify(logged)).not.toContain('A'.repeat(44));
    expect(lines.map((l) => l.url)).toContain('/portal/activate?%74oken=[redacted]&x=1');
  });
});

describe('two Authorization headers are refused, wherever a key is read', () => {
  it.each([
    ['GET', '/api/v1/account'],
    ['GET', '/api/v1/datasets'],
    ['POST', '/api/v1/verify'],
  ])('%s %s -> 401 unauthorized, even when the first key is valid', async (method, path) => {
    const headers: [string, string][] = [auth(), ['Authorization', 'Bearer pk_test_other'], json];
    const res = await expectRefused({ method, path, headers, ...(method === 'POST' ? { body: policy } : {}) }, 401, 'unauthorized');
    expect(JSON.parse(res.text).message).toBe('Send one Authorization header; this request has 2.');
  });
  it('one Authorization header still works, and a lower-case duplicate is still a duplicate', async () => {
    expect((await send({ method: 'GET', path: '/api/v1/account', headers: [auth()] })).status).toBe(200);
    await expectRefused(
      { method: 'GET', path: '/api/v1/account', headers: [auth(), ['authorization', `Bearer ${key}`]] },
      401,
      'unauthorized',
    );
  });
});

describe('nothing above was logged as a server error', () => {
  it('no request ended in a 5xx or an error log line', () => {
    expect(logged.filter((l) => (l.level as number) >= 50 || (typeof l.status === 'number' && l.status >= 500))).toEqual([]);
  });
});
