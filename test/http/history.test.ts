/**
 * The result history through the real connector (docs/history.md): every result a key is given (POST
 * /verify, async jobs, batch items) is listed by GET /api/v1/verifications with its input and outcome;
 * the filters, keyset pages that survive inserts between them, the CSV form (quoting, formula guard),
 * another key seeing nothing, and retention removing old entries. The app's clock is moved, not waited
 * for. Runs on SQLite and, in the `postgres` project, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ZErrorBodySchema } from '../../shared/errors.js';
import { HISTORY_CSV_COLUMNS, ZVerificationListSchema, type TVerificationEntry } from '../../shared/history.js';
import { ZVerificationResultSchema, type TVerificationResult } from '../../shared/verification.js';
import { recordVerification } from '../../connector/src/history/record.js';
import { importOperatorRegistry, OPERATOR_DE_MOTOR, OPERATOR_UK_MOTOR } from '../helpers/operator-registry.js';
import { call, pollUntil, startTestServer, type TestServer } from '../helpers/server.js';

const HOUR = 3600_000;
const DAY = 24 * HOUR;
/** A fixed day for the moved clock, so days in the assertions are whole. */
const BASE = Date.parse('2031-03-01T00:00:00.000Z');

/** The app's clock: BASE moved on by `offset` and the real time since the file started (so it moves), or held at `frozen`. */
const started = Date.now();
let offset = 0;
let frozen: number | null = null;
const now = () => new Date(frozen ?? BASE + offset + (Date.now() - started));

const UK = (policy_number: string, extra: Record<string, string> = {}) => ({
  policy_number,
  country: 'UK',
  insurance_type: 'motor',
  ...extra,
});

async function verify(srv: TestServer, key: string, body: Record<string, string>): Promise<TVerificationResult> {
  const r = await call(srv.url, 'POST', '/api/v1/verify', { key, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return ZVerificationResultSchema.parse(r.body);
}

async function list(
  srv: TestServer,
  key: string,
  query = '',
): Promise<{ verifications: TVerificationEntry[]; next_cursor: string | null }> {
  const r = await call(srv.url, 'GET', `/api/v1/verifications${query}`, { key });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return ZVerificationListSchema.parse(r.body);
}

/** Every page of a query, following next_cursor. */
async function all(srv: TestServer, key: string, query: string): Promise<TVerificationEntry[]> {
  const out: TVerificationEntry[] = [];
  let cursor: string | null = null;
  do {
    const page = await list(srv, key, `?${query}${cursor ? `&cursor=${cursor}` : ''}`);
    out.push(...page.verifications);
    cursor = page.next_cursor;
  } while (cursor);
  return out;
}

function expectError(r: { status: number; body: unknown }, status: number, error: string): void {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(ZErrorBodySchema.parse(r.body)).toMatchObject({ error, code: status });
}

/** Newest first, by (created_at, id). */
function expectNewestFirst(entries: TVerificationEntry[]): void {
  for (let i = 1; i < entries.length; i++) {
    const [a, b] = [entries[i - 1]!, entries[i]!];
    expect(
      a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id),
      `${a.created_at} ${a.id} before ${b.created_at} ${b.id}`,
    ).toBe(true);
  }
}

/** RFC 4180 as a spreadsheet reads it: quoted fields may hold commas, doubled quotes and line breaks. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') ((cell += '"'), i++);
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') (row.push(cell), (cell = ''));
    else if (ch === '\r' && text[i + 1] === '\n') {
      (row.push(cell), rows.push(row), (row = []), (cell = ''), i++);
    } else cell += ch;
  }
  expect(cell === '' && row.length === 0, 'the CSV ends with CRLF').toBe(true);
  return rows;
}

describe('result history', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ now, env: { COVERCHECK_RESULT_RETENTION_DAYS: '30' } });
    await importOperatorRegistry(srv.store);
  });
  afterAll(async () => srv.close());

  it('records sync, async and batch results with the input as sent and the outcome as answered', async () => {
    offset = 0;
    const { key } = await srv.key({ mode: 'test' });
    const syncBody = { policy_number: 'ukm 1000 0001', country: 'Royaume-Uni', insurance_type: 'Kfz' };
    const sync = await verify(srv, key, syncBody);

    offset = HOUR;
    const accepted = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: UK('UKM-1000-0002') });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const job = await pollUntil(srv.url, accepted.body.poll_url, key, (b) => b.status !== 'pending');
    expect(job.status).toBe('complete');

    offset = 2 * HOUR;
    const policies = [UK('UKM-9999-9999'), { policy_number: 'MUT-000123', country: 'FR', insurance_type: 'health' }, { country: 'UK' }];
    const batchAccepted = await call(srv.url, 'POST', '/api/v1/verify/batch', { key, body: { policies } });
    expect(batchAccepted.status, JSON.stringify(batchAccepted.body)).toBe(202);
    const batchId = batchAccepted.body.batch_id as string;
    const batch = await pollUntil(srv.url, `/api/v1/batches/${batchId}`, key, (b) => b.status === 'complete');

    const { verifications, next_cursor } = await list(srv, key);
    expect(next_cursor).toBeNull();
    // The refused batch item (no policy number) is an error, not a result: not recorded.
    expect(verifications).toHaveLength(4);
    expectNewestFirst(verifications);
    const [itemB, itemA, asyncEntry, syncEntry] = verifications as [
      TVerificationEntry,
      TVerificationEntry,
      TVerificationEntry,
      TVerificationEntry,
    ];

    expect(syncEntry).toMatchObject({
      source: 'sync',
      source_id: null,
      policy_number: 'UKM10000001',
      country: 'UK',
      insurance_type: 'motor',
    });
    expect(syncEntry.input).toEqual(syncBody);
    expect(syncEntry.result).toEqual(sync);
    expect(syncEntry.status).toBe(sync.status);
    expect(syncEntry.confidence_score).toBe(sync.confidence_score);
    expect(syncEntry.checks).toEqual(sync.checks);
    expect(Date.parse(syncEntry.created_at) - BASE).toBeLessThan(HOUR);

    expect(asyncEntry).toMatchObject({ source: 'async', source_id: accepted.body.job_id, status: job.result.status });
    expect(asyncEntry.input).toMatchObject({ policy_number: 'UKM-1000-0002', country: 'UK', insurance_type: 'motor' });
    expect(asyncEntry.result).toEqual(job.result);

    const byNumber = new Map(batch.results.map((r: { policy_number: string; result?: unknown }) => [r.policy_number, r.result]));
    for (const item of [itemA, itemB]) {
      expect(item).toMatchObject({ source: 'batch', source_id: batchId });
      expect(item.result).toEqual(byNumber.get(item.input.policy_number as string));
    }
    expect(new Set([itemA.policy_number, itemB.policy_number])).toEqual(new Set(['UKM99999999', 'MUT000123']));
    expect([itemA, itemB].find((i) => i.country === 'FR')?.status).toBe('inconclusive');
  });

  it('records a charged result with its charge (live key), and the job erased by DELETE leaves the history with it', async () => {
    offset = 3 * HOUR;
    const { key, id } = await srv.key({ mode: 'live', credits: 10 });
    // A row of the operator's registry: verified, charged, and the entry rides in the charge's transaction.
    const answered = await verify(srv, key, { ...OPERATOR_UK_MOTOR });
    expect(answered.credits_charged).toBe(1);
    const accepted = await call(srv.url, 'POST', '/api/v1/verify/async', { key, body: OPERATOR_DE_MOTOR });
    const job = await pollUntil(srv.url, accepted.body.poll_url, key, (b) => b.status !== 'pending');
    const entries = (await list(srv, key)).verifications;
    expect(entries.map((e) => e.source)).toEqual(['async', 'sync']);
    expect(entries[1]!.result).toEqual(answered);
    expect(entries[0]!.result).toEqual(job.result);
    expect(job.result.credits_charged).toBe(1);
    expect((await srv.store.keys.get(id))!.balance).toBe(8);

    const erased = await call(srv.url, 'DELETE', `/api/v1/jobs/${accepted.body.job_id}`, { key });
    expect(erased.status, JSON.stringify(erased.body)).toBe(200);
    expect((await list(srv, key)).verifications.map((e) => e.source)).toEqual(['sync']);
  });

  it('filters by time range, status, policy number and watch', async () => {
    const { key, id } = await srv.key({ mode: 'test' });
    const day = (n: number) => new Date(BASE + n * DAY).toISOString();
    const results: TVerificationResult[] = [];
    for (const [n, number] of [
      [1, 'UKM-1000-0001'],
      [2, 'UKM-1000-0002'],
      [3, 'UKM-9999-9999'],
      [4, 'UKM-1000-0001'],
    ] as const) {
      offset = n * DAY;
      results.push(await verify(srv, key, UK(number)));
    }
    // Watches record through the same function (history/record.ts).
    for (const [watch, n] of [
      ['watch-a', 5],
      ['watch-b', 6],
    ] as const)
      await recordVerification(srv.store, {
        key_id: id,
        source: 'watch',
        source_id: watch,
        input: UK('UKM-1000-0001'),
        result: results[0]!,
        at: day(n),
      });

    const numbers = async (query: string) => (await all(srv, key, query)).map((e) => `${e.created_at.slice(0, 10)} ${e.policy_number}`);
    expect(await numbers('from=2031-03-03&to=2031-03-05')).toEqual(['2031-03-04 UKM99999999', '2031-03-03 UKM10000002']);
    expect(await numbers(`from=${encodeURIComponent(day(2))}&to=${encodeURIComponent(day(3))}`)).toEqual(['2031-03-03 UKM10000002']);
    // Case, spaces and dashes are ignored as when verifying.
    expect(await numbers('policy_number=ukm%201000-0001')).toEqual([
      '2031-03-07 UKM10000001',
      '2031-03-06 UKM10000001',
      '2031-03-05 UKM10000001',
      '2031-03-02 UKM10000001',
    ]);
    // The two watch entries carry the first result.
    const verified = results.filter((r) => r.status === 'verified').length + (results[0]!.status === 'verified' ? 2 : 0);
    expect(await all(srv, key, 'status=verified')).toHaveLength(verified);
    expect((await all(srv, key, 'status=verified')).every((e) => e.status === 'verified')).toBe(true);
    const watchA = await all(srv, key, 'watch_id=watch-a');
    expect(watchA.map((e) => [e.source, e.source_id])).toEqual([['watch', 'watch-a']]);
    expect(await all(srv, key, 'watch_id=watch-a&status=unverified')).toEqual(results[0]!.status === 'unverified' ? watchA : []);
  });

  it('pages by cursor: every entry once, newest first, with results recorded between the pages', async () => {
    const { key } = await srv.key({ mode: 'test' });
    // Several at one instant: the id orders them.
    frozen = BASE + 10 * DAY;
    for (let i = 0; i < 5; i++) await verify(srv, key, UK('UKM-1000-0001'));
    frozen = null;
    offset = 10 * DAY - HOUR;
    for (let i = 0; i < 4; i++) await verify(srv, key, UK('UKM-1000-0002'));
    const before = (await list(srv, key, '?limit=1000')).verifications;
    expect(before).toHaveLength(9);

    const seen: TVerificationEntry[] = [];
    let page = await list(srv, key, '?limit=4');
    seen.push(...page.verifications);
    // Newer results, and one more at the very instant of the page's last entry.
    offset = 11 * DAY;
    await verify(srv, key, UK('UKM-9999-9999'));
    frozen = BASE + 10 * DAY;
    await verify(srv, key, UK('UKM-9999-9999'));
    frozen = null;
    while (page.next_cursor) {
      page = await list(srv, key, `?limit=4&cursor=${page.next_cursor}`);
      seen.push(...page.verifications);
      await verify(srv, key, UK('UKM-9999-9999'));
    }
    expectNewestFirst(seen);
    expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
    // Every entry there before the first page is on exactly one page; the newer ones on none.
    const ids = new Set(seen.map((e) => e.id));
    for (const e of before) expect(ids.has(e.id), e.id).toBe(true);
    expect(seen.filter((e) => e.created_at > before[0]!.created_at)).toEqual([]);
  });

  it('answers CSV with Accept: text/csv: a header, RFC 4180 quoting, formula cells neutralised, the next page in Link', async () => {
    offset = 20 * DAY;
    const { key } = await srv.key({ mode: 'test' });
    const providers = ['=HYPERLINK("http://evil.example","click"), a "quoted" name', '+44 line\r\nbreak', '-1+1', '@SUM(A1)', 'Aviva, plc'];
    for (const provider of providers) await verify(srv, key, UK('UKM-1000-0001', { provider }));

    const res = await fetch(`${srv.url}/api/v1/verifications?limit=1000`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/csv' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    const text = await res.text();
    expect(text).toContain('"\'=HYPERLINK(""http://evil.example"",""click""), a ""quoted"" name"');
    const rows = parseCsv(text);
    expect(rows[0]).toEqual([...HISTORY_CSV_COLUMNS]);
    expect(rows).toHaveLength(1 + providers.length);
    const col = (name: (typeof HISTORY_CSV_COLUMNS)[number]) => rows.slice(1).map((r) => r[HISTORY_CSV_COLUMNS.indexOf(name)]);
    // Newest first, each formula start behind an apostrophe; a plain name as it was.
    expect(col('provider')).toEqual(['Aviva, plc', "'@SUM(A1)", "'-1+1", "'+44 line\r\nbreak", `'${providers[0]}`]);
    const json = (await list(srv, key, '?limit=1000')).verifications;
    expect(col('id')).toEqual(json.map((e) => e.id));
    expect(col('status')).toEqual(json.map((e) => e.status));
    expect(col('checks')[0]).toBe(json[0]!.checks.map((c) => `${c.source}: ${c.outcome} (${c.detail})`).join('; '));
    for (const row of rows) expect(row).toHaveLength(HISTORY_CSV_COLUMNS.length);

    // A page of 2: the Link header names the next page with the same query; following it gives the rest.
    const csvPage = async (url: string) => {
      const r = await fetch(url, { headers: { authorization: `Bearer ${key}`, accept: 'text/csv' } });
      return { rows: parseCsv(await r.text()).slice(1), link: r.headers.get('link') };
    };
    const ids: string[] = [];
    let page = await csvPage(`${srv.url}/api/v1/verifications?limit=2&policy_number=UKM-1000-0001`);
    for (;;) {
      ids.push(...page.rows.map((r) => r[1]!));
      if (!page.link) break;
      const next = /^<([^>]+)>; rel="next"$/.exec(page.link)?.[1];
      expect(next).toMatch(/^\/api\/v1\/verifications\?limit=2&policy_number=UKM-1000-0001&cursor=/);
      page = await csvPage(srv.url + next);
    }
    expect(ids).toEqual(col('id'));
  });

  it('shows a key only its own entries, whatever the cursor or filter', async () => {
    offset = 25 * DAY;
    const owner = await srv.key({ mode: 'test' });
    const other = await srv.key({ mode: 'test' });
    for (let i = 0; i < 3; i++) await verify(srv, owner.key, UK('UKM-1000-0001'));
    const page = await list(srv, owner.key, '?limit=1');
    expect(page.next_cursor).not.toBeNull();
    expect(await list(srv, other.key)).toEqual({ verifications: [], next_cursor: null });
    expect(await list(srv, other.key, `?cursor=${page.next_cursor}`)).toEqual({ verifications: [], next_cursor: null });
    expect(await list(srv, other.key, '?policy_number=UKM-1000-0001')).toEqual({ verifications: [], next_cursor: null });
    const csv = await fetch(`${srv.url}/api/v1/verifications`, { headers: { authorization: `Bearer ${other.key}`, accept: 'text/csv' } });
    expect(parseCsv(await csv.text())).toEqual([[...HISTORY_CSV_COLUMNS]]);
  });

  it('refuses bad filters and keys without the verify scope', async () => {
    const { key } = await srv.key({ mode: 'test' });
    for (const query of [
      'limit=1001',
      'limit=0',
      'cursor=not-a-cursor',
      'from=yesterday',
      'to=2031-02-30',
      'status=expired',
      'state=verified',
    ]) {
      expectError(await call(srv.url, 'GET', `/api/v1/verifications?${query}`, { key }), 400, 'invalid_request');
    }
    const unscoped = await srv.key({ mode: 'test', scopes: ['datasets'] });
    expectError(await call(srv.url, 'GET', '/api/v1/verifications', { key: unscoped.key }), 403, 'insufficient_scope');
    expectError(await call(srv.url, 'GET', '/api/v1/verifications'), 401, 'unauthorized');
  });

  it('retention removes entries older than the result retention period, and only those', async () => {
    const { key } = await srv.key({ mode: 'test' });
    offset = 40 * DAY;
    const old = await verify(srv, key, UK('UKM-1000-0001'));
    offset = 60 * DAY;
    await verify(srv, key, UK('UKM-1000-0002'));
    expect((await list(srv, key)).verifications).toHaveLength(2);
    // 31 days after the first, 11 after the second.
    offset = 71 * DAY;
    const deadline = Date.now() + 10_000;
    while ((await list(srv, key)).verifications.length > 1) {
      if (Date.now() > deadline) throw new Error('retention did not remove the older entry within 10000 ms');
      srv.connector.workers.find((w) => w.name === 'retention')?.notify();
      await new Promise((r) => setTimeout(r, 50));
    }
    const kept = (await list(srv, key)).verifications;
    expect(kept.map((e) => e.policy_number)).toEqual(['UKM10000002']);
    expect(kept[0]!.result.policy_number).not.toBe(old.policy_number);
  });
});
