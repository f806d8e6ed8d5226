/**
 * CSRF protection for the portal's forms: a signed double-submit token, hand-written with HMAC.
 *
 * The browser holds a random session id in an HttpOnly, SameSite=Strict cookie. Each rendered form
 * carries `formId.issuedAt.mac`, where mac = HMAC-SHA256(secret, sid.formId.issuedAt). A POST is
 * accepted only when its cookie and field agree under the server's secret, the form is under an hour
 * old, and its formId has not been submitted before. The signature means a cookie planted from a
 * sibling domain is useless without the secret; the single-use formId means reloading a page that
 * showed a key (which re-posts the form) mints and shows nothing. Used form ids are kept in memory,
 * or with Redis in Redis (SET NX PX), so a form can be used once across every instance.
 */
import crypto from 'node:crypto';
import { MemorySingleUse, type SingleUse } from '../redis/single-use.js';

export const CSRF_COOKIE = 'cc_portal_sid';
export const CSRF_FIELD = 'csrf';
export const FORM_TTL_MS = 60 * 60 * 1000;

export type CsrfCheck = { ok: true } | { ok: false; reason: 'missing' | 'invalid' | 'expired' | 'reused' };

export class CsrfGuard {
  private readonly secret: Buffer;

  constructor(
    secret: string | undefined,
    private readonly now: () => Date = () => new Date(),
    /** Form ids already submitted, until their form would have expired anyway. */
    private readonly used: SingleUse = new MemorySingleUse(),
  ) {
    this.secret = secret ? Buffer.from(secret, 'utf8') : crypto.randomBytes(32);
  }

  newSessionId(): string {
    return crypto.randomBytes(32).toString('base64url');
  }

  isSessionId(v: unknown): v is string {
    return typeof v === 'string' && /^[A-Za-z0-9_-]{43}$/.test(v);
  }

  /** The hidden field value for a form rendered for session `sid`. */
  issue(sid: string): string {
    const formId = crypto.randomBytes(16).toString('base64url');
    const issuedAt = String(this.now().getTime());
    return `${formId}.${issuedAt}.${this.mac(sid, formId, issuedAt)}`;
  }

  /** Checks a submitted field against the cookie's session id and uses up the form. */
  async verify(sid: string | undefined, field: unknown): Promise<CsrfCheck> {
    if (!sid || !this.isSessionId(sid) || typeof field !== 'string' || !field) return { ok: false, reason: 'missing' };
    const m = /^([A-Za-z0-9_-]{22})\.(\d{1,16})\.([0-9a-f]{64})$/.exec(field);
    if (!m) return { ok: false, reason: 'invalid' };
    const [, formId, issuedAt, mac] = m as unknown as [string, string, string, string];
    const expected = Buffer.from(this.mac(sid, formId, issuedAt), 'hex');
    if (!crypto.timingSafeEqual(expected, Buffer.from(mac, 'hex'))) return { ok: false, reason: 'invalid' };
    const nowMs = this.now().getTime();
    const issued = Number(issuedAt);
    if (nowMs - issued > FORM_TTL_MS || issued - nowMs > 60_000) return { ok: false, reason: 'expired' };
    if (!(await this.used.claim(formId, issued + FORM_TTL_MS, nowMs))) return { ok: false, reason: 'reused' };
    return { ok: true };
  }

  private mac(sid: string, formId: string, issuedAt: string): string {
    return crypto.createHmac('sha256', this.secret).update(`${sid}.${formId}.${issuedAt}`).digest('hex');
  }
}

/** Reads one cookie from a Cookie header (no dependency for one value). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
