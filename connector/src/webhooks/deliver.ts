/**
 * One webhook delivery attempt: sign, resolve and check the host, POST over HTTPS pinned to the
 * checked address, and report the outcome without throwing.
 */
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { signWebhook } from '../../../shared/webhooks.js';
import { resolveWebhookTarget, type LookupAll, type ResolvedTarget } from './url-guard.js';

export interface DeliveryRequest {
  url: string;
  /** The event id, sent as `webhook-id`; the same on every retry so receivers can drop duplicates. */
  id: string;
  /** Unix seconds of this attempt, sent as `webhook-timestamp` and signed. */
  timestampS: number;
  /** The exact JSON text to send and sign. */
  body: string;
  secret: string;
}

export interface DeliveryAttempt {
  /** True for a 2xx answer. */
  ok: boolean;
  /** The HTTP status, or null when no response arrived. */
  status: number | null;
  /** Why the attempt failed, readable by the customer; null when ok. */
  error: string | null;
  durationMs: number;
}

export interface DeliverOptions {
  /** Deadline for the whole attempt: DNS, connect, TLS, and the response. */
  timeoutMs: number;
  /** Allow private and loopback targets (tests, local setups). */
  allowPrivate: boolean;
  /** An extra trusted CA (tests with a self-signed certificate); production leaves it unset. */
  ca?: string | Buffer;
  lookup?: LookupAll;
  userAgent?: string;
  /** Monotonic clock in ms, for durationMs. */
  now?: () => number;
}

/** Response bytes read before the rest is dropped; the body is never used, only drained. */
const MAX_RESPONSE_BYTES = 64 * 1024;

const DEFAULT_USER_AGENT = 'Covercheck-Webhooks/1';

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** A network or TLS error as advice-sized text. */
function describeError(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const code = e.code ?? '';
  if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) {
    return `TLS error: ${e.message} (${code}); the endpoint needs a certificate from a public CA that matches its host name`;
  }
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET') return 'connection reset by the endpoint';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'host unreachable';
  return code ? `${e.message} (${code})` : e.message || String(err);
}

/**
 * A lookup for https.request that answers only with the addresses already checked, so the
 * socket cannot reach a different address than the one validated (DNS rebinding).
 */
function pinnedLookup(addresses: { address: string; family: number }[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    const first = wanted[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      return;
    }
    // Node 20 asks for all addresses when autoSelectFamily (happy eyeballs) is on.
    if (options.all) (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, wanted);
    else callback(null, first.address, first.family);
  };
}

/**
 * Makes one delivery attempt. Redirects are not followed (a 3xx is a failure), so a receiver cannot
 * bounce us to an unchecked host. Never throws.
 */
export async function deliverWebhook(req: DeliveryRequest, opts: DeliverOptions): Promise<DeliveryAttempt> {
  const now = opts.now ?? (() => performance.now());
  const started = now();
  const result = (status: number | null, error: string | null): DeliveryAttempt => ({
    ok: error === null,
    status,
    error,
    durationMs: Math.round(now() - started),
  });

  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const timedOut = () => `timed out after ${opts.timeoutMs} ms`;

  let target: ResolvedTarget;
  try {
    // A lookup cannot be cancelled, only outrun; its late answer is ignored.
    let onExpire = () => {};
    const expired = new Promise<null>((resolve) => {
      onExpire = () => resolve(null);
      deadline.addEventListener('abort', onExpire, { once: true });
    });
    const resolving = resolveWebhookTarget(req.url, { allowPrivate: opts.allowPrivate, lookup: opts.lookup });
    const first = await Promise.race([resolving, expired]).finally(() => deadline.removeEventListener('abort', onExpire));
    if (first === null) return result(null, timedOut());
    target = first;
  } catch (err) {
    return result(null, describeError(err));
  }
  if (!target.ok) return result(null, `refused: ${target.reason}`);

  let signature: string;
  try {
    signature = signWebhook(req.secret, req.id, req.timestampS, req.body);
  } catch (err) {
    return result(null, describeError(err));
  }

  const { url, hostname, addresses } = target;
  return new Promise<DeliveryAttempt>((resolve) => {
    let status: number | null = null;
    let settled = false;
    const finish = (error: string | null) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onAbort);
      resolve(result(status, error));
    };

    const request = https.request({
      method: 'POST',
      host: hostname,
      port: url.port || 443,
      path: url.pathname + url.search,
      // SNI and the certificate check use the name; TLS forbids an IP address as SNI.
      servername: isIP(hostname) ? undefined : hostname,
      lookup: pinnedLookup(addresses),
      // A fresh socket per attempt: a pooled one could have been opened to another address.
      agent: false,
      ca: opts.ca,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(req.body),
        'user-agent': opts.userAgent ?? DEFAULT_USER_AGENT,
        'webhook-id': req.id,
        'webhook-timestamp': String(req.timestampS),
        'webhook-signature': signature,
      },
    });

    const onAbort = () => {
      request.destroy();
      finish(timedOut());
    };
    if (deadline.aborted) return onAbort();
    deadline.addEventListener('abort', onAbort, { once: true });

    request.on('error', (err) => finish(describeError(err)));
    request.on('response', (res) => {
      status = res.statusCode ?? null;
      const error = status !== null && status >= 200 && status < 300 ? null : `HTTP ${status}`;
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read < MAX_RESPONSE_BYTES) return;
        // Enough: the status decides the outcome; do not let a receiver stream at us forever.
        res.destroy();
        request.destroy();
        finish(error);
      });
      res.on('end', () => finish(error));
      res.on('error', () => finish(error));
      res.on('close', () => finish(error));
    });
    request.end(req.body);
  });
}
