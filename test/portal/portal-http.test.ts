/** The portal over HTTP without a browser: CSRF, rate limits, headers, the outbox mailer, the log. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activationLink, FormClient, shownKey, startPortalServer, type PortalServer } from './harness.js';

let srv: PortalServer;
let limited: PortalServer;
beforeAll(async () => {
  [srv, limited] = await Promise.all([
    startPortalServer(),
    startPortalServer({ COVERCHECK_PORTAL_PER_ADDRESS_PER_DAY: '2', COVERCHECK_PORTAL_PER_IP_PER_HOUR: '4' }),
  ]);
});
afterAll(async () => Promise.all([srv?.close(), limited?.close()]));

describe('portal forms over HTTP', () => {
  it('a name gets a key at once, with no-store, no-referrer and an HttpOnly SameSite cookie', async () => {
    const c = new FormClient(srv.url);
    const page = await c.get('/portal');
    expect(page.status).toBe(200);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('set-cookie')).toMatch(/HttpOnly/i);
    expect(page.headers.get('set-cookie')).toMatch(/SameSite=Strict/i);
    expect(page.html).toContain('source control');
    const r = await c.post('/portal/keys', { who: 'ci-bot', mode: 'live' });
    expect(r.status).toBe(201);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const key = shownKey(r.html)!;
    expect(key).toMatch(/^pk_live_/);
    const account = await fetch(`${srv.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ plan: 'free' });
  });

  it("refuses a POST without the CSRF field, without the cookie, or with another browser's token", async () => {
    const before = (await srv.store.keys.list()).length;
    const a = new FormClient(srv.url);
    await a.get('/portal');
    const b = new FormClient(srv.url);
    await b.get('/portal');
    expect((await a.post('/portal/keys', { who: 'x' }, { csrf: null })).status).toBe(403);
    expect((await a.post('/portal/keys', { who: 'x' }, { cookie: null })).status).toBe(403);
    expect((await a.post('/portal/keys', { who: 'x' }, { csrf: b.csrf })).status).toBe(403);
    expect((await a.post('/portal/activate', { token: 'A'.repeat(43) }, { csrf: null })).status).toBe(403);
    expect((await srv.store.keys.list()).length).toBe(before);
    // The same form, properly sent, works (so the refusals above were the CSRF check).
    expect((await a.post('/portal/keys', { who: 'x' })).status).toBe(201);
  });

  it('refuses a re-sent form (a reload of the key page) without showing or minting a key', async () => {
    const c = new FormClient(srv.url);
    await c.get('/portal');
    const csrf = c.csrf;
    expect(shownKey((await c.post('/portal/keys', { who: 'once' }, { csrf })).html)).not.toBeNull();
    const again = await c.post('/portal/keys', { who: 'once' }, { csrf });
    expect(again.status).toBe(403);
    expect(shownKey(again.html)).toBeNull();
    expect((await srv.store.keys.list()).filter((k) => k.name === 'once')).toHaveLength(1);
  });

  it('rejects bad input with the form again', async () => {
    const c = new FormClient(srv.url);
    await c.get('/portal');
    for (const who of ['', 'not@an address', 'x'.repeat(201)]) {
      const r = await c.post('/portal/keys', { who });
      expect(r.status, who).toBe(400);
      expect(r.html).toContain('role="alert"');
    }
  });

  it('without SMTP, writes the mail to the outbox and logs the file, and the link works', async () => {
    const c = new FormClient(srv.url);
    await c.get('/portal');
    expect((await c.post('/portal/keys', { who: 'Outbox@Example.com' })).status).toBe(200);
    const files = fs.readdirSync(srv.outbox).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const mail = fs.readFileSync(path.join(srv.outbox, files[0]!), 'utf8');
    expect(mail).toMatch(/^To: outbox@example\.com$/m);
    expect(srv.logs.some((l) => l.includes(files[0]!))).toBe(true);
    const link = activationLink(mail)!;
    expect(link.startsWith(`${srv.url}/portal/activate?token=`)).toBe(true);
    const confirm = await c.get(link.slice(srv.url.length));
    expect(confirm.status).toBe(200);
    const token = new URL(link).searchParams.get('token')!;
    const shown = await c.post('/portal/activate', { token });
    expect(shownKey(shown.html)).toMatch(/^pk_live_/);
    expect((await c.get(link.slice(srv.url.length))).status).toBe(410);
    // The token reaches neither the request log nor any other line.
    expect(srv.logs.join('')).not.toContain(token);
  });
});

describe('portal rate limits', () => {
  // Each form is single use, so every request starts from a fresh page, as in a browser.
  const send = async (c: FormClient, who: string) => {
    await c.get('/portal');
    return c.post('/portal/keys', { who });
  };
  it('a third request for one address in a day gets 429 with Retry-After', async () => {
    const c = new FormClient(limited.url);
    expect((await send(c, 'same@example.com')).status).toBe(200);
    expect((await send(c, 'SAME@example.com')).status).toBe(200);
    const r = await send(c, 'same@example.com');
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(80_000);
    expect(r.html).toContain('Too many key requests');
  });
  it('a fifth request from one IP in an hour gets 429, whatever the address', async () => {
    const c = new FormClient(limited.url);
    // The IP already spent 3 of its 4 points in the test above.
    expect((await send(c, 'other-name')).status).toBe(201);
    const r = await send(c, 'yet-another');
    expect(r.status).toBe(429);
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(3000);
    expect(shownKey(r.html)).toBeNull();
  });
});

describe('logs', () => {
  it('hold no key and no webhook secret shown by the portal', async () => {
    const c = new FormClient(srv.url);
    await c.get('/portal');
    const r = await c.post('/portal/keys', { who: 'log-check' });
    const key = shownKey(r.html)!;
    const secret = /id="webhook-secret">(whsec_[^<]+)</.exec(r.html)?.[1];
    expect(key).toBeTruthy();
    expect(secret).toBeTruthy();
    const all = srv.logs.join('');
    expect(all).toContain('portal key issued by name');
    expect(all).not.toContain(key);
    expect(all).not.toContain(key.slice(8, 20)); // not even the lookup id
    expect(all).not.toContain(secret!);
  });
});
