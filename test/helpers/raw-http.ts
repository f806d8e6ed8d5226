/**
 * HTTP/1.1 written by hand on a socket, for the requests fetch refuses to send: duplicate and
 * malformed headers, bodies that disagree with their headers, a client that leaves mid-body.
 * One request per connection, read until the response is whole, then the socket is closed. The
 * connection is left persistent (no Connection: close), as real clients leave it: a server that
 * answers before it has read the whole body then reads off the rest, where with Connection: close
 * node's default closes the socket on unread bytes and the reset can swallow its own answer (the
 * connector's server lingers instead, connector/src/http/server.ts).
 */
import net from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  /** Sent as given, in order, duplicates included. */
  headers: [string, string][];
  body?: Buffer;
  /** Add Content-Length from the body (default true, unless the headers give Content-Length or Transfer-Encoding). */
  contentLength?: boolean;
  /** Leave after this many body bytes: the socket is destroyed, no response is awaited. */
  abortAfter?: number;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export type RawOutcome = { ok: true; response: RawResponse } | { ok: false; reason: string };

/** The request as bytes, head and body. */
export function encodeRequest(host: string, req: RawRequest): Buffer {
  const names = new Set(req.headers.map(([n]) => n.toLowerCase()));
  const lines = [`${req.method} ${req.path} HTTP/1.1`];
  if (!names.has('host')) lines.push(`Host: ${host}`);
  for (const [n, v] of req.headers) lines.push(`${n}: ${v}`);
  const framed = names.has('content-length') || names.has('transfer-encoding');
  if (req.body && req.contentLength !== false && !framed) lines.push(`Content-Length: ${req.body.length}`);
  const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1');
  return req.body ? Buffer.concat([head, req.body]) : head;
}

/**
 * Parses one final response (after any 1xx, e.g. 100 Continue); null when `data` does not hold a
 * whole one. A response to HEAD, and a 204 or 304, has no body whatever its headers say; one
 * without Content-Length or chunked framing ends where the connection does (`closed`).
 */
export function parseResponse(data: Buffer, method = 'GET', closed = true): RawResponse | null {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return null;
  const [statusLine = '', ...headerLines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!m) return null;
  if (m[1]!.startsWith('1')) return parseResponse(data.subarray(end + 4), method, closed);
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = data.subarray(end + 4);
  if (method === 'HEAD' || m[1] === '204' || m[1] === '304') {
    body = Buffer.alloc(0);
  } else if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      if (lineEnd < 0) return null;
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (Number.isNaN(size)) return null;
      if (size === 0) break;
      if (lineEnd + 2 + size > body.length) return null;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  } else if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (body.length < length) return null;
    body = body.subarray(0, length);
  } else if (!closed) {
    return null;
  }
  return { status: Number(m[1]), headers, body, text: body.toString('utf8') };
}

/**
 * Sends `req` to `base` (http://host:port) and reads the response. Not ok when the connection
 * ends without a whole response, or after `timeoutMs`; with `abortAfter`, ok with status 0 once
 * the client has left. A response without Content-Length or chunked framing is whole only when
 * the server closes.
 */
export function sendRaw(base: string, req: RawRequest, timeoutMs = 20_000): Promise<RawOutcome> {
  const url = new URL(base);
  const bytes = encodeRequest(url.host, req);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(url.port), url.hostname);
    let done = false;
    const finish = (outcome: RawOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ ok: false, reason: `no response within ${timeoutMs} ms` }), timeoutMs);
    const settle = (why: string) => {
      const response = parseResponse(Buffer.concat(chunks), req.method);
      finish(
        response
          ? { ok: true, response }
          : { ok: false, reason: `${why} without a whole response (${Buffer.concat(chunks).length} bytes read)` },
      );
    };
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      const response = parseResponse(Buffer.concat(chunks), req.method, false);
      if (response) finish({ ok: true, response });
    });
    // The server may answer and close before it has read all of a body (node's own refusal of a
    // malformed request does): writing the rest then fails; what it answered is what counts.
    socket.on('error', (err: NodeJS.ErrnoException) => settle(`connection error ${err.code ?? err.message}`));
    socket.on('close', () => settle('connection closed'));
    socket.on('connect', () => {
      if (req.abortAfter !== undefined) {
        const headLength = bytes.length - (req.body?.length ?? 0);
        socket.write(bytes.subarray(0, headLength + req.abortAfter), () => {
          // Give the server a moment to start reading, then leave.
          setTimeout(() => finish({ ok: true, response: { status: 0, headers: {}, body: Buffer.alloc(0), text: '' } }), 20);
        });
        return;
      }
      socket.write(bytes);
    });
  });
}

/** A multipart/form-data body with the given boundary and parts, as browsers build it. */
export function multipartBody(
  boundary: string,
  parts: { name: string; filename?: string; type?: string; data: Buffer | string }[],
  opts: { close?: boolean } = {},
): Buffer {
  const out: Buffer[] = [];
  for (const p of parts) {
    const disposition = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    out.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`, 'latin1'),
    );
    out.push(typeof p.data === 'string' ? Buffer.from(p.data) : p.data, Buffer.from('\r\n'));
  }
  if (opts.close !== false) out.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(out);
}
