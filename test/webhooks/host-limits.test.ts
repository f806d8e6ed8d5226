/**
 * Per-host limits of webhook delivery, through the real connector and real HTTPS receivers on
 * loopback (one certificate, trusted through COVERCHECK_WEBHOOK_CA_FILE; each receiver on its own
 * port is its own host). Attempts time out after 1 s; the retry schedule is run 1,000 times faster
 * (10 ms, 30 ms, ...), so a failing receiver is asked again at once unless its breaker stops it.
 * Leases are 6 attempt timeouts (6 s): a postponed delivery is due again after that.
 */
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../connector/src/logger.js';
import { OutboxProcessor } from '../../connector/src/webhooks/outbox.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { makeTestCert, type TestCert } from '../helpers/tls.js';

const BREAKER_FAILURES = 3;
const COOLDOWN_MS = 1500;
const TIMEOUT_MS = 1000;

interface Receiver {
  url: string;
  /** Every request: its webhook-id and the status answered. */
  got: { id: string; status: number; path: string }[];
  answer: (path: string) => number;
}

let cert: TestCert;
const servers: https.Server[] = [];
let srv: TestServer;
let key: string;

async function receiver(answer: Receiver['answer'] = () => 204): Promise<Receiver> {
  const r: Receiver = { url: '', got: [], answer };
  const server = https.createServer({ key: cert.key, cert: cert.cert }, (req, res) => {
    req.resume();
    req.on('end', () => {
      const status = r.answer(req.url ?? '');
      r.got.push({ id: String(req.headers['webhook-id']), status, path: req.url ?? '' });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  servers.push(server);
  r.url = `https://localhost:${(server.address() as AddressInfo).port}`;
  return r;
}

beforeAll(async () => {
  cert = await makeTestCert();
  srv = await startTestServer({
    env: {
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: cert.caFile,
      COVERCHECK_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      COVERCHECK_WEBHOOK_RETRY_SCALE: '0.001',
      COVERCHECK_WEBHOOK_HOST_CONCURRENCY: '2',
      COVERCHECK_WEBHOOK_BREAKER_FAILURES: String(BREAKER_FAILURES),
      COVERCHECK_WEBHOOK_BREAKER_COOLDOWN_MS: String(COOLDOWN_MS),
    },
  });
  key = (await srv.key({ mode: 'test' })).key;
}, 60_000);

afterAll(async () => {
  await srv?.close();
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  cert?.remove();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(20);
  }
}

/** Submits `n` async verifications calling back to `url`; returns their job ids. */
async function jobs(n: number, url: string): Promise<string[]> {
  const rs = await Promise.all(
    Array.from({ length: n }, () =>
      call(srv.url, 'POST', '/api/v1/verify/async', {
        key,
        body: { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor', webhook_url: url },
      }),
    ),
  );
  expect(rs.map((r) => r.status)).toEqual(rs.map(() => 202));
  return rs.map((r) => r.body.job_id as string);
}

async function deliveries(jobIds: string[]) {
  return (await Promise.all(jobIds.map((id) => srv.store.outbox.forSubject(id)))).flat();
}

describe('per-host circuit breaker', () => {
  it(`after ${BREAKER_FAILURES} failures in a row the host gets no attempts for the cool-down; the deliveries wait, then a success closes it and all arrive once`, async () => {
    let down = true;
    const r = await receiver(() => (down ? 503 : 204));
    const ids = await jobs(6, `${r.url}/hooks`);
    await waitFor(() => r.got.length >= BREAKER_FAILURES, 10_000, 'first failures');
    await sleep(300); // an attempt that was already under way when it opened ends
    const whenOpen = r.got.length;
    // Without a breaker, 6 deliveries retried after 10-30 ms would make 50-odd attempts by now.
    expect(whenOpen).toBeLessThanOrEqual(BREAKER_FAILURES + 1);
    await sleep(COOLDOWN_MS - 500);
    expect(r.got.length).toBe(whenOpen);
    // Postponed, not failed or skipped: pending, with exactly the attempts made.
    const held = await deliveries(ids);
    expect(held.map((d) => d.status)).toEqual(ids.map(() => 'pending'));
    expect(held.reduce((n, d) => n + d.attempts, 0)).toBe(whenOpen);

    down = false;
    await waitFor(async () => (await deliveries(ids)).every((d) => d.status === 'delivered'), 20_000, 'all delivered');
    const accepted = r.got.filter((g) => g.status === 204);
    expect(new Set(accepted.map((g) => g.id)).size).toBe(6);
    expect(accepted).toHaveLength(6);
  }, 40_000);

  it("4xx answers don't open it: another delivery to the same host goes straight through", async () => {
    const r = await receiver((path) => (path.startsWith('/gone') ? 410 : 204));
    const gone = await jobs(4, `${r.url}/gone`);
    // Well past the breaker's count of 4xx answers (each delivery is retried within milliseconds).
    await waitFor(() => r.got.length >= BREAKER_FAILURES * 4, 10_000, '4xx answers');
    const [ok] = await jobs(1, `${r.url}/ok`);
    await waitFor(async () => (await deliveries([ok!]))[0]?.status === 'delivered', 5_000, 'the other delivery');
    expect((await deliveries(gone)).every((d) => d.attempts >= 1)).toBe(true);
  }, 30_000);

  it('a process that stops with deliveries postponed or waiting leaves them in the store; the next one delivers each once', async () => {
    let down = true;
    const r = await receiver(() => (down ? 503 : 204));
    const ids = await jobs(8, `${r.url}/hooks`);
    await waitFor(() => r.got.length >= BREAKER_FAILURES, 10_000, 'first failures');
    await sleep(300);
    // The crash, as far as the outbox can tell: its in-memory line and breaker are gone.
    await srv.ctx.outbox.stop();
    down = false;
    expect((await deliveries(ids)).every((d) => d.status === 'pending')).toBe(true);
    // A fresh processor on the same store, on a clock past every lease this one took.
    const next = new OutboxProcessor(
      { store: srv.store, logger: createLogger('silent'), now: () => new Date(Date.now() + TIMEOUT_MS * 6 + 1000) },
      {
        concurrency: 4,
        perHostConcurrency: 2,
        perHostMinTimeMs: 0,
        timeoutMs: TIMEOUT_MS,
        retryScale: 0.001,
        pollMs: 20,
        allowPrivate: true,
        ca: fs.readFileSync(cert.caFile),
      },
    );
    next.start();
    try {
      await waitFor(
        async () => (await deliveries(ids)).every((d) => d.status === 'delivered'),
        10_000,
        'all delivered by the next process',
      );
    } finally {
      await next.stop();
    }
    const accepted = r.got.filter((g) => g.status === 204);
    expect(accepted).toHaveLength(8);
    expect(new Set(accepted.map((g) => g.id)).size).toBe(8);
  }, 30_000);
});
