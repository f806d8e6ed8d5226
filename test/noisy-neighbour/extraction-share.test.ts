/**
 * Noisy neighbour, extraction: sandbox keys uploading documents that take seconds each to read
 * (scans: every page through OCR) must not hold up another key's verifications, must not take every
 * place in the document queue, and must not make another key's one document wait for all of theirs.
 * The real connector on loopback, its work queue, one extraction thread in its own process.
 *
 * The victim (a live key) runs, alone first (the baseline) and then while the attackers' documents
 * are queued and being read:
 * - an async verification without a document and a batch of one policy, timed from submission to
 *   `complete` (the worst of VERIFY_ROUNDS against the baseline's median, at least FLOOR_MS).
 *   FACTOR_VERIFY: with the verification lane, their path is the one they have alone;
 *   what is added is CPU the extraction process takes at the lowest priority (priority.ts) and a
 *   few more store queries, so 5 leaves room for a loaded 2-core machine. Without the lanes every
 *   queue worker waits on an extraction and the victim waits for the next one to end: seconds
 *   against tens of milliseconds.
 * - one upload of a text PDF. With one reader, it must wait for the document being read when it
 *   arrives (there is no preemption), but not for the other queued ones: its time is bounded by its
 *   baseline plus DOCUMENTS_AHEAD attacker documents' read time (the slowest measured in this run).
 *   First come, first served, it would wait for every attacker document queued before it.
 * The upload itself must be accepted: the attackers are sandbox keys and together may fill only
 * their share of the pending places (COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPdf } from '../extract/helpers.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';

const FACTOR_VERIFY = 5;
/** Below this, a baseline is timer and scheduling noise on a 2-core machine, not the code: ratios are taken against at least this. */
const FLOOR_MS = 50;
const VERIFY_ROUNDS = 5;
/** The document being read when the victim's arrives, and one more for the turn boundary (a worker may have just leased the next). */
const DOCUMENTS_AHEAD = 2;
const ATTACKERS = 2;
const PER_ATTACKER = 4;
/** Scans (OCR on every page), each a different one, and a text PDF, from the generated corpus. */
const HEAVY = ['001', '005', '009', '011', '015', '016', '021', '022', '026', '028'];
const LIGHT = '050';

let srv: TestServer;
let victim: string;
const attackers: string[] = [];

beforeAll(async () => {
  srv = await startTestServer({
    extraction: true,
    env: {
      // Eight places: the two sandbox keys may fill four between them, five each otherwise.
      COVERCHECK_EXTRACT_MAX_PENDING: '8',
      COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY: '5',
      COVERCHECK_EXTRACT_SANDBOX_SHARE_PCT: '50',
    },
  });
  victim = (await srv.key({ mode: 'live', credits: 1_000 })).key;
  for (let i = 0; i < ATTACKERS; i++) attackers.push((await srv.key({ mode: 'test', name: `attacker ${i}` })).key);
}, 60_000);
afterAll(async () => {
  await srv?.close();
});

async function upload(key: string, id: string): Promise<{ status: number; body: any }> {
  const form = new FormData();
  form.append('file', new Blob([corpusPdf(id)], { type: 'application/pdf' }), `${id}.pdf`);
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: await res.json() };
}

/** Waits (long-polling) until the job or batch at `poll` is finished; its body. */
async function finished(poll: string, key: string, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await call(srv.url, 'GET', `${poll}?wait=20`, { key });
    if (r.status !== 200) throw new Error(`GET ${poll}: ${r.status} ${JSON.stringify(r.body)}`);
    if (['complete', 'failed'].includes(r.body.status)) return r.body;
    if (Date.now() > deadline) throw new Error(`${poll} not finished after ${timeoutMs} ms`);
  }
}

const POLICY = { policy_number: 'UKM-1000-0001', country: 'UK', insurance_type: 'motor' };

async function timed<T>(f: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await f();
  return { ms: performance.now() - t0, value };
}

/**
 * The victim's async verification and one-policy batch, each timed from submission to `complete`,
 * over VERIFY_ROUNDS: the median (for the baseline) and the worst (under attack: the first rounds
 * are the ones that would wait behind the documents queued before them).
 */
async function verifyTimes(pick: 'median' | 'worst'): Promise<{ async: number; batch: number }> {
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < VERIFY_ROUNDS; i++) {
    const [x, y] = await Promise.all([
      timed(async () => {
        const r = await call(srv.url, 'POST', '/api/v1/verify/async', { key: victim, body: POLICY });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        expect((await finished(r.body.poll_url, victim)).status).toBe('complete');
      }),
      timed(async () => {
        const r = await call(srv.url, 'POST', '/api/v1/verify/batch', { key: victim, body: { policies: [POLICY] } });
        expect(r.status, JSON.stringify(r.body)).toBe(202);
        expect((await finished(`/api/v1/batches/${r.body.batch_id}`, victim)).status).toBe('complete');
      }),
    ]);
    a.push(x.ms);
    b.push(y.ms);
  }
  const of = (v: number[]) => (pick === 'worst' ? Math.max(...v) : v.sort((p, q) => p - q)[Math.floor(v.length / 2)]!);
  return { async: of(a), batch: of(b) };
}

/** The victim's upload of a text PDF, timed from submission to `complete`; its status (202 when accepted). */
async function victimUpload(): Promise<{ ms: number; status: number }> {
  let status = 0;
  const t = await timed(async () => {
    const r = await upload(victim, LIGHT);
    status = r.status;
    if (r.status === 202) expect((await finished(r.body.poll_url, victim)).status).toBe('complete');
  });
  return { ms: t.ms, status };
}

describe('sandbox keys reading slow documents beside a live key', () => {
  it("the live key's verifications keep their pace, its upload is accepted and waits for at most the document being read", async () => {
    // Warm up (the extraction process and its OCR engine start on first use), then the baselines.
    await victimUpload();
    const heavyAlone = await timed(async () => {
      const r = await upload(attackers[0]!, HEAVY[0]!);
      expect(r.status).toBe(202);
      await finished(r.body.poll_url, attackers[0]!);
    });
    const base = { ...(await verifyTimes('median')), upload: await victimUpload() };
    expect(base.upload.status).toBe(202);

    // The attack: each sandbox key uploads until refused; every accepted document is a scan.
    const jobs: { key: string; poll: string }[] = [];
    const refused: number[] = [];
    let next = 1;
    for (let round = 0; round < PER_ATTACKER; round++) {
      for (const key of attackers) {
        const r = await upload(key, HEAVY[next++ % HEAVY.length]!);
        if (r.status === 202) jobs.push({ key, poll: r.body.poll_url });
        else refused.push(r.status);
      }
    }
    expect(jobs.length).toBeGreaterThan(DOCUMENTS_AHEAD);
    const [verify, up] = await Promise.all([verifyTimes('worst'), victimUpload()]);
    const attacked = { ...verify, upload: up };

    // Every attacker document is still read in the end (nothing lost).
    for (const j of jobs) expect((await finished(j.poll, j.key, 300_000)).status).toBe('complete');

    const report = JSON.stringify({
      heavyAloneMs: Math.round(heavyAlone.ms),
      base,
      attacked,
      attackerAccepted: jobs.length,
      attackerRefused: refused,
    });
    console.log(`extraction noisy neighbour: ${report}`);
    // The victim's upload is never refused while sandbox keys hold their share.
    expect(attacked.upload.status, report).toBe(202);
    expect(attacked.async / Math.max(FLOOR_MS, base.async), report).toBeLessThanOrEqual(FACTOR_VERIFY);
    expect(attacked.batch / Math.max(FLOOR_MS, base.batch), report).toBeLessThanOrEqual(FACTOR_VERIFY);
    expect(attacked.upload.ms, report).toBeLessThanOrEqual(base.upload.ms + DOCUMENTS_AHEAD * heavyAlone.ms * 1.25);
  }, 600_000);
});
