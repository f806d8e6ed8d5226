/**
 * Hostile PDFs through the whole connector: upload -> durable job -> extraction
 * process. Each hostile document, generated here, ends as a failed job with 422
 * unreadable_document naming the limit, at its first attempt and with its credit given back; a
 * normal document after them is still read; the extraction process stays under its memory ceiling;
 * and one key can have only so many documents waiting.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { corpusPdf, corpusTruth } from '../extract/helpers.js';
import { circularPageTree, flateBomb, hugeBlankPages, hugeImage } from '../extract/hostile.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

async function upload(srv: TestServer, data: Uint8Array, key: string) {
  const form = new FormData();
  form.append('file', new Blob([data], { type: 'application/pdf' }), 'policy.pdf');
  const res = await fetch(`${srv.url}/api/v1/documents/extract`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}
const done = (b: any) => b.status !== 'pending';

/** Uploads `pdf` with a fresh live key holding 5 credits; returns the finished job, its attempts and the key's balance after. */
async function extractOnce(srv: TestServer, pdf: Uint8Array) {
  const { key, id } = await srv.key({ mode: 'live', credits: 5 });
  const r = await upload(srv, pdf, key);
  expect(r.status).toBe(202);
  const job = await pollUntil(srv.url, r.body.poll_url, key, done, 120_000);
  const record = await srv.store.jobs.get(r.body.job_id);
  return { job, attempts: record!.attempts, balance: (await srv.store.keys.get(id))!.balance };
}

/** The extraction process: the child of this process running the extraction host. */
function extractionPid(): number | null {
  for (const tid of fs.readdirSync('/proc/self/task')) {
    let children: string[] = [];
    try {
      children = fs.readFileSync(`/proc/self/task/${tid}/children`, 'utf8').split(' ').filter(Boolean);
    } catch {
      continue;
    }
    for (const pid of children) {
      try {
        // host.ts from the sources, extract-host.js built
        if (/extract[/-]host\./.test(fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8'))) return Number(pid);
      } catch {
        // ended meanwhile
      }
    }
  }
  return null;
}
const peakMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('hostile documents on the default limits', { timeout: 180_000 }, () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ extraction: true });
  });
  afterAll(async () => srv.close());

  const cases: [string, () => Uint8Array, string][] = [
    [
      '20 blank 5000-pt pages',
      () => hugeBlankPages(20, 5000),
      'Page 1 is 5,000 x 5,000 pt (25 million pt²); the limit is 10 million pt² per page',
    ],
    [
      'a 3 MB flate bomb',
      () => flateBomb(),
      "The PDF's compressed page contents and fonts decode to more than 64 MB, the limit per document.",
    ],
    [
      'a 40,000 x 40,000 image',
      () => hugeImage(),
      'An image in the PDF is 40,000 x 40,000 pixels (1,600 million pixels); the limit is 40 million pixels per image.',
    ],
    ['a circular page tree', () => circularPageTree(), 'not a readable PDF'],
  ];
  for (const [name, make, message] of cases) {
    it(`${name}: a failed job, 422 unreadable_document naming the limit, at the first attempt; the credit comes back`, async () => {
      const { job, attempts, balance } = await extractOnce(srv, make());
      expect(job).toMatchObject({ status: 'failed', kind: 'extraction', error: { error: 'unreadable_document', code: 422 } });
      expect(job.error.message).toContain(message);
      expect(attempts).toBe(1);
      expect(balance).toBe(5);
    });
  }

  it('a normal document submitted right after them is read, and the extraction process stayed under its ceiling', async () => {
    const { job, attempts, balance } = await extractOnce(srv, corpusPdf('002'));
    expect(job.status).toBe('complete');
    expect(job.result.policy_number).toBe(corpusTruth('002').policy_number);
    expect(attempts).toBe(1);
    expect(balance).toBe(4);
    if (process.platform === 'linux') {
      const pid = extractionPid();
      expect(pid).not.toBeNull();
      expect(peakMb(pid!)).toBeLessThan(EXTRACT_LIMIT_DEFAULTS.memoryMb);
    }
  });

  it('a hostile document inside an async verification: the verification completes, its document outcome names the limit', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const r = await call(srv.url, 'POST', '/api/v1/verify/async', {
      key,
      body: {
        policy_number: corpusTruth('002').policy_number,
        country: 'DE',
        insurance_type: 'motor',
        document: Buffer.from(hugeImage()).toString('base64'),
      },
    });
    expect(r.status).toBe(202);
    const job = await pollUntil(srv.url, r.body.poll_url, key, done, 120_000);
    expect(job.status).toBe('complete');
    expect(job.document).toMatchObject({
      extraction: 'failed',
      detail: expect.stringContaining('the limit is 40 million pixels per image'),
    });
    expect((await srv.store.jobs.get(r.body.job_id))!.attempts).toBe(1);
  });
});

// With the page and pixel limits opened up, documents reach the canvas and the memory ceiling.
// The extraction process runs under tsx here (~400 MB of transformed modules): the ceiling leaves room for that.
describe.runIf(process.platform === 'linux')('past the page limits: the canvas and the memory ceiling', { timeout: 240_000 }, () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({
      extraction: true,
      env: {
        COVERCHECK_EXTRACT_MAX_PAGE_AREA_PT2: '1000000000000',
        COVERCHECK_EXTRACT_MAX_TOTAL_AREA_PT2: '1000000000000',
        COVERCHECK_EXTRACT_MAX_PAGE_PIXELS: '10000000000',
        COVERCHECK_EXTRACT_MAX_TOTAL_PIXELS: '10000000000',
        COVERCHECK_EXTRACT_MEMORY_MB: '1024',
      },
    });
  });
  afterAll(async () => srv.close());

  it('"Create skia surface failed" (a 14,400-pt page at 150 dpi): 422 unreadable_document at the first attempt', async () => {
    const { job, attempts, balance } = await extractOnce(srv, hugeBlankPages(1, 14_400));
    expect(job).toMatchObject({
      status: 'failed',
      error: {
        error: 'unreadable_document',
        code: 422,
        message: 'Page 1 of the PDF could not be drawn for OCR; the file may be damaged. Upload the original PDF.',
      },
    });
    expect(attempts).toBe(1);
    expect(balance).toBe(5);
  });

  it('a page whose canvas needs 1.7 GB is stopped at the 1024 MB ceiling: 422 naming it, at the first attempt; the next document is read', async () => {
    const { job, attempts } = await extractOnce(srv, hugeBlankPages(1, 10_000));
    expect(job).toMatchObject({
      status: 'failed',
      error: {
        error: 'unreadable_document',
        code: 422,
        message: "Reading the PDF needed more than 1024 MB of memory, the extractor's limit.",
      },
    });
    expect(attempts).toBe(1);
    const next = await extractOnce(srv, corpusPdf('004'));
    expect(next.job.status).toBe('complete');
    expect(next.job.result.policy_number).toBe(corpusTruth('004').policy_number);
  });
});

describe('documents waiting per key', () => {
  let srv: TestServer;
  beforeAll(async () => {
    // No workers: jobs stay pending, as while the extractor is busy.
    srv = await startTestServer({ workers: false, env: { COVERCHECK_EXTRACT_MAX_PENDING_PER_KEY: '2' } });
  });
  afterAll(async () => srv.close());

  it('a key at its limit gets 429 with Retry-After, for uploads and for async verifications with a document; another key is not held up', async () => {
    const { key } = await srv.key({ mode: 'test' });
    const pdf = corpusPdf('002');
    expect((await upload(srv, pdf, key)).status).toBe(202);
    const withDoc = { policy_number: 'KFZ-5096-000001', country: 'DE', insurance_type: 'motor', document: pdf.toString('base64') };
    expect((await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: withDoc })).status).toBe(202);
    // A verification without a document does not count.
    const { document: _, ...withoutDoc } = withDoc;
    expect((await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: withoutDoc })).status).toBe(202);

    const refused = await upload(srv, pdf, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('10');
    expect(refused.body).toEqual({
      error: 'rate_limit_exceeded',
      message: 'This key already has 2 documents waiting to be read, the limit per key; retry when one has finished.',
      code: 429,
      retry_after: 10,
    });
    const async = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: withDoc });
    expect(async.status).toBe(429);
    expect(async.headers.get('retry-after')).toBe('10');
    expect(async.body).toMatchObject({ error: 'rate_limit_exceeded', retry_after: 10 });

    const other = await srv.key({ mode: 'test' });
    expect((await upload(srv, pdf, other.key)).status).toBe(202);
  });
});
