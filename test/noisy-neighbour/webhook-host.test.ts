/**
 * Noisy neighbour, webhooks: one key whose webhook host accepts connections and never answers must
 * not delay another key's webhooks, and the other key is never refused. The real connector on
 * loopback, with its workers; the victim's receiver is a real HTTPS server
 * (test/helpers/webhook-receiver.ts), the attacker's a TCP server that accepts and stays silent, so
 * every attempt to it runs to the attempt timeout (2 s here). Loopback receivers are reachable
 * because the test turns the SSRF guard off (COVERCHECK_WEBHOOK_ALLOW_PRIVATE), as every webhook
 * test does.
 *
 * The victim's time is from submitting an async verification with a webhook_url to its receiver
 * getting the signed `job.completed`: the job queue, the verification, the outbox and one HTTPS
 * POST. It is measured alone (the baseline), then while the attacker has ATTACK_JOBS deliveries due
 * to the silent host, after the attacker's jobs are done so that only the outbox is shared.
 *
 * FACTOR: with per-host concurrency, the silent host holds at most COVERCHECK_WEBHOOK_HOST_CONCURRENCY
 * (2) of the 8 delivery loops; its other deliveries wait in memory or stay leased without a worker,
 * so a free loop leases the victim's delivery as soon as it is due, exactly as alone. What is added
 * is a few store leases of attacker rows ahead of it and the CPU of the pending TLS connections,
 * milliseconds against a baseline of tens: FACTOR 5 (medians of ROUNDS) leaves room for a loaded
 * 2-core machine. With one queue per host that every loop waits in, the victim's delivery is leased
 * only after the attacker's rows ahead of it, two per 2 s timeout: about ATTACK_JOBS seconds, a
 * ratio in the hundreds (the wait is cut at VICTIM_CAP_MS, still a ratio over 100).
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const FACTOR = 5;
const ROUNDS = 7;
/**
 * Victim rounds beside the attacker are this far apart, so that together they span the silent
 * host's first timeouts (2 s), its breaker opening (5 failures, 3 s cool-down, then probes), the
 * waiting line giving up on deliveries whose lease runs short, and the postponed ones being leased
 * again when their 12 s leases end.
 */
const ATTACK_SPACING_MS = 2_000;
const ATTACK_JOBS = 60;
/** How long one victim delivery is waited for before it counts as this long (a failure either way). */
const VICTIM_CAP_MS = 10_000;

let hooks: WebhookReceiver;
let silent: net.Server;
const held = new Set<net.Socket>();
let accepted = 0;
let silentUrl: string;
let srv: TestServer;
let victim: { key: string; id: string };
let attacker: { key: string; id: string };

beforeAll(async () => {
  hooks = await startWebhookReceiver();
  silent = net.createServer((socket) => {
    accepted++;
    held.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => held.delete(socket));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `https://localhost:${(silent.address() as net.AddressInfo).port}/hooks`;
  srv = await startTestServer({
    env: {
      COVERCHECK_WEBHOOK_ALLOW_PRIVATE: 'true',
      COVERCHECK_WEBHOOK_CA_FILE: hooks.caFile,
      COVERCHECK_WEBHOOK_TIMEOUT_MS: '2000',
      // Small enough that most attacker deliveries are postponed rather than waiting in memory.
      COVERCHECK_WEBHOOK_HOST_QUEUE: '10',
      COVERCHECK_WEBHOOK_BREAKER_COOLDOWN_MS: '3000',
    },
  });
  victim = await srv.key({ mode: 'test', name: 'victim' });
  attacker = await srv.key({ mode: 'test', name: 'attacker' });
  hooks.secret = (await srv.store.keys.get(victim.id))!.webhook_secret!;
}, 60_000);

afterAll(async () => {
  await srv?.close();
  for (const s of held) s.destroy();
  await new Promise((r) => silent?.close(r));
  await hooks?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const policy = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

/** One victim webhook: ms from submission to the receiver holding its verified event (VICTIM_CAP_MS if it never comes). */
async function victimWebhookMs(): Promise<number> {
  const started = performance.now();
  const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
    key: victim.key,
    body: { ...policy, webhook_url: `${hooks.url}/victim` },
  });
  expect(r.status).toBe(202);
  const jobId = r.body.job_id as string;
  while (performance.now() - started < VICTIM_CAP_MS) {
    const got = hooks.received.find((x) => x.event?.data?.job_id === jobId);
    if (got) {
      expect(got.verified).toBe(true);
      return performance.now() - started;
    }
    await sleep(5);
  }
  return VICTIM_CAP_MS;
}

async function victimMedian(spacingMs = 0): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    if (i) await sleep(spacingMs);
    times.push(await victimWebhookMs());
  }
  return median(times);
}

describe('a webhook host that never answers', () => {
  it("delays only its own deliveries: the victim's webhooks keep their time", async () => {
    await victimWebhookMs(); // warm-up: first TLS handshake, first job
    const baseline = await victimMedian();

    const submitted = await Promise.all(
      Array.from({ length: ATTACK_JOBS }, () =>
        call(srv.url, 'POST', '/api/v1/verify/async', { key: attacker.key, body: { ...policy, webhook_url: silentUrl } }),
      ),
    );
    expect(submitted.every((r) => r.status === 202)).toBe(true);
    // Every attacker job done and its delivery queued, and attempts to the silent host under way.
    const deadline = Date.now() + 20_000;
    while ((await srv.store.outbox.list(attacker.id, { limit: 1, offset: 0 })).total < ATTACK_JOBS || accepted < 2) {
      if (Date.now() > deadline) throw new Error('attacker deliveries not under way');
      await sleep(20);
    }

    const attacked = await victimMedian(ATTACK_SPACING_MS);
    const ratio = attacked / baseline;
    console.log(
      `victim webhook median: alone ${baseline.toFixed(0)} ms, beside the silent host ${attacked.toFixed(0)} ms, ratio ${ratio.toFixed(2)}; connections to the silent host: ${accepted}`,
    );
    expect(ratio).toBeLessThanOrEqual(FACTOR);

    // The attacker's deliveries are kept, not dropped: pending for a later attempt, none delivered.
    const { items } = await srv.store.outbox.list(attacker.id, { limit: ATTACK_JOBS, offset: 0 });
    expect(items).toHaveLength(ATTACK_JOBS);
    expect(items.every((d) => d.status === 'pending')).toBe(true);
  }, 240_000);
});
