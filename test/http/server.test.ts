/**
 * createHttpServer: Express must find every request and response already on its app's prototype
 * (so its setPrototypeOf changes nothing), and everything Express gives a route must still work;
 * and its connection bounds (test/noisy-neighbour/idle-connections.test.ts has them under attack).
 */
import express from 'express';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONNECTION_DEFAULTS } from '../../connector/src/config.js';
import { addressKey, openFilesLimit, resolveConnectionLimits } from '../../connector/src/http/connection-limits.js';
import { createHttpServer, listen, prototypedRequests } from '../../connector/src/http/server.js';

function app(): express.Express {
  const a = express();
  a.post('/echo', express.json(), (req, res) => {
    res.locals.seen = req.get('x-probe');
    res.status(201).json({ body: req.body, probe: res.locals.seen, path: req.path, query: req.query });
  });
  const sub = express();
  sub.get('/page', (req, res) => {
    res.type('text').send(`sub ${req.baseUrl}`);
  });
  a.use('/sub', sub);
  a.get('/after-sub', (_req, res) => {
    res.json({ ok: true });
  });
  return a;
}

/** Counts the calls of Object.setPrototypeOf that change the prototype of a request or a response. */
function countReprototyping(): { count: () => number } {
  let changed = 0;
  const original = Object.setPrototypeOf;
  vi.spyOn(Object, 'setPrototypeOf').mockImplementation((o: object, proto: object | null) => {
    if ((o instanceof http.IncomingMessage || o instanceof http.ServerResponse) && Object.getPrototypeOf(o) !== proto) changed++;
    return original(o, proto);
  });
  return { count: () => changed };
}

async function serve(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let open: http.Server | null = null;
afterEach(async () => {
  vi.restoreAllMocks();
  if (open) await new Promise((r) => open!.close(r));
  open = null;
});

async function echo(base: string): Promise<unknown> {
  const res = await fetch(`${base}/echo?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-probe': 'p' },
    body: JSON.stringify({ a: [1, 'b'] }),
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
  return res.json();
}

describe('createHttpServer', () => {
  it('uses constructors node lets it call on this node version', () => {
    // If node ever makes them classes, createHttpServer falls back to node's objects: this says so.
    expect(prototypedRequests).toBe(true);
  });

  it('builds requests and responses on the app prototypes, so Express re-prototypes nothing', async () => {
    const a = app();
    open = createHttpServer(a);
    const base = await serve(open);
    const spy = countReprototyping();
    expect(await echo(base)).toEqual({ body: { a: [1, 'b'] }, probe: 'p', path: '/echo', query: { x: '1' } });
    expect(await (await fetch(`${base}/after-sub`)).json()).toEqual({ ok: true });
    expect(spy.count()).toBe(0);
  });

  it('against a plain app.listen, the same requests are re-prototyped twice each (what it saves)', async () => {
    open = http.createServer(app());
    const base = await serve(open);
    const spy = countReprototyping();
    await echo(base);
    expect(spy.count()).toBe(2);
  });

  it('keeps mounted sub-apps working: their own prototype inside, the parent app after', async () => {
    open = createHttpServer(app());
    const base = await serve(open);
    const page = await fetch(`${base}/sub/page`);
    expect(page.status).toBe(200);
    expect(await page.text()).toBe('sub /sub');
    expect(await echo(base)).toMatchObject({ probe: 'p' });
  });

  it('listen() resolves once listening and rejects when the port is taken', async () => {
    open = await listen(app(), 0, '127.0.0.1');
    const { port } = open.address() as AddressInfo;
    expect(await echo(`http://127.0.0.1:${port}`)).toMatchObject({ path: '/echo' });
    await expect(listen(app(), port, '127.0.0.1')).rejects.toThrow(/EADDRINUSE/);
  });
});

describe('connection bounds (connection-limits.ts)', () => {
  const LIMITS_TEXT =
    'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                20000                files     \n';

  it('reads the soft descriptor limit from /proc/self/limits; null when unknown or unlimited', () => {
    expect(openFilesLimit(() => LIMITS_TEXT)).toBe(20000);
    expect(openFilesLimit(() => LIMITS_TEXT.replace('20000                20000', 'unlimited            unlimited'))).toBeNull();
    expect(
      openFilesLimit(() => {
        throw new Error('EMFILE');
      }),
    ).toBeNull();
    if (process.platform === 'linux') expect(openFilesLimit()).toBeGreaterThan(0);
  });

  it('derives the total from the descriptor limit less the reserve (at most half of it) and the refusals in flight', () => {
    expect(resolveConnectionLimits(CONNECTION_DEFAULTS, { openFiles: 20_000 })).toMatchObject({
      maxTotal: 20_000 - 1024 - 64,
      maxPerAddress: 256,
      maxRefusing: 64,
      warning: null,
    });
    expect(resolveConnectionLimits(CONNECTION_DEFAULTS, { openFiles: 1024 })).toMatchObject({ maxTotal: 1024 - 512 - 64 });
    expect(resolveConnectionLimits(CONNECTION_DEFAULTS, { openFiles: null })).toMatchObject({ maxTotal: 4096 });
    // Behind a proxy every connection comes from the proxy's address.
    expect(resolveConnectionLimits(CONNECTION_DEFAULTS, { openFiles: 20_000, behindProxy: true }).maxPerAddress).toBe(20_000 - 1024 - 64);
    const set = resolveConnectionLimits(
      { ...CONNECTION_DEFAULTS, maxTotal: 100, maxPerAddress: 500, headersTimeoutMs: 9_000, requestTimeoutMs: 5_000 },
      { openFiles: 20_000 },
    );
    expect(set).toMatchObject({ maxTotal: 100, maxPerAddress: 100, headersTimeoutMs: 5_000, requestTimeoutMs: 5_000, warning: null });
    expect(resolveConnectionLimits({ ...CONNECTION_DEFAULTS, maxTotal: 19_500 }, { openFiles: 20_000 }).warning).toMatch(
      /leaves fewer than 1024 of the process's 20000 descriptors/,
    );
  });

  it('counts an IPv4 address as itself, IPv4-mapped or not, and an IPv6 client by its /64', () => {
    expect(addressKey('10.0.0.1')).toBe('10.0.0.1');
    expect(addressKey('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(addressKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(addressKey('2001:0db8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(addressKey('2001:db8::1.2.3.4')).toBe('2001:db8:0:0::/64');
  });

  /** A socket from `from`; resolves once the server has admitted it (no answer for a moment) or refused it (what it was sent). */
  async function connectFrom(port: number, from: string): Promise<{ socket: net.Socket; refusal: string | null }> {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress: from });
    socket.on('error', () => undefined);
    let data = '';
    socket.on('data', (d) => (data += d.toString()));
    await new Promise((r) => socket.once('connect', r));
    await new Promise((r) => setTimeout(r, 150));
    return { socket, refusal: data || null };
  }

  it.runIf(process.platform === 'linux')(
    'a connection over a bound gets 503 with Retry-After and is closed; a closed connection makes room',
    async () => {
      const limits = resolveConnectionLimits({ ...CONNECTION_DEFAULTS, maxTotal: 3, maxPerAddress: 2 });
      open = createHttpServer(app(), limits);
      const base = await serve(open);
      const port = Number(new URL(base).port);
      const a1 = await connectFrom(port, '127.0.0.2');
      const a2 = await connectFrom(port, '127.0.0.2');
      expect([a1.refusal, a2.refusal]).toEqual([null, null]);
      const a3 = await connectFrom(port, '127.0.0.2');
      expect(a3.refusal).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(a3.refusal).toMatch(/\r\nRetry-After: 2\r\n/);
      expect(JSON.parse(a3.refusal!.slice(a3.refusal!.indexOf('\r\n\r\n') + 4))).toEqual({
        error: 'service_unavailable',
        message: 'Too many connections from this address; close idle ones or retry later.',
        code: 503,
        retry_after: 2,
      });
      const b1 = await connectFrom(port, '127.0.0.3');
      expect(b1.refusal).toBeNull();
      const c1 = await connectFrom(port, '127.0.0.4');
      expect(c1.refusal).toMatch(/The server holds as many connections as it can/);

      a1.socket.destroy();
      await new Promise((r) => setTimeout(r, 100));
      const res = await fetch(`${base}/after-sub`);
      expect(res.status).toBe(200);
      for (const s of [a2, a3, b1, c1]) s.socket.destroy();
    },
  );
});
