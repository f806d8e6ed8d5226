/**
 * UrlFetchApp with the manifest's urlFetchWhitelist and the documented UrlFetch limits, sending
 * real HTTP to a loopback server for each allowlisted host (the connector child), and Drive API
 * requests to the Drive stand-in. Every round trip moves the simulated clock by its real duration
 * (or `rttMs`, whichever is longer).
 */
import crypto from 'node:crypto';
import { DRIVE_API, type DriveStandin } from './drive.js';
import { allowlisted } from './manifest.js';
import { Clock, GasError, type Guard } from './runtime.js';
import type { DailyQuota } from './storage.js';
import type { RawReq, RawRes, SyncHttp } from './sync-http.js';
import { FakeBlob } from './utilities.js';

type V = any;

/**
 * "Quotas for Google Services": URL Fetch calls 20,000 / day (consumer accounts), URL length
 * 2 KB / URL, POST size 50 MB / call, response size 50 MB / call, headers 100 / call, header size
 * 8 KB / call.
 */
export const URLFETCH_LIMITS = {
  dailyCalls: 20_000,
  urlChars: 2 * 1024,
  postBytes: 50 * 1024 * 1024,
  responseBytes: 50 * 1024 * 1024,
  headers: 100,
  headerBytes: 8 * 1024,
} as const;

export interface FetchStats {
  requests: number;
  roundTrips: number;
  log: { method: string; url: string; status: number | string }[];
}

export interface FetchHost {
  guard: Guard;
  clock: Clock;
  allowlist: string[] | undefined;
  /** Origin as the add-on names it (https://covercheck.example.com) -> where it really listens (http://127.0.0.1:port). */
  hosts: Record<string, string>;
  drive: DriveStandin;
  http: SyncHttp;
  rttMs: number;
  offline: () => boolean;
  quota: () => DailyQuota;
  stats: () => FetchStats;
}

function toRaw(url: string, p: V = {}): RawReq {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.headers ?? {})) headers[k] = String(v);
  let body: Uint8Array | string | undefined;
  if (typeof p.payload === 'string') {
    body = p.payload;
    headers['content-type'] = p.contentType ?? 'application/x-www-form-urlencoded';
  } else if (p.payload && typeof p.payload === 'object') {
    // reference/url-fetch/url-fetch-app#fetch(String,Object): an object payload holding a Blob goes out as multipart/form-data.
    const boundary = `----gas${crypto.randomBytes(8).toString('hex')}`;
    const parts: Buffer[] = [];
    for (const [k, v] of Object.entries(p.payload as Record<string, V>)) {
      if (v instanceof FakeBlob) {
        parts.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${k}"; filename="${v.getName()}"\r\nContent-Type: ${v.getContentType()}\r\n\r\n`,
          ),
          Buffer.from(v.raw()),
          Buffer.from('\r\n'),
        );
      } else parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${String(v)}\r\n`));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    body = new Uint8Array(Buffer.concat(parts));
    headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
  }
  return { url, method: String(p.method ?? 'get').toUpperCase(), headers, ...(body !== undefined ? { body } : {}) };
}

export function makeUrlFetchApp(host: FetchHost) {
  const check = (req: RawReq) => {
    if (req.url.length > URLFETCH_LIMITS.urlChars)
      throw new GasError(`Limit Exceeded: URLFetch URL Length (${req.url.length} characters, at most ${URLFETCH_LIMITS.urlChars}).`);
    // Allowlist URLs guide: "script projects can't access URLs that have not been added to the allowlist".
    if (host.allowlist && !allowlisted(req.url, host.allowlist))
      throw new GasError(`UrlFetch to ${req.url} is not allowed: it matches no prefix of the manifest's urlFetchWhitelist.`);
    if (Object.keys(req.headers).length > URLFETCH_LIMITS.headers) throw new GasError('Limit Exceeded: URLFetch headers (more than 100).');
    if (Object.entries(req.headers).reduce((n, [k, v]) => n + k.length + v.length, 0) > URLFETCH_LIMITS.headerBytes)
      throw new GasError('Limit Exceeded: URLFetch header size (more than 8 KB).');
    const size = req.body === undefined ? 0 : typeof req.body === 'string' ? Buffer.byteLength(req.body) : req.body.length;
    if (size > URLFETCH_LIMITS.postBytes)
      throw new GasError(`Limit Exceeded: URLFetch POST Size (${size} bytes, at most ${URLFETCH_LIMITS.postBytes}).`);
  };
  const response = (r: RawRes, url: string, p: V) => {
    if (r.error) throw new GasError(`Address unavailable: ${url}`);
    if (r.body!.length > URLFETCH_LIMITS.responseBytes) throw new GasError('Limit Exceeded: URLFetch response size (more than 50 MB).');
    if (r.status! >= 400 && !p.muteHttpExceptions)
      throw new GasError(
        `Request failed for ${url} returned code ${r.status}. Truncated server response: ${Buffer.from(r.body!).toString('utf8').slice(0, 200)}`,
      );
    const text = Buffer.from(r.body!).toString('utf8');
    return {
      getResponseCode: () => r.status,
      getContentText: () => text,
      getHeaders: () => ({ ...r.headers }),
      getAllHeaders: () => ({ ...r.headers }),
      getContent: () => Array.from(r.body!, (b) => (b > 127 ? b - 256 : b)),
      getBlob: () => new FakeBlob(r.body!, r.headers?.['content-type'] ?? '', ''),
    };
  };
  const send = (method: string, items: { url: string; p: V }[]) => {
    host.guard.call(method);
    const reqs = items.map(({ url, p }) => toRaw(url, p));
    reqs.forEach(check);
    host.quota().take(reqs.length);
    const stats = host.stats();
    stats.roundTrips++;
    stats.requests += reqs.length;
    const started = performance.now();
    const out: RawRes[] = new Array(reqs.length);
    if (host.offline()) reqs.forEach((_, i) => (out[i] = { error: 'offline', ms: 0 }));
    else {
      const remote: { i: number; req: RawReq }[] = [];
      reqs.forEach((req, i) => {
        if (req.url.startsWith(DRIVE_API)) out[i] = host.drive.handle(req);
        else {
          const origin = new URL(req.url).origin;
          const target = host.hosts[origin];
          if (target) remote.push({ i, req: { ...req, url: target + req.url.slice(origin.length) } });
          else out[i] = { error: 'no such host', ms: 0 };
        }
      });
      host.http.send(remote.map((x) => x.req)).forEach((r, j) => (out[remote[j]!.i] = r));
    }
    host.clock.advance(Math.max(performance.now() - started, host.rttMs));
    out.forEach((r, i) => stats.log.push({ method: reqs[i]!.method, url: reqs[i]!.url, status: r.status ?? r.error ?? '?' }));
    host.guard.checkTime();
    return out.map((r, i) => response(r, items[i]!.url, items[i]!.p));
  };
  return {
    fetch: (url: string, params?: V) => send('UrlFetchApp.fetch', [{ url, p: params ?? {} }])[0],
    fetchAll: (requests: V[]) =>
      send(
        'UrlFetchApp.fetchAll',
        requests.map((r) => ({ url: typeof r === 'string' ? r : r.url, p: typeof r === 'string' ? {} : r })),
      ),
  };
}
