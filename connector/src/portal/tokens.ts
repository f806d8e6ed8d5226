/** Activation-link tokens: 32 random bytes, base64url in the link, only their SHA-256 stored. */
import crypto from 'node:crypto';

/** How long an e-mailed activation link works. */
export const ACTIVATION_TTL_MS = 24 * 60 * 60 * 1000;

export function newActivationToken(random: (n: number) => Buffer = crypto.randomBytes): { token: string; hash: string } {
  const token = random(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

export function hashToken(token: string): string {
  return crypto.createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A token as we issue it: 43 base64url characters. Anything else is refused before a lookup. */
export function isTokenShaped(token: unknown): token is string {
  return typeof token === 'string' && /^[A-Za-z0-9_-]{43}$/.test(token);
}
