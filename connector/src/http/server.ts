/**
 * The HTTP server for an Express app, built so that Express does not re-prototype every request.
 *
 * Express 5 gives each request and response its app's methods by changing their prototype
 * (`Object.setPrototypeOf(req, app.request)` in `app.handle`). On V8 that change on a live object
 * is expensive in itself and leaves every later property access on `req` and `res`, in Express and
 * in node's own HTTP code, on a slow path. Measured on the 2-core development machine with a hello
 * route: 80–97 µs of server CPU per request through Express against 13–19 µs for node's http alone,
 * and 23–28 µs for the same Express app on this server (docs/benchmarks.md).
 *
 * node's `http.createServer` takes the constructors of its request and response objects
 * (`IncomingMessage`, `ServerResponse` options). These build them with the app's prototypes from the
 * start, so Express's `setPrototypeOf` finds the prototype already in place and changes nothing.
 * Express itself is untouched: same middleware, same `req`/`res` API.
 *
 * It also holds the connection bounds and timeouts (connection-limits.ts, docs/connection-limits.md):
 * a connection over a bound is refused before node's HTTP parser is attached to it.
 */
import http from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import type { TErrorBody } from '../../../shared/errors.js';
import { errorBody } from '../errors.js';
import { ConnectionCount, resolveConnectionLimits, type ConnectionLimits, type OverBound } from './connection-limits.js';

/**
 * Whether node's request and response constructors are plain functions (so far they are), which
 * can be called on an object made with another prototype. `Reflect.construct` would also work for
 * classes but was measured slower than Express's own way (128 against 82 µs per request), so a
 * node whose constructors are classes gets node's default objects instead.
 */
export const prototypedRequests = [http.IncomingMessage, http.ServerResponse].every(
  (c) => !/^class\b/.test(Function.prototype.toString.call(c)),
);

/** A constructor that builds what `base` builds, with `proto` as the prototype of its objects. */
function withPrototype<C extends Function>(base: C, proto: object): C {
  // Two arguments: node calls these as (socket) and (req, options).
  function Construct(this: object, a: unknown, b: unknown): void {
    (base as unknown as (...args: unknown[]) => void).call(this, a, b);
  }
  Construct.prototype = proto;
  return Construct as unknown as C;
}

/** `limits`: default, the defaults of the configuration with the total derived from this process's descriptor limit. */
export function createHttpServer(app: Express, limits: ConnectionLimits = resolveConnectionLimits()): http.Server {
  const server = http.createServer(
    {
      // How often node looks for connections past headersTimeout and requestTimeout: its default
      // (30 s) would let a slow client hold a connection that much longer than either.
      connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(limits.headersTimeoutMs / 10))),
      ...(prototypedRequests
        ? {
            IncomingMessage: withPrototype(http.IncomingMessage, app.request),
            ServerResponse: withPrototype(http.ServerResponse, app.response),
          }
        : {}),
    },
    app,
  );
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  // A backstop: past it node closes a new connection before any of this code sees it.
  server.maxConnections = limits.maxTotal + limits.maxRefusing;
  boundConnections(server, limits);
  server.on('clientError', answerClientError);
  // RFC 9110 10.1.1: a server MAY answer an Expect it does not know with 417; node does, with an
  // empty body. Ignoring the expectation is allowed too, and keeps every answer the app's.
  server.on('checkExpectation', app);
  // This is not a proxy: without a listener node drops the connection without a word.
  server.on('connect', (_req: http.IncomingMessage, socket: Duplex) =>
    writeRefusal(socket, errorBody('invalid_request', 'CONNECT is not supported: this is not a proxy.')),
  );
  return server;
}

/** How long a refused connection may take to read its 503 before it is dropped, and when to come back. */
const REFUSAL_LINGER_MS = 1000;
const REFUSAL_RETRY_AFTER_S = 2;

/**
 * Counts each connection in at accept and out at close, and hands it to node's HTTP parser only
 * within the bounds; one over a bound gets a short 503 (refuseConnection). A connection that has
 * sent no byte after `idleMs` is closed: node's headersTimeout also covers it, but later, and is
 * meant for clients that are sending.
 */
function boundConnections(server: http.Server, limits: ConnectionLimits): void {
  // The one listener node's http.Server adds for itself: it attaches the HTTP parser.
  const own = server.listeners('connection');
  if (own.length !== 1) throw new Error(`http.Server has ${own.length} 'connection' listeners; expected node's own one`);
  const attachParser = own[0] as (socket: net.Socket) => void;
  server.removeListener('connection', attachParser);
  const count = new ConnectionCount(limits);
  let refusing = 0;
  server.on('connection', (socket: net.Socket & { destroySoon?: () => void }) => {
    const address = socket.remoteAddress;
    if (address === undefined) {
      // Closed by the client before it was accepted.
      socket.destroy();
      return;
    }
    const over = count.admit(address);
    if (over) {
      socket.on('error', () => socket.destroy());
      if (refusing >= limits.maxRefusing) {
        socket.destroy();
        return;
      }
      refusing++;
      socket.once('close', () => refusing--);
      refuseConnection(socket, over);
      return;
    }
    const idle = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, limits.idleMs).unref();
    socket.once('close', () => {
      clearTimeout(idle);
      count.release(address);
    });
    // Node ends a connection whose last answer went out (Connection: close, HTTP/1.0) with the socket's
    // destroySoon(), which destroys it as soon as the answer is written: with a body the route refused
    // without reading still arriving, the kernel resets the connection and the client, still sending,
    // gets ECONNRESET or EPIPE and may lose the answer. Such a close lingers instead, as a refusal's does.
    socket.destroySoon = () => lingeringClose(socket);
    attachParser.call(server, socket);
  });
}

/**
 * The 503 for a connection over a bound, written before the client has asked anything (a client
 * reads it as the answer to the request it sends), then a short lingering close: what the client
 * sends meanwhile is read and dropped, so that no reset discards the answer, for REFUSAL_LINGER_MS.
 */
function refuseConnection(socket: net.Socket, over: OverBound): void {
  const refusal: TErrorBody = {
    ...errorBody(
      'service_unavailable',
      over === 'address'
        ? 'Too many connections from this address; close idle ones or retry later.'
        : 'The server holds as many connections as it can; retry later.',
    ),
    retry_after: REFUSAL_RETRY_AFTER_S,
  };
  socket.end(responseText(refusal, `Retry-After: ${REFUSAL_RETRY_AFTER_S}\r\n`));
  socket.resume();
  const linger = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS).unref();
  socket.once('close', () => clearTimeout(linger));
}

/**
 * Sockets answered by answerClientError or closing (lingeringClose): node reports every further chunk
 * of an unparseable request again, and data after a Connection: close request as an error too.
 */
const answered = new WeakSet<Duplex>();
/** How long a refused client may go on sending before its connection is dropped. */
const LINGER_MS = 10_000;

/**
 * Requests node's HTTP parser refuses before the app sees them (a malformed request line or header,
 * conflicting Content-Length and Transfer-Encoding, headers over 16 KB, a request timeout) get the
 * contract's error body instead of node's bare status line. As node's own default does: nothing on
 * a socket that is gone.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (answered.has(socket)) return;
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  answered.add(socket);
  refuseAfterAnswers(
    socket,
    err.code === 'HPE_HEADER_OVERFLOW'
      ? errorBody('headers_too_large', 'The request line and headers are too large.')
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? errorBody('request_timeout', 'The request did not arrive in time.')
        : errorBody('invalid_request', `Malformed HTTP request${err.code?.startsWith('HPE_') ? ` (${err.code})` : ''}.`),
  );
}

/**
 * The refusal goes out after the answers to the requests that arrived whole before the refused
 * bytes. Those bytes can follow a whole request on the same connection: a body sent without
 * Content-Length or Transfer-Encoding is, for HTTP/1.1, the next request, and a malformed one (the
 * fuzz's HEAD with a 14 MB multipart body, seed 17). Node's default, which this once copied, is to
 * destroy the socket when that request's answer has begun: with the client's body still unread the
 * kernel then resets the connection, and the client lost the answer it had been sent (ECONNRESET,
 * 0 bytes). Writing the refusal at once when the answer had not begun put it in that request's
 * place. A request whose own bytes were refused (a bad chunk, a timeout) is never whole, so its
 * refusal is its answer; one whose answer has begun cannot get it, and its connection is dropped.
 */
function refuseAfterAnswers(socket: Duplex, refusal: TErrorBody): void {
  const current = (socket as { _httpMessage?: http.ServerResponse | null })._httpMessage;
  if (current?.req.complete) {
    // Meanwhile what the client sends is read (node's parser goes on reporting it, ignored above).
    current.once('finish', () => refuseAfterAnswers(socket, refusal));
    return;
  }
  if (!socket.writable) {
    // Closing already: the answer in front was the connection's last (the client asked to close).
    lingeringClose(socket);
    return;
  }
  if (current?.headersSent) {
    socket.destroy();
    return;
  }
  writeRefusal(socket, refusal);
}

/** An error response written straight to the socket (there is no response object), then a lingering close. */
function writeRefusal(socket: Duplex, refusal: TErrorBody): void {
  socket.write(responseText(refusal));
  lingeringClose(socket);
}

/** A whole HTTP/1.1 response carrying the contract's error body, closing the connection; `headers`: more header lines, each ending CRLF. */
function responseText(refusal: TErrorBody, headers = ''): string {
  const body = JSON.stringify(refusal);
  return `HTTP/1.1 ${refusal.code} ${http.STATUS_CODES[refusal.code]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${headers}Connection: close\r\n\r\n${body}`;
}

/**
 * A lingering close (RFC 9112 9.6): the write side is closed and what the client still sends is read
 * and dropped, for at most LINGER_MS; the socket goes when the client closes its side. Closing at once
 * on unread bytes, as node does, makes the kernel reset the connection, which can discard the answer
 * before the client has read it (a client still sending a large body never sees why it was refused).
 */
function lingeringClose(socket: Duplex): void {
  answered.add(socket);
  if (socket.writable) socket.end();
  socket.resume();
  (socket as Duplex & { setTimeout?: (ms: number, cb: () => void) => void }).setTimeout?.(LINGER_MS, () => socket.destroy());
}

/** `createHttpServer(app, limits).listen(port, host)`, resolved once listening (rejected on e.g. EADDRINUSE). */
export async function listen(app: Express, port: number, host: string, limits?: ConnectionLimits): Promise<http.Server> {
  const server = createHttpServer(app, limits);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
