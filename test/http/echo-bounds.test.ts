/**
 * Bounds on what a request can make the service write back or keep: an error message quotes at most a
 * short prefix of a received value, and an answer larger than MAX_STORED_RESPONSE_BYTES is never kept for
 * an Idempotency-Key replay (its claim is released instead).
 */
import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../connector/src/errors.js';
import { idempotency } from '../../connector/src/http/idempotency.js';
import { createLogger } from '../../connector/src/logger.js';
import { MAX_STORED_RESPONSE_BYTES } from '../../connector/src/store/idempotent-record.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer({ workers: false });
});
afterAll(async () => srv.close());

const HUGE = 5 * 1024 * 1024;
/** A few KB: the longest fixed wording of a refusal, with room to spare, and far below any echoed value. */
const SMALL_BODY = 4 * 1024;

describe('error messages quote a bounded prefix of a value', () => {
  it('a 5 MB country on /verify/async: 400 unsupported_country with a body of a few KB, and the value shown only in part', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const country = 'Q'.repeat(HUGE);
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: { policy_number: 'UKM-1000-0001', country, insurance_type: 'motor' },
    });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('unsupported_country');
    expect(JSON.stringify(r.body).length).toBeLessThan(SMALL_BODY);
    expect(r.body.message).toMatch(/Unsupported country: Q+…/);
  });

  it('the same with an Idempotency-Key: the small 400 is what is kept', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const headers = { 'idempotency-key': 'huge-country' };
    const body = { policy_number: 'UKM-1000-0001', country: 'Q'.repeat(HUGE), insurance_type: 'motor' };
    await call(srv.url, 'POST', '/api/v1/verify/async', { key, body, headers });
    const again = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body, headers });
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(JSON.stringify(again.body).length).toBeLessThan(SMALL_BODY);
  });

  it('a long insurance type, and insurance_type and type that disagree, each quoted in part', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const long = 'Z'.repeat(HUGE);
    const base = { policy_number: 'UKM-1000-0001', country: 'UK' };
    const unsupported = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...base, insurance_type: long } });
    expect(unsupported.body.error).toBe('unsupported_insurance_type');
    expect(JSON.stringify(unsupported.body).length).toBeLessThan(SMALL_BODY);
    const disagree = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...base, insurance_type: long, type: 'motor' } });
    expect(disagree.body.error).toBe('invalid_request');
    expect(JSON.stringify(disagree.body).length).toBeLessThan(SMALL_BODY);
  });

  it('many long unknown field names: the message names a bounded part of them', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const body: Record<string, string> = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
    for (let i = 0; i < 200; i++) body[`field_${i}_${'x'.repeat(20_000)}`] = '1';
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body).length).toBeLessThan(SMALL_BODY);
  });

  it('any AppError: the public message is cut to a bound whatever the thrower put in it', () => {
    const err = new AppError('invalid_request', `bad value ${'v'.repeat(HUGE)}`);
    expect(err.publicMessage.length).toBeLessThan(SMALL_BODY);
    expect(err.publicMessage.startsWith('bad value vvv')).toBe(true);
  });
});

describe('an answer over MAX_STORED_RESPONSE_BYTES is not kept for an Idempotency-Key', () => {
  /** The real middleware and store in front of a route that answers `size` characters. */
  async function app(size: number, keyId: string) {
    const a = express();
    const apiKey = await srv.store.keys.get(keyId);
    a.post(
      '/x',
      (_req, res, next) => {
        res.locals.apiKey = apiKey;
        next();
      },
      idempotency({ store: srv.store, logger: createLogger('silent'), now: () => new Date() }),
      (_req, res) => {
        res.status(200).json({ text: 'a'.repeat(size) });
      },
    );
    const server = a.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(r)) };
  }
  /** The hash the middleware gives a POST /x without a body. */
  const hash = crypto.createHash('sha256').update('POST /x\nnull').digest('hex');
  const claimed = (keyId: string, idemKey: string) =>
    srv.store.idempotency.begin(keyId, idemKey, hash, new Date().toISOString(), new Date(0).toISOString());
  /** The middleware saves after answering: wait until the claim is settled one way or the other. */
  async function settled(keyId: string, idemKey: string) {
    for (let i = 0; i < 200; i++) {
      const state = (await claimed(keyId, idemKey)).state;
      if (state !== 'in_progress') return state;
      await new Promise((r) => setTimeout(r, 10));
    }
    return 'in_progress';
  }

  it('a small answer is kept; one over the bound releases its claim, and a repeat runs again', async () => {
    const { id } = await srv.key({ mode: 'test' });
    for (const [size, idemKey, expected] of [
      [1_000, 'small', 'replay'],
      [MAX_STORED_RESPONSE_BYTES + 1, 'large', 'new'],
    ] as const) {
      const server = await app(size, id);
      try {
        const r = await fetch(`${server.url}/x`, { method: 'POST', headers: { 'idempotency-key': idemKey } });
        expect(r.status).toBe(200);
        expect((await r.text()).length).toBeGreaterThan(size);
        // 'replay': the answer was kept; 'new': the claim was released and nothing is kept.
        expect(await settled(id, idemKey)).toBe(expected);
      } finally {
        await server.close();
      }
    }
  });
});
