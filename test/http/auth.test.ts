import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
let srv: TestServer;

beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => srv.close());

describe('authentication (spec 5)', () => {
  it('missing Authorization header -> 401 unauthorized', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { body: policy });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'unauthorized', message: expect.stringContaining('Bearer'), code: 401 });
  });
  it('a scheme other than Bearer -> 401 unauthorized', async () => {
    const { key } = await srv.key();
    const r = await call(srv.url, 'POST', '/api/v1/verify', { body: policy, headers: { authorization: `Basic ${key}` } });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('unauthorized');
  });
  it('a key without pk_live_/pk_test_ prefix -> 401 unauthorized', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: 'sk_live_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH', body: policy });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('unauthorized');
  });
  it('a well-formed key that does not exist -> 401 invalid_api_key', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: 'pk_live_' + 'A'.repeat(44), body: policy });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ error: 'invalid_api_key', message: 'Unknown or revoked API key.', code: 401 });
  });
  it('a malformed key with a valid prefix -> 401 invalid_api_key', async () => {
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: 'pk_test_short', body: policy });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });
  it('a real key with one secret character changed -> 401 invalid_api_key', async () => {
    const { key } = await srv.key();
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: key.slice(0, -1) + last, body: policy });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });
  it('a live key presented with the test prefix -> 401 invalid_api_key', async () => {
    const { key } = await srv.key({ mode: 'live' });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key: key.replace('pk_live_', 'pk_test_'), body: policy });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });
  it('a revoked key -> 401 invalid_api_key', async () => {
    const { key, id } = await srv.key();
    expect((await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy })).status).toBe(200);
    await srv.store.keys.revoke(id, new Date().toISOString());
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('invalid_api_key');
  });
  it('a key without the verify scope -> 403 insufficient_scope', async () => {
    const { key } = await srv.key({ scopes: ['datasets'] });
    const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body: policy });
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'insufficient_scope', message: expect.stringContaining('"verify"'), code: 403 });
  });
  it('a valid key passes and records last use', async () => {
    const { key, id } = await srv.key({ mode: 'test' });
    expect((await srv.store.keys.get(id))!.last_used_at).toBeNull();
    const r = await call(srv.url, 'GET', '/api/v1/account', { key });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ key_id: id, mode: 'test', scopes: ['verify', 'extract', 'datasets'], credits: { charged: false } });
    expect((await srv.store.keys.get(id))!.last_used_at).not.toBeNull();
  });
  it('stores only a hash of the key', async () => {
    const { key, id } = await srv.key();
    const rec = (await srv.store.keys.get(id))!;
    expect(JSON.stringify(rec)).not.toContain(key.slice(20));
    expect(rec.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});
