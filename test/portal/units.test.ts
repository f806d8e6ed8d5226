/** The portal's domain without HTTP: tokens, the CSRF guard, e-mail requests, activation and the sweep. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, SANDBOX_KEY_NAME } from '../../connector/src/auth/create-key.js';
import { authenticate } from '../../connector/src/auth/keys.js';
import { CsrfGuard } from '../../connector/src/portal/csrf.js';
import type { Mail, Mailer } from '../../connector/src/mailer.js';
import { activateKey, checkActivationLink, issueKeyByName, requestKeyByEmail } from '../../connector/src/portal/request-key.js';
import { sweepUnusedKeys } from '../../connector/src/auth/sweep-unused.js';
import { hashToken, newActivationToken } from '../../connector/src/portal/tokens.js';
import type { Store } from '../../connector/src/store/types.js';
import { closeTempStores, openTempStore } from '../helpers/temp-store.js';
import { activationLink } from './harness.js';

const DAY = 24 * 60 * 60 * 1000;
const T0 = new Date('2026-03-01T10:00:00.000Z');
let store: Store;

beforeEach(() => {
  store = openTempStore('portal-unit').store;
});
afterEach(closeTempStores);

class MemoryMailer implements Mailer {
  sent: Mail[] = [];
  async send(mail: Mail) {
    this.sent.push(mail);
  }
  close() {}
}

function tokenOf(mail: Mail): string {
  const link = activationLink(mail.text);
  expect(link).not.toBeNull();
  return new URL(link!).searchParams.get('token')!;
}

describe('activation tokens', () => {
  it('are 32 random bytes in base64url, and only their SHA-256 is kept', () => {
    const { token, hash } = newActivationToken();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(hash).toBe(hashToken(token));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(newActivationToken().token).not.toBe(token);
  });
});

describe('e-mail requests and activation', () => {
  const mailer = new MemoryMailer();
  const deps = () => ({ store, mailer, publicUrl: 'https://keys.example.com' });

  it('stores the request with only the token hash and mails a link without any key', async () => {
    const req = await requestKeyByEmail(deps(), 'ana@example.com', 'live', T0);
    const mail = mailer.sent.at(-1)!;
    const token = tokenOf(mail);
    expect(mail.to).toBe('ana@example.com');
    expect(mail.text).toContain('https://keys.example.com/portal/activate?token=');
    expect(mail.text + mail.html).not.toMatch(/pk_(live|test)_[A-Za-z0-9]{44}/);
    const stored = await store.portal.findRequest(hashToken(token));
    expect(stored).toMatchObject({
      id: req.id,
      email: 'ana@example.com',
      used_at: null,
      key_id: null,
      expires_at: new Date(T0.getTime() + DAY).toISOString(),
    });
    expect(JSON.stringify(stored)).not.toContain(token);
    // No key exists before activation.
    expect(await store.keys.list()).toHaveLength(0);
  });

  it('activates once: the key is minted then, free plan, every scope; a second use is refused as used', async () => {
    await requestKeyByEmail(deps(), 'ana@example.com', 'test', T0);
    const token = tokenOf(mailer.sent.at(-1)!);
    expect((await checkActivationLink(store, token, T0)).ok).toBe(true);
    const first = await activateKey(store, token, new Date(T0.getTime() + 1000));
    if (!first.ok) throw new Error(first.reason);
    expect(first.issued.key).toMatch(/^pk_test_/);
    expect(first.issued.webhookSecret).toMatch(/^whsec_/);
    const auth = await authenticate(`Bearer ${first.issued.key}`, store.keys);
    expect(auth.ok && auth.key).toMatchObject({ plan: 'free', email: 'ana@example.com', scopes: ['verify', 'extract', 'datasets'] });
    expect((await store.portal.findRequest(hashToken(token)))?.key_id).toBe(first.issued.keyId);
    expect(await activateKey(store, token, new Date(T0.getTime() + 2000))).toEqual({ ok: false, reason: 'used' });
    expect(await checkActivationLink(store, token, T0)).toEqual({ ok: false, reason: 'used' });
    expect(await store.keys.list()).toHaveLength(1);
  });

  it('refuses a link at 24 h and works just before', async () => {
    await requestKeyByEmail(deps(), 'bo@example.com', 'live', T0);
    const token = tokenOf(mailer.sent.at(-1)!);
    expect(await checkActivationLink(store, token, new Date(T0.getTime() + DAY))).toEqual({ ok: false, reason: 'expired' });
    expect(await activateKey(store, token, new Date(T0.getTime() + DAY))).toEqual({ ok: false, reason: 'expired' });
    expect((await activateKey(store, token, new Date(T0.getTime() + DAY - 1))).ok).toBe(true);
  });

  it('refuses unknown and malformed tokens without minting', async () => {
    const other = newActivationToken().token;
    expect(await activateKey(store, other, T0)).toEqual({ ok: false, reason: 'unknown' });
    expect(await activateKey(store, 'short', T0)).toEqual({ ok: false, reason: 'unknown' });
    expect(await activateKey(store, undefined, T0)).toEqual({ ok: false, reason: 'unknown' });
    expect(await store.keys.list()).toHaveLength(0);
  });

  it('lets only one of two concurrent activations of one link through', async () => {
    await requestKeyByEmail(deps(), 'cy@example.com', 'live', T0);
    const token = tokenOf(mailer.sent.at(-1)!);
    const outcomes = await Promise.all([activateKey(store, token, T0), activateKey(store, token, T0)]);
    expect(outcomes.filter((o) => o.ok)).toHaveLength(1);
    expect(await store.keys.list()).toHaveLength(1);
  });
});

describe('sweep of unused free keys', () => {
  it('deactivates only free keys unused for 7 days; used, paid, young, revoked and sandbox keys stay', async () => {
    const at = (ms: number) => new Date(T0.getTime() + ms);
    const unused = await issueKeyByName(store, 'unused', 'live', T0);
    const unusedTest = await issueKeyByName(store, 'unused test', 'test', T0);
    const used = await issueKeyByName(store, 'used', 'live', T0);
    await store.keys.touch(used.keyId, at(DAY).toISOString());
    const paid = await createApiKey(store, { mode: 'live', name: 'paid', plan: 'standard', scopes: ['verify'], now: T0 });
    const young = await issueKeyByName(store, 'young', 'live', at(DAY));
    const revoked = await issueKeyByName(store, 'revoked', 'live', T0);
    await store.keys.revoke(revoked.keyId, T0.toISOString());
    const sandbox = await createApiKey(store, { mode: 'test', name: SANDBOX_KEY_NAME, scopes: ['verify'], now: T0 });

    expect(await sweepUnusedKeys(store.portal, at(7 * DAY - 1))).toEqual([]);
    const swept = await sweepUnusedKeys(store.portal, at(7 * DAY + 1));
    expect(swept.sort()).toEqual([unused.keyId, unusedTest.keyId].sort());
    const status = async (id: string) => (await store.keys.get(id))?.status;
    expect(await status(unused.keyId)).toBe('deactivated');
    expect(await status(used.keyId)).toBe('active');
    expect(await status(paid.record.id)).toBe('active');
    expect(await status(young.keyId)).toBe('active');
    expect(await status(revoked.keyId)).toBe('revoked');
    expect(await status(sandbox.record.id)).toBe('active');
    // A deactivated key no longer authenticates, and its holder is told why and where to get a new one.
    const refused = await authenticate(`Bearer ${unused.key}`, store.keys);
    expect(refused).toMatchObject({ ok: false, error: 'invalid_api_key' });
    expect(!refused.ok && refused.message).toMatch(/deactivated because it was not used within 7 days.*\/portal/);
    // A revoked key says revoked; an unknown one says nothing about any key.
    const revokedAnswer = await authenticate(`Bearer ${revoked.key}`, store.keys);
    expect(!revokedAnswer.ok && revokedAnswer.message).toMatch(/revoked/);
    expect(revokedAnswer).not.toMatchObject({ message: expect.stringMatching(/deactivated/) });
    // A used key is never swept, however old.
    expect(await sweepUnusedKeys(store.portal, at(400 * DAY))).toEqual([young.keyId]);
  });
});

describe('CSRF guard', () => {
  let clock = T0.getTime();
  const guard = new CsrfGuard('s'.repeat(32), () => new Date(clock));
  const sid = guard.newSessionId();

  it('accepts a form with its own session once, then refuses it as reused', async () => {
    const field = guard.issue(sid);
    expect(await guard.verify(sid, field)).toEqual({ ok: true });
    expect(await guard.verify(sid, field)).toEqual({ ok: false, reason: 'reused' });
  });
  it('refuses a missing field, a missing cookie, another session, a tampered field and an old form', async () => {
    expect(await guard.verify(sid, undefined)).toMatchObject({ ok: false, reason: 'missing' });
    expect(await guard.verify(undefined, guard.issue(sid))).toMatchObject({ ok: false, reason: 'missing' });
    expect(await guard.verify(guard.newSessionId(), guard.issue(sid))).toMatchObject({ ok: false, reason: 'invalid' });
    const field = guard.issue(sid);
    const tampered = field.slice(0, -1) + (field.endsWith('0') ? '1' : '0');
    expect(await guard.verify(sid, tampered)).toMatchObject({ ok: false, reason: 'invalid' });
    expect(await guard.verify(sid, new CsrfGuard('t'.repeat(32), () => new Date(clock)).issue(sid))).toMatchObject({
      ok: false,
      reason: 'invalid',
    });
    const old = guard.issue(sid);
    clock += 60 * 60 * 1000 + 1;
    expect(await guard.verify(sid, old)).toMatchObject({ ok: false, reason: 'expired' });
  });
});
