/**
 * Bounds on the connections the HTTP server holds (docs/connection-limits.md). In total, so that
 * connections never take the descriptors the store, the extraction process and the logs need; and
 * per client address, so that one client cannot take the total from the others. The server counts
 * a connection in when it is accepted and out when it closes (http/server.ts).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { CONNECTION_DEFAULTS, type Config } from '../config.js';

export type ConnectionSettings = Config['connections'];

export interface ConnectionLimits {
  /** Connections held at once, in all and from one client address (addressKey). */
  maxTotal: number;
  maxPerAddress: number;
  /**
   * Refused connections being answered at once: each holds a descriptor while its 503 goes out.
   * Beyond this, a refused connection is closed without a word, so refusals cannot use up the reserve.
   */
  maxRefusing: number;
  idleMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** The process's descriptor limit (RLIMIT_NOFILE, soft); null when unknown. */
  openFiles: number | null;
  /** Set when a configured total leaves less than the reserve of that limit free. */
  warning: string | null;
}

/** The total where the descriptor limit cannot be read (no /proc) or is unlimited. */
const TOTAL_WITHOUT_LIMIT = 4096;
/** Connections from one address unless set: far more than a client's connection pool needs. */
const PER_ADDRESS_DEFAULT = 256;
const REFUSING_AT_ONCE = 64;

/** The soft limit on open descriptors (RLIMIT_NOFILE) from /proc/self/limits; null when unknown or unlimited. */
export function openFilesLimit(read: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | null {
  let text: string;
  try {
    text = read();
  } catch {
    return null;
  }
  const n = Number(/^Max open files\s+(\d+)\s/m.exec(text)?.[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

/**
 * The bounds for `settings`: a total not set is the descriptor limit less the reserve (at most half
 * the limit, so that a small limit still serves) and the refusals in flight. A per-address bound not
 * set is PER_ADDRESS_DEFAULT, or the total behind a proxy, where every connection comes from the
 * proxy's address.
 */
export function resolveConnectionLimits(
  settings: ConnectionSettings = CONNECTION_DEFAULTS,
  opts: { behindProxy?: boolean; openFiles?: number | null } = {},
): ConnectionLimits {
  const openFiles = opts.openFiles !== undefined ? opts.openFiles : openFilesLimit();
  const maxRefusing = openFiles === null ? REFUSING_AT_ONCE : Math.max(1, Math.min(REFUSING_AT_ONCE, Math.floor(openFiles / 16)));
  const reserve = openFiles === null ? 0 : Math.min(settings.fdReserve, Math.floor(openFiles / 2));
  const maxTotal = settings.maxTotal ?? (openFiles === null ? TOTAL_WITHOUT_LIMIT : Math.max(1, openFiles - reserve - maxRefusing));
  const warning =
    openFiles !== null && maxTotal + maxRefusing > openFiles - reserve
      ? `COVERCHECK_MAX_CONNECTIONS (${maxTotal}) leaves fewer than ${reserve} of the process's ${openFiles} descriptors for the store, the extraction process and the logs`
      : null;
  const maxPerAddress = Math.min(maxTotal, settings.maxPerAddress ?? (opts.behindProxy ? maxTotal : PER_ADDRESS_DEFAULT));
  return {
    maxTotal,
    maxPerAddress,
    maxRefusing,
    idleMs: settings.idleMs,
    // node refuses a headers timeout longer than the request timeout.
    headersTimeoutMs: Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs),
    requestTimeoutMs: settings.requestTimeoutMs,
    keepAliveTimeoutMs: settings.keepAliveTimeoutMs,
    openFiles,
    warning,
  };
}

/**
 * What the per-address bound counts by: an IPv4 address (also written IPv4-mapped, ::ffff:a.b.c.d),
 * or an IPv6 client's /64, the smallest block a client is usually given, so that a client cannot
 * dodge the bound by walking through its own addresses.
 */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const bare = address.split('%')[0]!;
  if (!net.isIPv6(bare)) return address;
  // An IPv4 tail (::1.2.3.4) stands for the last two groups.
  const groups = (s: string) => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const [head = '', tail] = bare.split('::');
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/** Which bound a connection was over. */
export type OverBound = 'total' | 'address';

/** Counts the connections held, in all and per addressKey. */
export class ConnectionCount {
  private total = 0;
  private readonly byAddress = new Map<string, number>();

  constructor(private readonly limits: Pick<ConnectionLimits, 'maxTotal' | 'maxPerAddress'>) {}

  /** Counts a connection from `address` in, or says which bound it is over (then nothing is counted). */
  admit(address: string): OverBound | null {
    const key = addressKey(address);
    const fromAddress = this.byAddress.get(key) ?? 0;
    if (fromAddress >= this.limits.maxPerAddress) return 'address';
    if (this.total >= this.limits.maxTotal) return 'total';
    this.total++;
    this.byAddress.set(key, fromAddress + 1);
    return null;
  }

  /** Counts out a connection `admit` counted in. */
  release(address: string): void {
    const key = addressKey(address);
    const n = this.byAddress.get(key) ?? 0;
    if (n <= 1) this.byAddress.delete(key);
    else this.byAddress.set(key, n - 1);
    this.total = Math.max(0, this.total - 1);
  }

  held(): number {
    return this.total;
  }
}
