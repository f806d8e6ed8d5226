/**
 * The key portal in headless Chromium (Debian chromium, playwright-core) against the real app: a
 * key by name shown once; a key by e-mail through a real SMTP server on loopback (smtp-server), the
 * link used once and refused after; an expired link; the 7-day sweep with a moved clock.
 * Screenshots go to test/artifacts/. Skipped when /usr/bin/chromium is absent (outside CI).
 */
import fs from 'node:fs';
import path from 'node:path';
import { type Browser, type Page } from 'playwright-core';
import { startSmtpInbox, type SmtpInbox } from '../helpers/smtp-inbox.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activationLink, startPortalServer, type PortalServer } from './harness.js';
import { HAVE_CHROMIUM, launchChromium, SKIP_BROWSER } from '../helpers/browser.js';

const ARTIFACTS = path.resolve(import.meta.dirname, '../artifacts');
const DAY = 24 * 60 * 60 * 1000;
const KEY = /pk_(live|test)_[A-Za-z0-9]{44}/;

let srv: PortalServer;
let smtp: SmtpInbox;
let browser: Browser;

beforeAll(async () => {
  if (!HAVE_CHROMIUM) return;
  smtp = await startSmtpInbox();
  srv = await startPortalServer({ COVERCHECK_SMTP_URL: smtp.url, COVERCHECK_KEY_SWEEP_INTERVAL_MS: '3600000' });
  browser = await launchChromium();
  fs.mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
  await smtp?.close();
});

async function requestKey(page: Page, who: string, mode: 'live' | 'test'): Promise<void> {
  await page.goto(`${srv.url}/portal`);
  await page.getByLabel('Your e-mail address or a name for the key').fill(who);
  await page.getByRole('button', { name: mode === 'live' ? /live key/ : /test key/ }).click();
  await page.waitForLoadState('domcontentloaded');
}

async function waitForMail(to: string, count: number): Promise<string> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const mails = smtp.mails.filter((m) => m.to === to);
    if (mails.length >= count) return mails[count - 1]!.raw;
    if (Date.now() > deadline) throw new Error(`no mail #${count} to ${to}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function apiStatus(key: string): Promise<{ status: number; error?: string }> {
  const r = await fetch(`${srv.url}/api/v1/account`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await r.json()) as { error?: string };
  return { status: r.status, ...(body.error ? { error: body.error } : {}) };
}

describe.skipIf(SKIP_BROWSER)('key portal in Chromium', () => {
  it('a name gets a live key at once, shown once: reload and back do not show it again', async () => {
    const page = await browser.newPage();
    await requestKey(page, 'Acme reporting job', 'live');
    const key = (await page.locator('#api-key').textContent())!;
    expect(key).toMatch(/^pk_live_[A-Za-z0-9]{44}$/);
    await expect(page.locator('#webhook-secret').textContent()).resolves.toMatch(/^whsec_/);
    await expect(page.getByRole('note').textContent()).resolves.toContain('source control');
    await page.screenshot({ path: path.join(ARTIFACTS, 'portal-key-by-name.png'), fullPage: true });
    expect(await apiStatus(key)).toEqual({ status: 200 });

    await page.reload(); // re-posts the form
    expect(await page.content()).not.toContain(key);
    expect(await page.content()).toContain('already sent');
    await page.goBack();
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: path.join(ARTIFACTS, 'portal-key-reload.png'), fullPage: true });
    expect((await srv.store.keys.list()).filter((k) => k.name === 'Acme reporting job')).toHaveLength(1);
    await page.close();
  });

  it('the same page makes a test key', async () => {
    const page = await browser.newPage();
    await requestKey(page, 'sandbox experiments', 'test');
    await expect(page.locator('#api-key').textContent()).resolves.toMatch(/^pk_test_[A-Za-z0-9]{44}$/);
    await page.close();
  });

  it('an e-mail gets a link over SMTP; the link shows the key once and is refused the second time', async () => {
    const page = await browser.newPage();
    await requestKey(page, 'dana@example.com', 'live');
    await expect(page.getByRole('status').textContent()).resolves.toContain('link to activate your key');
    const mail = await waitForMail('dana@example.com', 1);
    expect(mail).not.toMatch(KEY);
    const link = activationLink(mail)!;
    expect(link).toMatch(new RegExp(`^${srv.url}/portal/activate\\?token=`));

    const first = await page.goto(link);
    expect(first?.status()).toBe(200);
    await page.getByRole('button', { name: 'Activate and show my key' }).click();
    await page.waitForLoadState('domcontentloaded');
    const key = (await page.locator('#api-key').textContent())!;
    expect(key).toMatch(/^pk_live_/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'portal-key-by-email.png'), fullPage: true });
    expect(await apiStatus(key)).toEqual({ status: 200 });
    const record = (await srv.store.keys.list()).find((k) => k.email === 'dana@example.com');
    expect(record).toMatchObject({ plan: 'free', status: 'active' });

    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    expect(await page.content()).toContain('already used');
    expect(await page.content()).not.toContain(key);
    await page.screenshot({ path: path.join(ARTIFACTS, 'portal-link-used.png'), fullPage: true });
    await page.close();
  });

  it('a link is refused once 24 hours have passed', async () => {
    const page = await browser.newPage();
    await requestKey(page, 'late@example.com', 'test');
    const link = activationLink(await waitForMail('late@example.com', 1))!;
    srv.advance(DAY);
    const r = await page.goto(link);
    expect(r?.status()).toBe(410);
    expect(await page.content()).toContain('expired');
    await page.screenshot({ path: path.join(ARTIFACTS, 'portal-link-expired.png'), fullPage: true });
    expect((await srv.store.keys.list()).some((k) => k.email === 'late@example.com')).toBe(false);
    await page.close();
  });

  it('after 7 days the sweep deactivates unused free keys only; they then get 401 invalid_api_key', async () => {
    const page = await browser.newPage();
    await requestKey(page, 'never used', 'live');
    const unused = (await page.locator('#api-key').textContent())!;
    await requestKey(page, 'used once', 'live');
    const used = (await page.locator('#api-key').textContent())!;
    expect(await apiStatus(used)).toEqual({ status: 200 }); // sets last_used_at
    await page.close();

    srv.advance(7 * DAY + 60_000);
    srv.connector.keySweeper.notify();
    const deadline = Date.now() + 5000;
    const byName = async (name: string) => (await srv.store.keys.list()).find((k) => k.name === name)!;
    while ((await byName('never used')).status !== 'deactivated') {
      if (Date.now() > deadline) throw new Error('the sweep did not deactivate the unused key');
      await new Promise((r) => setTimeout(r, 25));
    }
    expect((await byName('used once')).status).toBe('active');
    expect(await apiStatus(unused)).toEqual({ status: 401, error: 'invalid_api_key' });
    expect(await apiStatus(used)).toEqual({ status: 200 });
    // Its holder is told why, and where to get a new one.
    const body = (await (await fetch(`${srv.url}/api/v1/account`, { headers: { authorization: `Bearer ${unused}` } })).json()) as {
      message: string;
    };
    expect(body.message).toMatch(/deactivated because it was not used within 7 days.*\/portal/);
  });

  it('no key, secret or token reached the log', async () => {
    const all = srv.logs.join('');
    expect(all).toContain('portal key activated from an e-mail link');
    expect(all).not.toMatch(KEY);
    expect(all).not.toMatch(/whsec_/);
    expect(all).not.toMatch(/token=[A-Za-z0-9_-]{43}/);
  });
});
