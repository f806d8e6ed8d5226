/**
 * The memory budget of request bodies (http/body-budget.ts): the counts themselves, then the two body
 * readers (jsonBody, readUpload) on a real HTTP server, reserving as bytes arrive (or the declared
 * length up front) and giving every byte back however the request ends: answered, refused (too large,
 * malformed, past the budget), the client gone, the server's request timeout, the handler failing.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../connector/src/errors.js';
import { BodyBudget, BodyLease, leaseBodyBudget } from '../../connector/src/http/body-budget.js';
import { errorHandler } from '../../connector/src/http/errors.js';
import { jsonBody } from '../../connector/src/http/json-body.js';
import { readUpload } from '../../connector/src/http/multipart.js';
import { createLogger } from '../../connector/src/logger.js';
import { multipartBody, parseResponse, sendRaw, type RawResponse } from '../helpers/raw-http.js';

const KB = 1024;
const MB = 1024 * KB;

function refusal(f: () => void): AppError {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('not refused');
}

describe('BodyBudget and BodyLease', () => {
  it('reserve within the client share and the total; past the share 429, past the total 503, both with a retry delay; nothing reserved by a refusal', () => {
    const b = new BodyBudget({ totalBytes: 10, perClientBytes: 4 });
    b.reserve('a', 4);
    expect(refusal(() => b.reserve('a', 1))).toMatchObject({ code: 'rate_limit_exceeded', status: 429, retryAfter: expect.any(Number) });
    b.reserve('b', 4);
    expect(refusal(() => b.reserve('c', 3))).toMatchObject({ code: 'service_unavailable', status: 503, retryAfter: expect.any(Number) });
    expect([b.reserved(), b.reserved('a'), b.reserved('b'), b.reserved('c')]).toEqual([8, 4, 4, 0]);
    b.release('a', 4);
    b.reserve('c', 2);
    expect([b.reserved(), b.reserved('a'), b.reserved('c')]).toEqual([6, 0, 2]);
  });
  it('a lease covers what has arrived (growing only), gives it all back once, and reserves nothing after its end', () => {
    const b = new BodyBudget({ totalBytes: 100, perClientBytes: 50 });
    const lease = new BodyLease(b, 'a');
    lease.cover(10);
    lease.cover(30);
    lease.cover(20);
    expect([lease.held, b.reserved('a')]).toEqual([30, 30]);
    expect(refusal(() => lease.cover(51)).code).toBe('rate_limit_exceeded');
    expect(lease.held).toBe(30);
    lease.end();
    lease.end();
    lease.cover(40);
    expect([lease.held, b.reserved(), b.reserved('a')]).toEqual([0, 0, 0]);
  });
});

describe('the body readers on a real server', () => {
  const SHARE = 2 * MB;
  const TOTAL = 5 * MB;
  const JSON_LIMIT = 3 * MB;
  const REQUEST_TIMEOUT_MS = 1500;
  const budget = new BodyBudget({ totalBytes: TOTAL, perClientBytes: SHARE });
  let server: http.Server;
  let port: number;

  beforeAll(async () => {
    const app = express();
    // The key as auth would set it: here named by a header.
    app.use((req, res, next) => {
      res.locals.apiKey = { id: String(req.headers['x-key'] ?? 'anonymous') };
      next();
    });
    app.use(leaseBodyBudget(budget));
    app.post('/json', ...jsonBody(JSON_LIMIT), (req, res) => res.json({ keys: Object.keys(req.body as object) }));
    app.post('/json-then-fail', ...jsonBody(JSON_LIMIT), () => {
      throw new Error('the handler failed');
    });
    app.post('/upload', async (req, res) => {
      const up = await readUpload(req, { fileField: 'file', maxFileBytes: 3 * MB, textFields: [] });
      res.json({ bytes: up.file?.content.length ?? 0 });
    });
    app.use(errorHandler(createLogger('silent')));
    server = http.createServer({ connectionsCheckingInterval: 100 }, app);
    // node enforces requestTimeout only with a headersTimeout no longer than it.
    server.headersTimeout = REQUEST_TIMEOUT_MS / 2;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  const base = () => `http://127.0.0.1:${port}`;

  /** Waits until `f()` holds (the server sees a close a moment after the client); fails naming what the budget holds. */
  async function until(f: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 3000;
    while (!f()) {
      if (Date.now() > deadline) throw new Error(`${what}: the budget still holds ${budget.reserved()} bytes`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  const released = () => until(() => budget.reserved() === 0, 'released');

  async function send(path: string, key: string, headers: [string, string][], body: Buffer): Promise<RawResponse> {
    const out = await sendRaw(base(), { method: 'POST', path, headers: [['X-Key', key], ...headers], body });
    if (!out.ok) throw new Error(out.reason);
    return out.response;
  }
  const json: [string, string] = ['Content-Type', 'application/json'];
  const multipart: [string, string] = ['Content-Type', 'multipart/form-data; boundary=XX'];

  interface Held {
    socket: net.Socket;
    answer: () => RawResponse | null;
    /** What the server sent, as text, and whether it closed the connection. */
    raw: () => { text: string; closed: boolean };
  }
  /** Sends a head declaring `declared` bytes (chunked when null) and the first `body` bytes, and holds the connection. */
  async function hold(
    path: string,
    key: string,
    type: [string, string],
    declared: number | null,
    body: Buffer,
    extra: [string, string][] = [],
  ): Promise<Held> {
    const socket = net.connect({ host: '127.0.0.1', port });
    let data = Buffer.alloc(0);
    let closed = false;
    socket.on('data', (d: Buffer) => (data = Buffer.concat([data, d])));
    socket.on('error', () => undefined);
    socket.on('close', () => (closed = true));
    const framing = declared === null ? 'Transfer-Encoding: chunked' : `Content-Length: ${declared}`;
    const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Key: ${key}\r\n${type[0]}: ${type[1]}\r\n${extra.map(([n, v]) => `${n}: ${v}\r\n`).join('')}${framing}\r\n\r\n`;
    const payload = declared === null ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n')]) : body;
    await new Promise<void>((r) => socket.write(Buffer.concat([Buffer.from(head), payload]), () => r()));
    return { socket, answer: () => parseResponse(data, 'POST', false), raw: () => ({ text: data.toString('latin1'), closed }) };
  }
  const jsonStart = (n: number) => Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(n - 8, 0x61)]);
  const fileStart = (n: number) => {
    const head = Buffer.from(
      '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n',
    );
    return Buffer.concat([head, Buffer.alloc(n - head.length, 0x20)]);
  };

  it('finished: a JSON body and an upload are read and their bytes given back once answered', async () => {
    expect((await send('/json', 'a', [json], Buffer.from('{"x":1}'))).status).toBe(200);
    const up = await send(
      '/upload',
      'a',
      [multipart],
      multipartBody('XX', [{ name: 'file', filename: 'a.pdf', type: 'application/pdf', data: Buffer.alloc(MB, 0x41) }]),
    );
    expect(JSON.parse(up.text)).toEqual({ bytes: MB });
    await released();
  });

  it('in flight: the declared length is reserved up front; past the key share 429 at once, another key still fits, past the total 503', async () => {
    const a1 = await hold('/json', 'a', json, 1.5 * MB, jsonStart(100 * KB));
    const u1 = await hold('/upload', 'b', multipart, 1.5 * MB, fileStart(100 * KB));
    await until(() => budget.reserved() === 3 * MB, 'both declared lengths reserved');
    expect([budget.reserved('key:a'), budget.reserved('key:b')]).toEqual([1.5 * MB, 1.5 * MB]);

    // Key a has 0.5 MB of its share left: a body declaring 1 MB is refused at once, with a retry delay, in the contract's body.
    const a2 = await hold('/json', 'a', json, MB, jsonStart(10 * KB));
    await until(() => a2.answer() !== null, 'a2 answered');
    expect(a2.answer()!.status).toBe(429);
    expect(a2.answer()!.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(a2.answer()!.text)).toMatchObject({ error: 'rate_limit_exceeded', code: 429, retry_after: expect.any(Number) });
    const a3 = await hold('/upload', 'a', multipart, MB, fileStart(10 * KB));
    await until(() => a3.answer() !== null, 'a3 answered');
    expect(a3.answer()!.status).toBe(429);

    // Key c fits 1.5 MB more (4.5 of 5 MB in all); key d then does not fit 1 MB in the total.
    const c1 = await hold('/json', 'c', json, 1.5 * MB, jsonStart(10 * KB));
    const d1 = await hold('/json', 'd', json, MB, jsonStart(10 * KB));
    await until(() => d1.answer() !== null, 'd1 answered');
    expect(d1.answer()!.status).toBe(503);
    expect(JSON.parse(d1.answer()!.text)).toMatchObject({ error: 'service_unavailable', code: 503, retry_after: expect.any(Number) });
    expect(budget.reserved()).toBe(4.5 * MB);
    expect([a1, u1, c1].map((h) => h.answer())).toEqual([null, null, null]);

    // Aborted: the clients leave mid-body.
    for (const h of [a1, u1, a2, a3, c1, d1]) h.socket.destroy();
    await released();
  });

  it('without a declared length, bytes are reserved as they arrive: a chunked body past the share is refused mid-way', async () => {
    const h = await hold('/json', 'a', json, null, jsonStart(MB));
    await until(() => budget.reserved('key:a') >= MB, 'the first megabyte reserved');
    expect(budget.reserved('key:a')).toBeLessThanOrEqual(SHARE);
    expect(h.answer()).toBeNull();
    const more = Buffer.alloc(1.5 * MB, 0x61);
    h.socket.write(Buffer.concat([Buffer.from(`${more.length.toString(16)}\r\n`), more, Buffer.from('\r\n')]));
    await until(() => h.answer() !== null, 'answered');
    expect(h.answer()!.status).toBe(429);
    h.socket.destroy();
    await released();
  });

  it('a compressed body is counted as it inflates: a small gzip body that inflates past the share is refused', async () => {
    const bomb = zlib.gzipSync(Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(2.5 * MB, 0x61), Buffer.from('"}')]));
    expect(bomb.length).toBeLessThan(100 * KB);
    const res = await send('/json', 'a', [json, ['Content-Encoding', 'gzip']], bomb);
    expect(res.status, res.text).toBe(429);
    // Within the share it is read.
    const small = zlib.gzipSync(Buffer.concat([Buffer.from('{"pad":"'), Buffer.alloc(MB, 0x61), Buffer.from('"}')]));
    expect((await send('/json', 'a', [json, ['Content-Encoding', 'gzip']], small)).status).toBe(200);
    await released();
  });

  it('refused or failed: too large (413, nothing reserved), malformed (400), corrupt coding (400), the handler failing (500)', async () => {
    expect((await send('/json', 'a', [json, ['Content-Length', String(JSON_LIMIT + 1)]], Buffer.alloc(0))).status).toBe(413);
    expect((await send('/upload', 'a', [multipart], Buffer.from('--XX\r\nno colon here\r\n\r\n%PDF-1.4\r\n--XX--\r\n'))).status).toBe(400);
    expect((await send('/json', 'a', [json, ['Content-Encoding', 'gzip']], Buffer.from('not gzip at all'))).status).toBe(400);
    expect((await send('/json', 'a', [json], Buffer.from('{"x": nope}'))).status).toBe(400);
    expect((await send('/json-then-fail', 'a', [json], Buffer.from('{"x":1}'))).status).toBe(500);
    await released();
  });

  it('timed out: a body still unfinished at the request timeout is ended by the server and given back', async () => {
    const h = await hold('/upload', 'a', multipart, MB, fileStart(10 * KB));
    await until(() => budget.reserved() === MB, 'reserved');
    // The server answers 408 and closes the connection; the client never left.
    await until(() => h.raw().closed, 'closed by the server');
    expect(h.raw().text).toMatch(/^HTTP\/1\.1 408 /);
    await released();
  });

  it('100 uploads left mid-body give back every byte', async () => {
    for (let i = 0; i < 100; i += 10) {
      const round = await Promise.all(
        Array.from({ length: 10 }, (_, j) =>
          (i + j) % 2
            ? hold('/json', `k${j}`, json, 200 * KB, jsonStart(50 * KB))
            : hold('/upload', `k${j}`, multipart, 200 * KB, fileStart(50 * KB)),
        ),
      );
      await until(() => budget.reserved() === 10 * 200 * KB, 'the round reserved');
      for (const h of round) h.socket.destroy();
    }
    await released();
    for (let j = 0; j < 10; j++) expect(budget.reserved(`key:k${j}`)).toBe(0);
  });
});
