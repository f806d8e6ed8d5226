/**
 * A refused webhook_url says only that its address is not allowed: never what the host resolved to nor
 * which class of address that is, so the answer is no probe of the connector's internal DNS. The detail
 * stays with the refusal for the server's own use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWebhookUrl, type LookupAll } from '../../connector/src/webhooks/url-guard.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const INTERNAL: Record<string, string> = {
  'db.internal': '10.9.8.7',
  'metadata.internal': '169.254.169.254',
  'self.internal': '127.0.0.1',
  'hooks.example.com': '93.184.215.14',
};
const lookup: LookupAll = async (host) => {
  const address = INTERNAL[host];
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};
const SAID = /10\.9\.8\.7|169\.254|127\.0\.0\.1|private|loopback|link-local|resolves to/;

describe('checkWebhookUrl: the refusal of an internal address', () => {
  it('is the same words whatever the host resolved to, naming neither the address nor its class', async () => {
    const reasons = new Set<string>();
    for (const host of ['db.internal', 'metadata.internal', 'self.internal', '127.0.0.1', '[::1]']) {
      const r = await checkWebhookUrl(`https://${host}/hook`, { allowPrivate: false, lookup });
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.reason).not.toMatch(SAID);
      reasons.add(r.reason);
    }
    expect(reasons.size).toBe(1);
  });

  it('keeps the class and address as an internal detail', async () => {
    const r = await checkWebhookUrl('https://metadata.internal/hook', { allowPrivate: false, lookup });
    expect(r).toMatchObject({ ok: false, detail: 'link-local: 169.254.169.254' });
  });
});

describe('through the API', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ workers: false, lookup });
  });
  afterAll(async () => srv.close());

  it('/verify/async and /verify/batch answer 400 invalid_webhook_url without the resolved address', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };
    for (const host of ['db.internal', 'metadata.internal', 'self.internal']) {
      const webhook_url = `https://${host}/hook`;
      const single = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: { ...policy, webhook_url } });
      const batch = await call(srv.url, 'POST', '/api/v1/verify/batch', { key, body: { policies: [policy], webhook_url } });
      for (const r of [single, batch]) {
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ error: 'invalid_webhook_url', code: 400 });
        expect(JSON.stringify(r.body)).not.toMatch(SAID);
      }
    }
    // A public host is accepted, so the refusals above are about the address.
    const ok = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: { ...policy, webhook_url: 'https://hooks.example.com/hook' },
    });
    expect(ok.status).toBe(202);
  });
});
