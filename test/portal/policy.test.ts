/**
 * COVERCHECK_PORTAL on the real server, one server per policy: open (live keys to anyone), test-only,
 * domains:<list> (e-mail keys for those domains only) and off (no portal); the start-up log's line.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { loadConfig } from '../../connector/src/config.js';
import type { Mail, Mailer } from '../../connector/src/mailer.js';
import { requestKeyByEmail } from '../../connector/src/portal/request-key.js';
import { cleanUp, spawnConnector, whenReady, type ConnectorChild } from '../lifecycle/child.js';
import { activationLink, FormClient, shownKey, startPortalServer, type PortalServer } from './harness.js';

let open: PortalServer;
let testOnly: PortalServer;
let domains: PortalServer;
let off: PortalServer;
beforeAll(async () => {
  [open, testOnly, domains, off] = await Promise.all([
    startPortalServer(),
    startPortalServer({ COVERCHECK_PORTAL: 'test-only' }),
    startPortalServer({ COVERCHECK_PORTAL: 'domains: Example.com, insurer.co.uk' }),
    startPortalServer({ COVERCHECK_PORTAL: 'off' }),
  ]);
});
afterAll(async () => Promise.all([open, testOnly, domains, off].map((s) => s?.close())));

/** A fresh form, then one request. */
async function ask(srv: PortalServer, fields: Record<string, string>) {
  const c = new FormClient(srv.url);
  await c.get('/portal');
  return { c, r: await c.post('/portal/keys', fields) };
}

const mails = (srv: PortalServer) => (fs.existsSync(srv.outbox) ? fs.readdirSync(srv.outbox).filter((f) => f.endsWith('.eml')) : []);

/** Follows the newest mail's link and presses the button: the page that shows the key. */
async function activateNewest(srv: PortalServer, c: FormClient) {
  const newest = mails(srv)
    .map((f) => path.join(srv.outbox, f))
    .sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0]!;
  const link = activationLink(fs.readFileSync(newest, 'utf8'))!;
  expect((await c.get(link.slice(srv.url.length))).status).toBe(200);
  return c.post('/portal/activate', { token: new URL(link).searchParams.get('token')! });
}

describe('COVERCHECK_PORTAL=open (the default)', () => {
  it('gives a live key to a name, and the form offers live keys', async () => {
    const page = await new FormClient(open.url).get('/portal');
    expect(page.html).toContain('value="live"');
    const { r } = await ask(open, { who: 'open-name', mode: 'live' });
    expect(r.status).toBe(201);
    expect(shownKey(r.html)).toMatch(/^pk_live_/);
  });
});

describe('COVERCHECK_PORTAL=test-only', () => {
  it('refuses a live key by name with the form and an error, and mints nothing', async () => {
    const before = (await testOnly.store.keys.list()).length;
    const { r } = await ask(testOnly, { who: 'wants-live', mode: 'live' });
    expect(r.status).toBe(403);
    expect(r.html).toContain('role="alert"');
    expect(r.html).toContain('test keys (pk_test_) only');
    expect(shownKey(r.html)).toBeNull();
    expect((await testOnly.store.keys.list()).length).toBe(before);
  });

  it('refuses a live key by e-mail without sending a mail', async () => {
    const { r } = await ask(testOnly, { who: 'live@example.com', mode: 'live' });
    expect(r.status).toBe(403);
    expect(mails(testOnly)).toHaveLength(0);
  });

  it('offers only the test button, and gives a test key by name, with or without the button named', async () => {
    const page = await new FormClient(testOnly.url).get('/portal');
    expect(page.html).not.toContain('value="live"');
    expect(page.html).toContain('value="test"');
    for (const fields of [{ who: 'tester', mode: 'test' }, { who: 'enter-key' }] as Record<string, string>[]) {
      const { r } = await ask(testOnly, fields);
      expect(r.status).toBe(201);
      expect(shownKey(r.html)).toMatch(/^pk_test_/);
    }
  });

  it('gives a test key by e-mail through the activation link', async () => {
    const { c, r } = await ask(testOnly, { who: 'Test.Only@example.com', mode: 'test' });
    expect(r.status).toBe(200);
    const shown = await activateNewest(testOnly, c);
    expect(shownKey(shown.html)).toMatch(/^pk_test_/);
  });

  it('a live link mailed before the policy was narrowed is refused at the link and at the button, and mints nothing', async () => {
    const sent: Mail[] = [];
    const mailer: Mailer = { send: async (m) => void sent.push(m), close: () => undefined };
    await requestKeyByEmail({ store: testOnly.store, mailer, publicUrl: testOnly.url }, 'earlier@example.com', 'live', new Date());
    const link = activationLink(sent[0]!.text)!;
    const before = (await testOnly.store.keys.list()).length;
    const c = new FormClient(testOnly.url);
    const confirm = await c.get(link.slice(testOnly.url.length));
    expect(confirm.status).toBe(403);
    // A form from the portal's own page, so the CSRF check passes and the policy is what refuses.
    await c.get('/portal');
    const pressed = await c.post('/portal/activate', { token: new URL(link).searchParams.get('token')! });
    expect(pressed.status).toBe(403);
    expect(shownKey(pressed.html)).toBeNull();
    expect((await testOnly.store.keys.list()).length).toBe(before);
  });
});

describe('COVERCHECK_PORTAL=domains:example.com,insurer.co.uk', () => {
  it('refuses a name: an e-mail address in the domains is needed', async () => {
    const { r } = await ask(domains, { who: 'just-a-name', mode: 'test' });
    expect(r.status).toBe(403);
    expect(r.html).toContain('@example.com or @insurer.co.uk');
    expect(shownKey(r.html)).toBeNull();
  });

  it('refuses other domains, a subdomain and a look-alike suffix without sending a mail', async () => {
    for (const who of ['someone@other.org', 'someone@mail.example.com', 'someone@notexample.com', 'someone@example.com.evil.org']) {
      const { r } = await ask(domains, { who, mode: 'live' });
      expect(r.status, who).toBe(403);
      expect(r.html, who).toContain('only');
    }
    expect(mails(domains)).toHaveLength(0);
  });

  it('gives a live key to an address in a listed domain, matched case-insensitively, through the link', async () => {
    const { c, r } = await ask(domains, { who: 'Claims.Team@EXAMPLE.com', mode: 'live' });
    expect(r.status).toBe(200);
    expect(mails(domains)).toHaveLength(1);
    const shown = await activateNewest(domains, c);
    expect(shown.status).toBe(201);
    expect(shownKey(shown.html)).toMatch(/^pk_live_/);
    const { r: second } = await ask(domains, { who: 'ops@insurer.co.uk', mode: 'test' });
    expect(second.status).toBe(200);
  });

  it('asks for an e-mail address on its form', async () => {
    const page = await new FormClient(domains.url).get('/portal');
    expect(page.html).toContain('Your e-mail address</label>');
    expect(page.html).toContain('@example.com, @insurer.co.uk');
  });
});

describe('COVERCHECK_PORTAL=off', () => {
  it("answers every portal route 404 in the API's error body and mints nothing", async () => {
    for (const [method, p] of [
      ['GET', '/portal'],
      ['GET', '/portal/activate?token=' + 'A'.repeat(43)],
      ['POST', '/portal/keys'],
      ['POST', '/portal/activate'],
    ] as const) {
      const res = await fetch(off.url + p, {
        method,
        ...(method === 'POST' ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'who=x&mode=live' } : {}),
      });
      expect(res.status, p).toBe(404);
      expect(res.headers.get('content-type'), p).toMatch(/^application\/json/);
      expect(ZErrorBodySchema.parse(await res.json())).toMatchObject({ error: 'not_found', code: 404 });
    }
    expect(await off.store.keys.list()).toHaveLength(0);
  });
});

describe('the setting', () => {
  it('refuses a value it does not know, naming the variable', () => {
    for (const value of ['closed', 'OPEN', 'domains:', 'domains:*.example.com', 'domains:example', 'test_only']) {
      expect(() => loadConfig({ COVERCHECK_PORTAL: value }), value).toThrow(/COVERCHECK_PORTAL: must be open, test-only, off, or domains:/);
    }
  });
});

describe('the start-up log', () => {
  const children: ConnectorChild[] = [];
  afterAll(async () => Promise.all(children.map((c) => cleanUp(c))));

  /** The log line of the built connector's start that names the portal policy. */
  async function policyLine(value: string | null) {
    const c = spawnConnector({ env: value === null ? {} : { COVERCHECK_PORTAL: value } });
    children.push(c);
    await whenReady(c);
    c.proc.kill('SIGTERM');
    await c.closed;
    return c.logs().find((l) => typeof l.portal === 'string');
  }

  it('warns while the portal gives live keys (open, domains), and only informs otherwise', async () => {
    const [byDefault, byDomain, testKeys, none] = await Promise.all([
      policyLine(null),
      policyLine('domains:example.com'),
      policyLine('test-only'),
      policyLine('off'),
    ]);
    expect(byDefault).toMatchObject({ level: 40, portal: 'open', msg: expect.stringContaining('live keys') });
    expect(byDomain).toMatchObject({ level: 40, portal: 'domains:example.com', msg: expect.stringContaining('@example.com') });
    expect(testKeys).toMatchObject({ level: 30, portal: 'test-only' });
    expect(none).toMatchObject({ level: 30, portal: 'off' });
  }, 90_000);
});
