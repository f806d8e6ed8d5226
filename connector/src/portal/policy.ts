/**
 * The portal's policy (COVERCHECK_PORTAL): which key requests it takes, what its form offers, and
 * what the start-up log says of it. A live key costs nothing to ask for and spends real sources, so
 * an operator sees at every start whether the portal hands them out, and to whom.
 */
import type { PortalPolicy } from '../config.js';
import type { Logger } from '../logger.js';
import type { KeyMode } from '../store/types.js';

export type { PortalPolicy } from '../config.js';

/** What the request form offers under the policy. */
export interface FormOffer {
  /** Live keys (pk_live_) may be asked for. */
  live: boolean;
  /** A name (no @) is enough; otherwise an e-mail address is needed. */
  byName: boolean;
  /** The e-mail domains taken; null: any. */
  domains: string[] | null;
}

export function formOffer(policy: PortalPolicy): FormOffer {
  return {
    live: policy.kind !== 'test-only',
    byName: policy.kind !== 'domains',
    domains: policy.kind === 'domains' ? policy.domains : null,
  };
}

/** "@a.com or @b.org", for messages. */
function domainList(domains: string[]): string {
  const at = domains.map((d) => `@${d}`);
  return at.length === 1 ? at[0]! : `${at.slice(0, -1).join(', ')} or ${at.at(-1)}`;
}

/**
 * Whether the policy takes a key request: `email` is the lower-cased address, or null for a key by
 * name. A refusal's message is for the person at the form. Activation asks again, so a link mailed
 * before the operator narrowed the policy mints nothing the policy no longer gives.
 */
export function checkKeyRequest(
  policy: PortalPolicy,
  request: { email: string | null; mode: KeyMode },
): { ok: true } | { ok: false; message: string } {
  if (policy.kind === 'off') return { ok: false, message: 'This portal gives no keys. Ask the operator of this service for one.' };
  if (policy.kind === 'test-only' && request.mode === 'live')
    return { ok: false, message: 'This portal gives test keys (pk_test_) only. Ask the operator of this service for a live key.' };
  if (policy.kind === 'domains') {
    const allowed = domainList(policy.domains);
    if (request.email === null)
      return { ok: false, message: `A name is not enough here: enter your e-mail address at ${allowed}. The key is sent there.` };
    const domain = request.email.slice(request.email.lastIndexOf('@') + 1).toLowerCase();
    if (!policy.domains.includes(domain)) return { ok: false, message: `This portal gives keys to e-mail addresses at ${allowed} only.` };
  }
  return { ok: true };
}

/** One start-up line: a warning while the portal hands out live keys, else what it does. */
export function logPortalPolicy(logger: Logger, policy: PortalPolicy): void {
  const portal = policy.kind === 'domains' ? `domains:${policy.domains.join(',')}` : policy.kind;
  if (policy.kind === 'open')
    logger.warn(
      { portal },
      'the key portal (/portal) gives live keys (100 credits a month, every scope) to anyone who types a name; set COVERCHECK_PORTAL to test-only, domains:<list> or off to restrict it',
    );
  else if (policy.kind === 'domains')
    logger.warn(
      { portal },
      `the key portal (/portal) gives live keys (100 credits a month, every scope) to anyone who can read mail at ${domainList(policy.domains)}`,
    );
  else if (policy.kind === 'test-only') logger.info({ portal }, 'the key portal (/portal) gives test keys (pk_test_) only');
  else logger.info({ portal }, 'the key portal is off: /portal answers 404');
}
