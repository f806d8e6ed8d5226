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
 */
import http from 'node:http';
import type { Express } from 'express';

/**
 * Whether node's request and response constructors are plain functions (so far they are), which
 * can be called on an object made with another prototype. `Reflect.construct` would also work for
 * classes but was measured slower than Express's own way (128 against 82 µs per request), so a
 * node whose constructors are classes gets node's default objects instead.
 */
export const prototypedRequests = [http.IncomingMessage, http.ServerResponse].every((c) => !/^class\b/.test(Function.prototype.toString.call(c)));

/** A constructor that builds what `base` builds, with `proto` as the prototype of its objects. */
function withPrototype<C extends Function>(base: C, proto: object): C {
  // Two arguments: node calls these as (socket) and (req, options).
  function Construct(this: object, a: unknown, b: unknown): void {
    (base as unknown as (...args: unknown[]) => void).call(this, a, b);
  }
  Construct.prototype = proto;
  return Construct as unknown as C;
}

export function createHttpServer(app: Express): http.Server {
  if (!prototypedRequests) return http.createServer(app);
  return http.createServer(
    {
      IncomingMessage: withPrototype(http.IncomingMessage, app.request),
      ServerResponse: withPrototype(http.ServerResponse, app.response),
    },
    app,
  );
}

/** `createHttpServer(app).listen(port, host)`, resolved once listening (rejected on e.g. EADDRINUSE). */
export async function listen(app: Express, port: number, host: string): Promise<http.Server> {
  const server = createHttpServer(app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return server;
}
