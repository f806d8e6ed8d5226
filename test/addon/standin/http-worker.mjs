// Performs the HTTP requests of the UrlFetchApp stand-in (real fetch, real sockets) while the
// test's thread blocks in Atomics.wait; answers on the port, then wakes the waiter.
import { parentPort } from 'node:worker_threads';

async function one(r) {
  const started = Date.now();
  try {
    const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body ?? undefined, redirect: 'manual' });
    const body = new Uint8Array(await res.arrayBuffer());
    const headers = {};
    res.headers.forEach((v, k) => (headers[k] = v));
    return { status: res.status, headers, body, ms: Date.now() - started };
  } catch (e) {
    return { error: String(e?.cause?.code ?? e?.message ?? e), ms: Date.now() - started };
  }
}

parentPort.on('message', async ({ requests, flag, port }) => {
  const results = await Promise.all(requests.map(one));
  port.postMessage(results);
  const f = new Int32Array(flag);
  Atomics.store(f, 0, 1);
  Atomics.notify(f, 0);
});
