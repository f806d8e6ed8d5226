/**
 * createHttpServer: Express must find every request and response already on its app's prototype
 * (so its setPrototypeOf changes nothing), and everything Express gives a route must still work.
 */
import express from 'express';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
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
  const res = await fetch(`${base}/echo?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-probe': 'p' }, body: JSON.stringify({ a: [1, 'b'] }) });
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
