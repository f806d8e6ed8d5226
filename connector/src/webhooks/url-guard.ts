/**
 * SSRF protection for customer webhook URLs: https only, no credentials, and (unless private
 * targets are allowed, as in tests and local setups) every address the host resolves to, or the
 * IP literal it names, is global unicast as ipaddr.js classes addresses.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { echoed } from '../../../shared/errors.js';

/** Resolves a hostname to all its addresses; `dns.promises.lookup(host, { all: true })` by default. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const defaultLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true });

/**
 * Readable names for ipaddr.js's range names. Only the names: which addresses fall in which range
 * is ipaddr.js's (its SpecialRanges follow the IANA special-purpose registries), and any range
 * it names that is missing here is still refused, under its own name.
 */
const RANGE_LABELS: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared (CGNAT)',
  private: 'private',
  reserved: 'reserved',
  benchmarking: 'reserved (benchmarking)',
  as112: 'reserved (AS112)',
  as112v6: 'reserved (AS112)',
  amt: 'reserved (AMT)',
  uniqueLocal: 'unique-local (private)',
  deprecatedSiteLocal: 'site-local',
  discard: 'reserved (discard)',
  teredo: 'Teredo tunnel',
  rfc6052: 'NAT64 (local-use)',
  orchid2: 'reserved (ORCHID)',
  deprecatedOrchid: 'reserved (ORCHID)',
  droneRemoteIdProtocolEntityTags: 'reserved (DRIP)',
  segmentRouting: 'reserved (segment routing)',
};

function labelOf(range: string, v4: boolean): string {
  // 0.0.0.0/8 is "this network" (RFC 791), not only the unspecified address.
  if (v4 && range === 'unspecified') return 'unspecified ("this network")';
  return RANGE_LABELS[range] ?? range;
}

const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * The IPv4 address inside an IPv6 address that carries one to an IPv4 host: IPv4-mapped
 * (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d, RFC 6145), NAT64 with the well-known
 * prefix (64:ff9b::a.b.c.d, RFC 6052), 6to4 (2002:AABB:CCDD::) and the deprecated IPv4-compatible
 * form (::a.b.c.d). Such an address is as public as the IPv4 address it carries. Teredo and
 * local-use NAT64 (64:ff9b:1::/48) embed addresses less plainly and are refused by range instead.
 */
function embeddedIPv4(addr: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = addr.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (range === 'ipv4Mapped' || range === 'rfc6145') return v4(p[6]!, p[7]!);
  if (range === 'rfc6052') return addr.match(NAT64_WELL_KNOWN) ? v4(p[6]!, p[7]!) : null;
  if (range === '6to4') return v4(p[1]!, p[2]!);
  if (range === 'unicast' && p.slice(0, 6).every((x) => x === 0)) return v4(p[6]!, p[7]!);
  return null;
}

/**
 * The class of a non-public address ('loopback', 'private', 'link-local', ...), or null when the
 * address is public: ipaddr.js's `range()` is 'unicast' (global). Anything that is not an IP
 * address counts as 'invalid', so callers fail closed.
 */
export function addressClass(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  // node's isIP is strict (dotted quads only); ipaddr.js would also take forms such as 0x7f.1.
  const version = isIP(bare);
  if (version === 0) return 'invalid';
  if (version === 4) {
    const range = ipaddr.IPv4.parse(bare).range();
    return range === 'unicast' ? null : labelOf(range, true);
  }
  const addr = ipaddr.IPv6.parse(bare);
  const range = addr.range();
  const embedded = embeddedIPv4(addr, range);
  if (embedded) {
    const inner = embedded.range();
    return inner === 'unicast' ? null : `${labelOf(inner, true)} (IPv4 in IPv6)`;
  }
  return range === 'unicast' ? null : labelOf(range, false);
}

/**
 * True when a connection to `ip` could reach something other than the public internet: every
 * address ipaddr.js does not class as global unicast (loopback, private, link-local, CGNAT,
 * documentation, benchmarking, 6to4 relay anycast, Teredo, multicast, reserved...), and IPv6 forms
 * that carry such an IPv4 address. Non-IP input is true.
 */
export function isPrivateAddress(ip: string): boolean {
  return addressClass(ip) !== null;
}

export interface UrlGuardOptions {
  /** Skip the public-address check (tests, local development); the URL must still be https. */
  allowPrivate: boolean;
  lookup?: LookupAll;
}

/**
 * A refusal: `reason` is for the customer (an answer, the delivery log); `detail`, when there is one,
 * names the address class and the address a host resolved to, for the server's own use only.
 */
export type UrlRefusal = { ok: false; reason: string; detail?: string };

export type ResolvedTarget = { ok: true; url: URL; hostname: string; addresses: { address: string; family: number }[] } | UrlRefusal;

/**
 * The one wording for every non-public address, whatever it is. Saying which ("loopback: 127.0.0.1")
 * would tell anyone who can submit a webhook_url what the connector's internal names resolve to.
 */
export const ADDRESS_NOT_ALLOWED =
  'webhook_url points to an address webhooks may not be sent to (only public internet addresses are allowed)';

/**
 * Parses and checks a webhook URL and resolves its host once. `hostname` is the host without
 * IPv6 brackets; `addresses` are the checked addresses, which the caller must connect to (and
 * not resolve the name again, or DNS rebinding could swap in a private address).
 */
export async function resolveWebhookTarget(raw: string, opts: UrlGuardOptions): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'webhook_url is not a valid URL' };
  }
  if (url.protocol !== 'https:') return { ok: false, reason: 'webhook_url must use https' };
  if (url.username || url.password) return { ok: false, reason: 'webhook_url must not contain credentials' };

  // URL has already normalised shorthand IPv4 forms such as 127.1 or 0x7f.0.0.1.
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(hostname);
  let addresses: { address: string; family: number }[];
  if (literal) {
    addresses = [{ address: hostname, family: literal }];
  } else {
    try {
      addresses = await (opts.lookup ?? defaultLookup)(hostname);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return { ok: false, reason: `webhook_url host ${echoed(hostname)} could not be resolved${code ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `webhook_url host ${echoed(hostname)} has no addresses` };
  }

  if (!opts.allowPrivate) {
    for (const { address } of addresses) {
      const kind = addressClass(address);
      if (kind) return { ok: false, reason: ADDRESS_NOT_ALLOWED, detail: `${kind}: ${address}` };
    }
  }
  return { ok: true, url, hostname, addresses };
}

/**
 * Whether `raw` is acceptable as a webhook URL: https, no credentials, and every resolved address
 * public unless `allowPrivate`. A DNS failure is not ok. Run it when a URL is registered; delivery
 * checks again at send time because DNS answers change.
 */
export async function checkWebhookUrl(raw: string, opts: UrlGuardOptions): Promise<{ ok: true; url: URL } | UrlRefusal> {
  const target = await resolveWebhookTarget(raw, opts);
  return target.ok ? { ok: true, url: target.url } : target;
}
