/**
 * GET /metrics and who may read it (COVERCHECK_METRICS, docs/metrics.md):
 * - `loopback` (the default): a connection from this machine, by the socket's own address (never
 *   X-Forwarded-For, whatever COVERCHECK_TRUST_PROXY says), that came through no proxy: a request
 *   carrying X-Forwarded-For or Forwarded is refused, because a reverse proxy on this machine connects
 *   from loopback on behalf of every client it has;
 * - `token`: `Authorization: Bearer <COVERCHECK_METRICS_TOKEN>`, compared in constant time.
 * Anyone else is passed on to the not-found answer, the same 404 as a path that does not exist: a
 * scan learns neither that metrics exist nor which protection holds.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';

export type MetricsAccess = { mode: 'loopback' } | { mode: 'token'; token: string };

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (a dual-stack socket's form). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  if (address === '::1') return true;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return net.isIPv4(v4) && v4.startsWith('127.');
}

const digest = (s: string) => crypto.createHash('sha256').update(s).digest();

/** Whether a request may read the metrics: from its socket's address and its headers only. */
export function mayScrape(access: MetricsAccess): (req: { socket: { remoteAddress?: string }; headers: IncomingHttpHeaders }) => boolean {
  if (access.mode === 'loopback')
    return (req) =>
      isLoopback(req.socket.remoteAddress) && req.headers['x-forwarded-for'] === undefined && req.headers.forwarded === undefined;
  // Digests of equal length, so the comparison takes the same time whatever was sent.
  const expected = digest(access.token);
  return (req) => {
    const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    return m !== null && crypto.timingSafeEqual(digest(m[1]!), expected);
  };
}

/** The exposition, to the callers `access` admits; everyone else goes on to the next handler (the 404). */
export function metricsEndpoint(access: MetricsAccess, render: () => Promise<{ contentType: string; text: string }>): RequestHandler {
  const allowed = mayScrape(access);
  return (req, res, next) => {
    if (!allowed(req)) return next();
    render().then(({ contentType, text }) => {
      res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(text);
    }, next);
  };
}
