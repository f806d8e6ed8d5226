/**
 * SSRF protection for customer webhook URLs: https only, no credentials, and (unless private
 * targets are allowed, as in tests and local setups) every address the host resolves to is public.
 */
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';

/** Resolves a hostname to all its addresses; `dns.promises.lookup(host, { all: true })` by default. */
export type LookupAll = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const defaultLookup: LookupAll = (hostname) => dns.lookup(hostname, { all: true });

type Range = readonly [prefix: readonly number[], bits: number, kind: string];

// Order matters only where ranges nest: the narrower, more telling name comes first.
const V4_RANGES: readonly Range[] = [
  [[255, 255, 255, 255], 32, 'broadcast'],
  [[0], 8, 'unspecified ("this network")'],
  [[10], 8, 'private'],
  [[100, 64], 10, 'shared (CGNAT)'],
  [[127], 8, 'loopback'],
  [[169, 254], 16, 'link-local'],
  [[172, 16], 12, 'private'],
  [[192, 0, 0], 24, 'reserved'],
  [[192, 168], 16, 'private'],
  [[198, 18], 15, 'reserved (benchmarking)'],
  [[224], 4, 'multicast'],
  [[240], 4, 'reserved'],
];

const V6_RANGES: readonly Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0x01, 0x00], 64, 'reserved (discard)'],
  [[0xfc], 7, 'unique-local (private)'],
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'site-local'],
  [[0xff], 8, 'multicast'],
];

/** IPv6 prefixes that carry an IPv4 address, with the byte offset of that address. */
const V4_EMBEDDING: readonly (readonly [prefix: readonly number[], bits: number, offset: number])[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 12], // IPv4-mapped ::ffff:a.b.c.d
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96, 12], // IPv4-compatible ::a.b.c.d (deprecated, still routable by some stacks)
  [[0x00, 0x64, 0xff, 0x9b], 96, 12], // NAT64 64:ff9b::a.b.c.d reaches the IPv4 address through a translator
  [[0x20, 0x02], 16, 2], // 6to4 2002:AABB:CCDD::
];

function inPrefix(bytes: readonly number[], prefix: readonly number[], bits: number): boolean {
  for (let i = 0; i * 8 < bits; i++) {
    const take = Math.min(8, bits - i * 8);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((prefix[i] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(ip: string): number[] {
  return ip.split('.').map(Number);
}

/** The 16 bytes of a valid IPv6 address (the caller has checked it with isIP). */
function v6Bytes(ip: string): number[] {
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    tail.push(...v4Bytes(text.slice(lastColon + 1)));
    text = text.slice(0, lastColon + 1) + '0';
  }
  const [head = '', rest] = text.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const front = groups(head);
  const back = rest === undefined ? [] : groups(rest);
  const words = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = words.flatMap((w) => [w >> 8, w & 0xff]);
  if (tail.length) bytes.splice(12, 4, ...tail);
  return bytes;
}

function classifyV4(bytes: readonly number[]): string | null {
  return V4_RANGES.find(([prefix, bits]) => inPrefix(bytes, prefix, bits))?.[2] ?? null;
}

/**
 * The class of a non-public address ('loopback', 'private', 'link-local', ...), or null when the
 * address is public. Anything that is not an IP address counts as 'invalid', so callers fail closed.
 */
export function addressClass(ip: string): string | null {
  const bare = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const version = isIP(bare);
  if (version === 4) return classifyV4(v4Bytes(bare));
  if (version !== 6) return 'invalid';
  const bytes = v6Bytes(bare);
  const own = V6_RANGES.find(([prefix, bits]) => inPrefix(bytes, prefix, bits));
  if (own) return own[2];
  for (const [prefix, bits, offset] of V4_EMBEDDING) {
    if (!inPrefix(bytes, prefix, bits)) continue;
    const embedded = classifyV4(bytes.slice(offset, offset + 4));
    return embedded && `${embedded} (IPv4 in IPv6)`;
  }
  return null;
}

/**
 * True when a connection to `ip` could reach something other than the public internet: loopback,
 * private, link-local, CGNAT, unspecified, multicast, reserved and broadcast IPv4; the IPv6
 * equivalents; and IPv6 forms that embed one of those IPv4 addresses. Non-IP input is true.
 */
export function isPrivateAddress(ip: string): boolean {
  return addressClass(ip) !== null;
}

export interface UrlGuardOptions {
  /** Skip the public-address check (tests, local development); the URL must still be https. */
  allowPrivate: boolean;
  lookup?: LookupAll;
}

export type ResolvedTarget =
  | { ok: true; url: URL; hostname: string; addresses: { address: string; family: number }[] }
  | { ok: false; reason: string };

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
      return { ok: false, reason: `webhook_url host ${hostname} could not be resolved${code ? ` (${code})` : ''}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `webhook_url host ${hostname} has no addresses` };
  }

  if (!opts.allowPrivate) {
    for (const { address } of addresses) {
      const kind = addressClass(address);
      if (kind) return { ok: false, reason: `webhook_url resolves to a private address (${kind}: ${address})` };
    }
  }
  return { ok: true, url, hostname, addresses };
}

/**
 * Whether `raw` is acceptable as a webhook URL: https, no credentials, and every resolved address
 * public unless `allowPrivate`. A DNS failure is not ok. Run it when a URL is registered; delivery
 * checks again at send time because DNS answers change.
 */
export async function checkWebhookUrl(raw: string, opts: UrlGuardOptions): Promise<{ ok: true; url: URL } | { ok: false; reason: string }> {
  const target = await resolveWebhookTarget(raw, opts);
  return target.ok ? { ok: true, url: target.url } : target;
}
