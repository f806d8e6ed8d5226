/**
 * GET /readyz on the real server: 200 with each check named while the store, Redis (when configured)
 * and the extraction process (when extraction is on) can work; 503 with Retry-After, naming the check
 * that failed, when Redis is stopped, when the store is closed, and when the extraction process cannot
 * run documents. Redis here is a throwaway of this file's own, since it is stopped.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ZReadinessSchema } from '../../shared/readiness.js';
import { corpusPdf } from '../extract/helpers.js';
import { call, startTestServer, type TestServer } from '../helpers/server.js';
import { startRedis, type RunningService } from '../helpers/services.js';

const started: TestServer[] = [];
let redis: RunningService | null = null;

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.close()));
  await redis?.stop();
  redis = null;
});

async function server(opts: Parameters<typeof startTestServer>[0]): Promise<TestServer> {
  const srv = await startTestServer({ workers: false, ...opts });
  started.push(srv);
  return srv;
}

/** GET /readyz, its body checked against the contract. */
async function readyz(srv: TestServer) {
  const r = await call(srv.url, 'GET', '/readyz');
  const parsed = ZReadinessSchema.safeParse(r.body);
  expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
  expect(parsed.data).toEqual(r.body);
  return { status: r.status, body: parsed.data!, retryAfter: r.headers.get('retry-after') };
}

/** Asks until `done` holds (a dependency's failure shows once the client notices it). */
async function readyzUntil(srv: TestServer, done: (r: Awaited<ReturnType<typeof readyz>>) => boolean, ms = 10_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await readyz(srv);
    if (done(r) || Date.now() > deadline) return r;
    await new Promise((res) => setTimeout(res, 100));
  }
}

describe('GET /readyz', () => {
  it('is 200 and names each check: the store ok, Redis and extraction off when not configured', async () => {
    const r = await readyz(await server({}));
    expect(r.status).toBe(200);
    expect(r.retryAfter).toBeNull();
    expect(r.body).toEqual({
      status: 'ready',
      checks: { store: { status: 'ok', ms: expect.any(Number) }, redis: { status: 'off' }, extraction: { status: 'off' } },
    });
  });

  it('is 503 naming the store once the store is closed', async () => {
    const srv = await server({});
    expect((await readyz(srv)).status).toBe(200);
    await srv.store.close();
    const r = await readyz(srv);
    expect(r.status).toBe(503);
    expect(r.retryAfter).toBe('5');
    expect(r.body.status).toBe('not_ready');
    expect(r.body.checks.store).toMatchObject({ status: 'failed', detail: 'the store is not answering' });
  });

  it('checks Redis when configured: ok while it runs, 503 naming Redis once it is stopped', async () => {
    redis = await startRedis();
    const srv = await server({ env: { COVERCHECK_REDIS_URL: redis.url } });
    const up = await readyz(srv);
    expect(up.status).toBe(200);
    expect(up.body.checks.redis).toEqual({ status: 'ok', ms: expect.any(Number) });

    await redis.stop();
    const down = await readyzUntil(srv, (r) => r.status === 503);
    expect(down.status).toBe(503);
    expect(down.retryAfter).toBe('5');
    expect(down.body.checks.redis).toMatchObject({ status: 'failed', detail: expect.stringMatching(/Redis/) });
    expect(down.body.checks.store.status).toBe('ok');
  });

  it('checks the extraction process when extraction is on: ok before any document (it starts on demand)', async () => {
    const r = await readyz(await server({ extraction: true }));
    expect(r.status).toBe(200);
    expect(r.body.checks.extraction).toEqual({ status: 'ok', ms: expect.any(Number) });
  });

  it('is 503 naming the extraction process once it could not run a document', async () => {
    // An extraction process that ends before it is ready, as one whose bundle or OCR data is broken would.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-broken-host-'));
    const host = path.join(dir, 'extract-host.cjs');
    fs.writeFileSync(host, 'process.exit(3);\n');
    const srv = await server({ extraction: true, extractionHost: host });
    expect((await readyz(srv)).status).toBe(200);
    const k = await srv.key({ mode: 'test' });
    const form = new FormData();
    form.append('file', new Blob([corpusPdf('002')], { type: 'application/pdf' }), 'policy.pdf');
    const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
      method: 'POST',
      headers: { authorization: `Bearer ${k.key}` },
      body: form,
    });
    expect(res.status).toBe(202);
    srv.connector.startWorkers();
    const r = await readyzUntil(srv, (x) => x.status === 503, 20_000);
    expect(r.status).toBe(503);
    expect(r.body.checks.extraction).toMatchObject({ status: 'failed', detail: expect.stringMatching(/extraction process/) });
    expect(r.body.checks.store.status).toBe('ok');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
