/**
 * The portal's use cases, without HTTP: a key by name (minted at once), a key by e-mail (a pending
 * request and an activation link; the key is minted only when the link is used), and activation.
 */
import crypto from 'node:crypto';
import { SCOPES } from '../../../shared/account.js';
import { createApiKey } from '../auth/create-key.js';
import type { KeyMode, KeyRequestRecord, Store } from '../store/types.js';
import type { Mailer } from '../mailer.js';
import { ACTIVATION_TTL_MS, hashToken, isTokenShaped, newActivationToken } from './tokens.js';

/** What a page shows once: the key and its webhook signing secret. Never logged, stored or mailed. */
export interface IssuedKey {
  key: string;
  keyId: string;
  mode: KeyMode;
  webhookSecret: string | null;
}

/** Portal keys are free-plan keys with the default (all) scopes. */
async function mint(store: Pick<Store, 'keys'>, mode: KeyMode, name: string, email: string | null, now: Date): Promise<IssuedKey> {
  const { key, record } = await createApiKey(store, { mode, name, email, plan: 'free', scopes: [...SCOPES], now });
  return { key, keyId: record.id, mode, webhookSecret: record.webhook_secret };
}

export function issueKeyByName(store: Pick<Store, 'keys'>, name: string, mode: KeyMode, now: Date): Promise<IssuedKey> {
  return mint(store, mode, name, null, now);
}

/** Records a pending request and mails its activation link. The token exists only in the mail. */
export async function requestKeyByEmail(
  deps: { store: Pick<Store, 'portal'>; mailer: Mailer; publicUrl: string; random?: (n: number) => Buffer },
  email: string,
  mode: KeyMode,
  now: Date,
): Promise<KeyRequestRecord> {
  const { token, hash } = newActivationToken(deps.random);
  const request = {
    id: `kreq_${crypto.randomUUID().replace(/-/g, '').slice(0, 20)}`,
    email,
    mode,
    token_hash: hash,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ACTIVATION_TTL_MS).toISOString(),
  };
  await deps.store.portal.createRequest(request);
  const link = `${deps.publicUrl}/portal/activate?token=${token}`;
  const kind = mode === 'test' ? 'test (pk_test_, sandbox)' : 'live (pk_live_)';
  await deps.mailer.send({
    to: email,
    subject: 'Activate your Covercheck API key',
    text:
      `Someone (hopefully you) asked for a Covercheck ${kind} API key for this address.\n\n` +
      `Open this link within 24 hours to activate it. The key is shown once, on that page:\n\n${link}\n\n` +
      'The link works once. If you did not ask for a key, ignore this mail.\n',
    html:
      `<p>Someone (hopefully you) asked for a Covercheck ${kind} API key for this address.</p>` +
      `<p>Open this link within 24 hours to activate it. The key is shown once, on that page:</p>` +
      `<p><a href="${link}">${link}</a></p><p>The link works once. If you did not ask for a key, ignore this mail.</p>`,
  });
  return { ...request, used_at: null, key_id: null };
}

export type LinkState = { ok: true; request: KeyRequestRecord } | { ok: false; reason: 'unknown' | 'used' | 'expired' };

/** Looks at a link without using it (the confirmation page). */
export async function checkActivationLink(store: Pick<Store, 'portal'>, token: unknown, now: Date): Promise<LinkState> {
  if (!isTokenShaped(token)) return { ok: false, reason: 'unknown' };
  const request = await store.portal.findRequest(hashToken(token));
  if (!request) return { ok: false, reason: 'unknown' };
  if (request.used_at) return { ok: false, reason: 'used' };
  if (request.expires_at <= now.toISOString()) return { ok: false, reason: 'expired' };
  return { ok: true, request };
}

/** Uses the link (once) and mints its key. */
export async function activateKey(
  store: Pick<Store, 'portal' | 'keys'>,
  token: unknown,
  now: Date,
): Promise<{ ok: true; issued: IssuedKey } | { ok: false; reason: 'unknown' | 'used' | 'expired' }> {
  if (!isTokenShaped(token)) return { ok: false, reason: 'unknown' };
  const consumed = await store.portal.consumeRequest(hashToken(token), now.toISOString());
  if (!consumed.ok) return consumed;
  const { request } = consumed;
  const issued = await mint(store, request.mode, request.email, request.email, now);
  await store.portal.attachKey(request.id, issued.keyId);
  return { ok: true, issued };
}
