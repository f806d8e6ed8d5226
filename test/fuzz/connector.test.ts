/**
 * The fuzz suite: thousands of malformed and adversarial requests to
 * every route of a real connector on loopback, in a child process (server-child.ts). Asserts that
 * every answer is the contract's (check.ts: no 5xx but 503 with Retry-After, error bodies in the
 * contract's schema), that the process never dies, that its event loop is never blocked for more
 * than 200 ms of CPU (stall-monitor.ts), that no request but a 2xx on a watch route of its own key
 * created, removed, paused or resumed a watch, and none on the watch routes or the result history took
 * a credit (books.ts), and that /healthz is green afterwards. The same run once
 * more on PostgreSQL and Redis with extraction on: connector-pg-redis.test.ts.
 *
 * Seeded and reproducible: FUZZ_SEED (default 17) and FUZZ_RUNS (default 3000) choose the run;
 * a failure prints the offending request, the seed and the fast-check path, and
 * `FUZZ_SEED=<seed> FUZZ_PATH=<path> npx vitest run test/fuzz/connector.test.ts` replays exactly
 * that request. FUZZ_EXTRACTION=1 runs the real PDF extraction on what is uploaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built } from '../helpers/build.js';
import { sendRaw } from '../helpers/raw-http.js';
import { caseArbitrary, ROUTES } from './cases.js';
import { FuzzChild, runFuzz, stallText, summary } from './harness.js';

const SEED = Number(process.env.FUZZ_SEED ?? 17);
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);
const PATH = process.env.FUZZ_PATH;

const child = new FuzzChild();

beforeAll(async () => {
  await child.start(process.env.FUZZ_EXTRACTION === '1' ? { extraction: true, extractionHost: built().extractHost } : {});
}, 120_000);

afterAll(async () => {
  await child.stop();
});

describe('fuzz: every route, malformed and adversarial requests', () => {
  it('covers every route the app serves', () => {
    expect([...child.ready.routes].sort()).toEqual(Object.keys(ROUTES).sort());
  });

  it(`${PATH ? `replays case ${PATH} of seed ${SEED}` : `${RUNS} requests (seed ${SEED})`}: contract answers only, no crash, no stall`, async () => {
    const statuses = await runFuzz(child, caseArbitrary, {
      seed: SEED,
      runs: RUNS,
      ...(PATH ? { path: PATH } : {}),
      file: 'test/fuzz/connector.test.ts',
      books: true,
    });
    const final = await child.report();
    console.log(summary(SEED, statuses, final));
    expect(final.stalls.map((s) => `${stallText(s)}; requests in flight then:\n${child.inFlightDuring(s)}`)).toEqual([]);
  }, 600_000);

  it('leaves /healthz green and the process alive', async () => {
    const out = await sendRaw(child.ready.url, { method: 'GET', path: '/healthz', headers: [] });
    expect(out.ok && out.response.status, out.ok ? out.response.text : out.reason).toBe(200);
    expect(child.exited).toBeNull();
  });
});
