/**
 * API key format, generation and checking.
 *
 * A key is `pk_live_` or `pk_test_`, then 12 characters of public lookup id, then 32 characters of
 * secret, all base62. Only the lookup id and a SHA-256 hash of the whole key are stored: the row
 * is found by lookup id, then the hashes are compared in constant time. SHA-256 (not a slow KDF)
 * is right here because the secret is 190 random bits, not a password.
 */
import crypto from 'node:crypto';
import type { TPlan, TScope } from '../../../shared/account.js';
import { SCOPES } from '../../../shared/account.js';
import type { ApiKeyRecord, KeyMode, KeyStore } from '../store/types.js';

export const KEY_PREFIXES = { live: 'pk_live_', test: 'pk_test_' } as const;
const LOOKUP_LEN = 12;
const SECRET_LEN = 32;
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Credits granted per billing period by plan, unless the operator sets another allowance. */
export const PLAN_ALLOWANCE: Record<TPlan, number> = { free: 100, standard: 10_000, enterprise: 100_000 };

function base62(length: number, random: (n: number) => Buffer): string {
  let out = '';
  while (out.length < length) {
    for (const byte of random(length * 2)) {
      // Rejection sampling keeps the alphabet uniform (248 = 4 * 62).
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function hashKey(key: string): string {
  return crypto.createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface GeneratedKey {
  key: string;
  lookup: string;
  hash: string;
}

export function generateKey(mode: KeyMode, random: (n: number) => Buffer = crypto.randomBytes): GeneratedKey {
  const lookup = base62(LOOKUP_LEN, random);
  const key = `${KEY_PREFIXES[mode]}${lookup}${base62(SECRET_LEN, random)}`;
  return { key, lookup, hash: hashKey(key) };
}

export type ParsedKey = { ok: true; mode: KeyMode; lookup: string } | { ok: false; reason: 'prefix' | 'shape' };

/** Splits a presented key without touching the store. */
export function parseKey(key: string): ParsedKey {
  const mode: KeyMode | null = key.startsWith(KEY_PREFIXES.live) ? 'live' : key.startsWith(KEY_PREFIXES.test) ? 'test' : null;
  if (!mode) return { ok: false, reason: 'prefix' };
  const body = key.slice(8);
  if (body.length !== LOOKUP_LEN + SECRET_LEN || !/^[A-Za-z0-9]+$/.test(body)) return { ok: false, reason: 'shape' };
  return { ok: true, mode, lookup: body.slice(0, LOOKUP_LEN) };
}

/** Free-plan keys never used this many days after they were issued are deactivated (spec 5.5, sweep-unused.ts). */
export const UNUSED_KEY_TTL_DAYS = 7;

// Compared against when no row matches, so an unknown lookup id costs the same as a wrong secret.
const DUMMY_HASH = Buffer.from(hashKey('pk_test_' + '0'.repeat(44)), 'hex');

export type AuthOutcome = { ok: true; key: ApiKeyRecord } | { ok: false; error: 'unauthorized' | 'invalid_api_key'; message: string };

/**
 * Resolves an Authorization header value (or every value sent, when the caller has them all) to an
 * active key record. Never echoes the key. Spec 5.6: missing header, more than one, or bad prefix
 * -> unauthorized; unknown, revoked or deactivated -> invalid_api_key.
 */
export async function authenticate(headers: string | readonly string[] | undefined, keys: KeyStore): Promise<AuthOutcome> {
  // Several Authorization headers: a proxy in front may have judged another one than we would.
  if (typeof headers !== 'string' && headers !== undefined && headers.length > 1) {
    return { ok: false, error: 'unauthorized', message: `Send one Authorization header; this request has ${headers.length}.` };
  }
  const header = typeof headers === 'string' ? headers : headers?.[0];
  if (!header) return { ok: false, error: 'unauthorized', message: 'Missing Authorization header. Send Authorization: Bearer <API key>.' };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return { ok: false, error: 'unauthorized', message: 'Authorization header must be "Bearer <API key>".' };
  const presented = m[1]!;
  const parsed = parseKey(presented);
  if (!parsed.ok && parsed.reason === 'prefix') {
    return { ok: false, error: 'unauthorized', message: 'API keys start with pk_live_ (production) or pk_test_ (sandbox).' };
  }
  const record = parsed.ok ? await keys.findByLookup(parsed.lookup) : null;
  const presentedHash = Buffer.from(hashKey(presented), 'hex');
  const storedHash = record ? Buffer.from(record.hash, 'hex') : DUMMY_HASH;
  const equal = crypto.timingSafeEqual(presentedHash, storedHash) && record !== null;
  if (!equal || !record || (parsed.ok && record.mode !== parsed.mode)) {
    return { ok: false, error: 'invalid_api_key', message: 'Unknown or revoked API key.' };
  }
  // Only the holder of the whole key gets here, so saying why it stopped working reveals nothing.
  if (record.status === 'deactivated') {
    return {
      ok: false,
      error: 'invalid_api_key',
      message: `This free-plan key was deactivated because it was not used within ${UNUSED_KEY_TTL_DAYS} days of being issued. Request a new key at /portal, or ask your Covercheck operator for one.`,
    };
  }
  if (record.status !== 'active')
    return {
      ok: false,
      error: 'invalid_api_key',
      message: 'This API key was revoked. Ask your Covercheck operator for a new one, or request one at /portal.',
    };
  return { ok: true, key: record };
}

export function parseScopes(raw: string | undefined): TScope[] {
  if (!raw) return [...SCOPES];
  const scopes = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of scopes) {
    if (!(SCOPES as readonly string[]).includes(s)) throw new Error(`Unknown scope "${s}". Known: ${SCOPES.join(', ')}`);
  }
  return [...new Set(scopes)] as TScope[];
}
