/** readUpload on a real HTTP server: how every upload settles, including one whose client leaves. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../connector/src/errors.js';
import { readUpload, type Upload } from '../../connector/src/http/multipart.js';
import { multipartBody, sendRaw } from '../helpers/raw-http.js';

type Settled = { ok: true; upload: Upload } | { ok: false; code: string; status: number; message: string };

let server: http.Server;
let base: string;
/** Resolved with how the next upload settled. */
let nextOutcome: (s: Settled) => void = () => {};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    // readUpload needs only req.is and the stream; a bare node request with `is` added will do.
    const expressLike = Object.assign(req, { is: (type: string) => ((req.headers['content-type'] ?? '').startsWith(type) ? type : false) });
    readUpload(expressLike as never, { fileField: 'file', maxFileBytes: 1024 * 1024, textFields: ['webhook_url'] }).then(
      (upload) => {
        nextOutcome({ ok: true, upload });
        res.end('ok');
      },
      (err: unknown) => {
        const e = err as AppError;
        nextOutcome(
          e instanceof AppError
            ? { ok: false, code: e.code, status: e.status, message: e.publicMessage }
            : { ok: false, code: 'not an AppError', status: 500, message: String(err) },
        );
        res.statusCode = e instanceof AppError ? e.status : 500;
        res.end();
      },
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

/** Sends `body` as a multipart upload and returns how readUpload settled (fails after 5 s: it hung). */
async function settle(body: Buffer, opts: { abortAfter?: number } = {}): Promise<Settled> {
  const outcome = new Promise<Settled>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('readUpload did not settle within 5 s')), 5000);
    nextOutcome = (s) => {
      clearTimeout(timer);
      resolve(s);
    };
  });
  void sendRaw(base, { method: 'POST', path: '/', headers: [['Content-Type', 'multipart/form-data; boundary=XX']], body, ...opts });
  return outcome;
}

const pdfPart = (data: string | Buffer = '%PDF-1.4 test') => ({ name: 'file', filename: 'a.pdf', type: 'application/pdf', data });

describe('readUpload', () => {
  it('reads one file and a text field', async () => {
    const out = await settle(multipartBody('XX', [pdfPart(), { name: 'webhook_url', data: 'https://hooks.example.com/x' }]));
    expect(out).toMatchObject({
      ok: true,
      upload: {
        file: { field: 'file', filename: 'a.pdf', content: Buffer.from('%PDF-1.4 test') },
        fields: { webhook_url: 'https://hooks.example.com/x' },
      },
    });
  });
  it('a file part without its closing boundary -> 400 invalid_request (before: an unhandled error event on the file stream)', async () => {
    const out = await settle(
      Buffer.from('--XX\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4 truncated'),
    );
    expect(out).toMatchObject({
      ok: false,
      code: 'invalid_request',
      status: 400,
      message: expect.stringMatching(/^Malformed multipart request: Unexpected end of (form|file)$/),
    });
  });
  it('a client that leaves mid-file -> 400 invalid_request (before: never settled)', async () => {
    const body = multipartBody('XX', [pdfPart(Buffer.alloc(500_000, 0x41))]);
    const out = await settle(body, { abortAfter: 100_000 });
    expect(out).toMatchObject({ ok: false, code: 'invalid_request', status: 400 });
  });
  it('a client that leaves inside a part header -> 400 invalid_request', async () => {
    const out = await settle(Buffer.from('--XX\r\nContent-Disposition: form-data; name="fi'), { abortAfter: 30 });
    expect(out).toMatchObject({ ok: false, code: 'invalid_request', status: 400 });
  });
  it('a file over the limit -> 413, the first refusal wins over later ones', async () => {
    const out = await settle(multipartBody('XX', [pdfPart(Buffer.alloc(1024 * 1024 + 1, 0x41)), { name: 'colour', data: 'red' }]));
    expect(out).toMatchObject({ ok: false, code: 'payload_too_large', status: 413 });
  });
});
