/**
 * The one wrapper around the connector's REST API over UrlFetchApp: builds requests, sends them
 * (alone or several at once through fetchAll), and turns every failure into a ConnectorError whose
 * message a user can act on. Nothing else in the add-on builds URLs.
 */
import type { z } from 'zod';
import type { TAccount } from '../../shared/account.js';
import type { TBatch, TBatchAccepted } from '../../shared/batch.js';
import type { TDataset, TSeriesPoint } from '../../shared/dataset.js';
import { errorText } from '../../shared/errors.js';
import type { TJob, TJobAccepted } from '../../shared/job.js';
import {
  ZSheetBindingIssuedSchema,
  ZSheetBindingListSchema,
  ZSheetBindingSchema,
  type TSchedule,
  type TSheetTarget,
} from '../../shared/sheets.js';
import type { TVerifyRequest } from '../../shared/policy.js';

/** Where and as whom to call. `key` null is allowed for the public dataset routes only. */
export interface Conn {
  url: string;
  key: string | null;
}

/**
 * Why a call failed, from the user's side:
 * - no_key / no_url: the add-on isn't set up (Settings, or no key granted to the spreadsheet);
 * - unreachable: DNS, TCP or TLS failed, or the URL isn't on the manifest's urlFetchWhitelist;
 * - unauthorized (401), forbidden (403 scope), out_of_credits (402), rate_limited (429 after one retry);
 * - sheet_not_bound (403): the spreadsheet is not bound to this key (see bindings.ts), so the
 *   connector won't write into it;
 * - bad_request (400/404/413/415/422): the input, in the connector's own words;
 * - server (5xx, an answer that isn't JSON, or a binding answer not in the contract's form).
 */
export type ConnectorErrorKind =
  | 'no_key'
  | 'no_url'
  | 'unreachable'
  | 'unauthorized'
  | 'forbidden'
  | 'sheet_not_bound'
  | 'out_of_credits'
  | 'rate_limited'
  | 'bad_request'
  | 'server';

export class ConnectorError extends Error {
  constructor(
    readonly kind: ConnectorErrorKind,
    message: string,
    readonly status = 0,
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'ConnectorError';
  }
}

/** A request the transport can send; `payload` objects holding a Blob go out as multipart/form-data. */
export interface Req {
  method: 'get' | 'post' | 'delete';
  path: string;
  json?: unknown;
  form?: Record<string, GoogleAppsScript.Base.Blob | string>;
  /** Sent as an Idempotency-Key header: a repeat of the same request is answered as the first was, and charged once. */
  idempotencyKey?: string;
}

export type Outcome<T> = { ok: true; body: T } | { ok: false; error: ConnectorError };

/** Hooks for what the caller should learn about: a 429 wait (the sidebar tells the user). */
export interface CallOpts {
  /** Epoch ms after which no retry wait may end (custom functions have 30 s in all). */
  deadline?: number;
  onRateLimited?: (seconds: number) => void;
}

function toParams(conn: Conn, req: Req): GoogleAppsScript.URL_Fetch.URLFetchRequest {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (conn.key) headers.Authorization = `Bearer ${conn.key}`;
  if (req.idempotencyKey) headers['Idempotency-Key'] = req.idempotencyKey;
  const out: GoogleAppsScript.URL_Fetch.URLFetchRequest = {
    url: conn.url.replace(/\/+$/, '') + req.path,
    method: req.method,
    headers,
    muteHttpExceptions: true,
    followRedirects: false,
  };
  if (req.json !== undefined) {
    out.contentType = 'application/json';
    out.payload = JSON.stringify(req.json);
  } else if (req.form) {
    // UrlFetchApp sends an object payload that holds a Blob as multipart/form-data.
    out.payload = req.form as unknown as GoogleAppsScript.URL_Fetch.Payload;
  }
  return out;
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Reads the balance from either error form: `balance` (sync) or "... is N." in the message (async/batch). */
export function balanceOf(body: unknown): number | null {
  if (typeof body === 'object' && body !== null && typeof (body as { balance?: unknown }).balance === 'number')
    return (body as { balance: number }).balance;
  const m = /balance(?: for billing period [\d-]+)?(?: is)? (-?\d+)/.exec(errorText(body));
  return m ? Number(m[1]) : null;
}

function retryAfterOf(body: unknown, headers: Record<string, unknown>): number {
  const fromBody = typeof body === 'object' && body !== null ? (body as { retry_after?: unknown }).retry_after : undefined;
  if (typeof fromBody === 'number' && fromBody > 0) return fromBody;
  const h = Number(headers['Retry-After'] ?? headers['retry-after']);
  return Number.isFinite(h) && h > 0 ? h : 1;
}

/** Maps an HTTP answer to its body or a ConnectorError with advice. */
export function interpret<T>(conn: Conn, status: number, text: string, headers: Record<string, unknown>): Outcome<T> {
  const body = parseBody(text);
  if (status >= 200 && status < 300) {
    // 204 (DELETE) has no body.
    if (status === 204) return { ok: true, body: null as T };
    if (body === undefined)
      return {
        ok: false,
        error: new ConnectorError(
          'server',
          `The connector at ${conn.url} answered ${status} with something that isn't JSON. Check the connector URL in Settings.`,
          status,
        ),
      };
    return { ok: true, body: body as T };
  }
  const said = errorText(body ?? {});
  const err = (kind: ConnectorErrorKind, msg: string, ra?: number) => ({
    ok: false as const,
    error: new ConnectorError(kind, msg, status, ra),
  });
  switch (status) {
    case 401:
      return err('unauthorized', `API key refused (401): ${said} Check the key in Covercheck > Settings.`);
    case 402: {
      const bal = balanceOf(body);
      return err('out_of_credits', `Out of credits: balance ${bal ?? 'unknown'}`);
    }
    case 403:
      if (typeof body === 'object' && body !== null && (body as { error?: unknown }).error === 'sheet_not_bound') {
        return err('sheet_not_bound', `${said} Connect this spreadsheet to your API key (Covercheck > Settings > Connect) and try again.`);
      }
      return err('forbidden', `This API key may not do that (403): ${said}`);
    case 429: {
      const ra = retryAfterOf(body, headers);
      return err('rate_limited', `Rate limited by the connector: try again in ${ra} s.`, ra);
    }
    default:
      if (status >= 500) {
        const ra = status === 503 ? retryAfterOf(body, headers) : undefined;
        return err('server', `Connector error (${status}): ${body === undefined ? 'not a JSON answer' : said}`, ra);
      }
      return err('bad_request', body === undefined ? `The connector answered ${status}. Check the connector URL in Settings.` : said);
  }
}

function unreachable(conn: Conn, e: unknown): ConnectorError {
  const why = e instanceof Error ? e.message : String(e);
  return new ConnectorError(
    'unreachable',
    `Connector unreachable at ${conn.url}: ${why}. Check the URL in Settings and that it is on the add-on's urlFetchWhitelist.`,
  );
}

function requireConn(conn: Conn, needKey: boolean): void {
  if (!conn.url) throw new ConnectorError('no_url', 'No connector URL set: open Covercheck > Settings.');
  if (needKey && !conn.key) throw new ConnectorError('no_key', 'No API key set: open Covercheck > Settings.');
}

/** The longest round trip of this execution so far: the margin a deadline-bound caller keeps for one more call. */
let slowestMs = 0;
export function slowestRoundTripMs(): number {
  return slowestMs;
}

/**
 * Sends several requests in one UrlFetchApp.fetchAll. Requests answered 429 are sent once more
 * (together) after the longest retry_after, when that wait ends before the deadline.
 */
export function callMany<T>(conn: Conn, reqs: Req[], opts: CallOpts = {}, needKey = true): Outcome<T>[] {
  requireConn(conn, needKey);
  if (reqs.length === 0) return [];
  const send = (rs: Req[]): Outcome<T>[] => {
    let responses: GoogleAppsScript.URL_Fetch.HTTPResponse[];
    const started = Date.now();
    try {
      responses =
        rs.length === 1
          ? [UrlFetchApp.fetch(toParams(conn, rs[0]!).url, toParams(conn, rs[0]!))]
          : UrlFetchApp.fetchAll(rs.map((r) => toParams(conn, r)));
    } catch (e) {
      throw unreachable(conn, e);
    } finally {
      slowestMs = Math.max(slowestMs, Date.now() - started);
    }
    return responses.map((r) => interpret<T>(conn, r.getResponseCode(), r.getContentText(), r.getHeaders() as Record<string, unknown>));
  };
  const out = send(reqs);
  const limited = out.map((o, i) => (!o.ok && o.error.kind === 'rate_limited' ? i : -1)).filter((i) => i >= 0);
  if (limited.length === 0) return out;
  const wait = Math.max(...limited.map((i) => (out[i] as { error: ConnectorError }).error.retryAfter ?? 1));
  if (opts.deadline !== undefined && Date.now() + wait * 1000 > opts.deadline) return out;
  opts.onRateLimited?.(wait);
  Utilities.sleep(wait * 1000);
  const again = send(limited.map((i) => reqs[i]!));
  limited.forEach((i, j) => (out[i] = again[j]!));
  return out;
}

/** One request; throws its ConnectorError. */
export function call<T>(conn: Conn, req: Req, opts: CallOpts = {}, needKey = true): T {
  const [o] = callMany<T>(conn, [req], opts, needKey);
  if (!o!.ok) throw o!.error;
  return o!.body;
}

/**
 * An answer checked against the shared contract. Used where the add-on acts on what the connector
 * says beyond showing it: a binding token goes into the user's document only in the contract's form.
 */
function conforming<T extends z.ZodType>(schema: T, body: unknown, what: string): z.output<T> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new ConnectorError(
    'server',
    `The connector's answer to ${what} is not what this add-on expects (${issue.path.join('.') || 'body'}: ${issue.message}). Update the connector.`,
  );
}

/** The endpoints, named for what they do. */
export const api = {
  account: (conn: Conn, opts?: CallOpts) => call<TAccount>(conn, { method: 'get', path: '/api/v1/account' }, opts),
  /**
   * With `sheetTarget`, the connector writes the results into that sheet itself when the batch
   * completes. With `idempotencyKey`, sending the same batch again gets the same batch back, charged once.
   */
  submitBatchReq: (policies: TVerifyRequest[], sheetTarget?: TSheetTarget, idempotencyKey?: string): Req => ({
    method: 'post',
    path: '/api/v1/verify/batch',
    json: sheetTarget ? { policies, sheet_target: sheetTarget } : { policies },
    idempotencyKey,
  }),
  /**
   * One policy answered in the same call (POST /verify). With `idempotencyKey`, sending it again
   * (after a run that ended before it could keep the answer) gets the first answer back, charged once.
   */
  verifyReq: (policy: TVerifyRequest, idempotencyKey: string): Req => ({
    method: 'post',
    path: '/api/v1/verify',
    json: policy,
    idempotencyKey,
  }),
  /**
   * `wait` asks the connector to hold the answer until the batch is complete or `wait` seconds
   * pass (long-poll). A connector without it ignores the parameter and answers at once.
   */
  getBatchReq: (id: string, wait = 0): Req => ({
    method: 'get',
    path: `/api/v1/batches/${encodeURIComponent(id)}${wait > 0 ? `?wait=${wait}` : ''}`,
  }),
  extract: (conn: Conn, file: GoogleAppsScript.Base.Blob, opts?: CallOpts) =>
    call<TJobAccepted>(conn, { method: 'post', path: '/api/v1/documents/extract', form: { file } }, opts),
  job: (conn: Conn, id: string, opts?: CallOpts) =>
    call<TJob>(conn, { method: 'get', path: `/api/v1/jobs/${encodeURIComponent(id)}` }, opts),
  serviceAccount: (conn: Conn) => call<{ email: string; note: string }>(conn, { method: 'get', path: '/api/v1/sheets/service-account' }),
  schedules: (conn: Conn) => call<{ schedules: TSchedule[] }>(conn, { method: 'get', path: '/api/v1/sheets/schedules' }),
  createSchedule: (
    conn: Conn,
    body: {
      dataset: string;
      spreadsheet_id: string;
      sheet_name: string;
      cadence: 'hourly' | 'daily' | 'weekly';
      limit: number;
      mode?: 'overwrite' | 'append' | 'merge';
    },
  ) => call<TSchedule>(conn, { method: 'post', path: '/api/v1/sheets/schedules', json: body }),
  /** Un-pauses a schedule the connector paused after failed runs, and runs it at once. */
  resumeSchedule: (conn: Conn, id: string) =>
    call<TSchedule>(conn, { method: 'post', path: `/api/v1/sheets/schedules/${encodeURIComponent(id)}/resume`, json: {} }),
  deleteSchedule: (conn: Conn, id: string) =>
    call<null>(conn, { method: 'delete', path: `/api/v1/sheets/schedules/${encodeURIComponent(id)}` }),
  /** The key's bindings (spreadsheets connected to it): at most one per spreadsheet. */
  bindings: (conn: Conn) =>
    conforming(ZSheetBindingListSchema, call(conn, { method: 'get', path: '/api/v1/sheets/bindings' }), 'GET /sheets/bindings').bindings,
  /** A new token for (key, spreadsheet); asked again, the same binding id with a new token (the old one stops counting). */
  createBinding: (conn: Conn, spreadsheetId: string) =>
    conforming(
      ZSheetBindingIssuedSchema,
      call(conn, { method: 'post', path: '/api/v1/sheets/bindings', json: { spreadsheet_id: spreadsheetId } }),
      'POST /sheets/bindings',
    ),
  verifyBinding: (conn: Conn, id: string) =>
    conforming(
      ZSheetBindingSchema,
      call(conn, { method: 'post', path: `/api/v1/sheets/bindings/${encodeURIComponent(id)}/verify`, json: {} }),
      'POST /sheets/bindings/{id}/verify',
    ),
  deleteBinding: (conn: Conn, id: string) =>
    call<null>(conn, { method: 'delete', path: `/api/v1/sheets/bindings/${encodeURIComponent(id)}` }),
  searchDatasets: (conn: Conn, q: string, limit = 20) =>
    call<{ datasets: TDataset[]; total: number }>(
      conn,
      { method: 'get', path: `/api/v1/datasets?${q.trim() ? `q=${encodeURIComponent(q.trim())}&` : ''}limit=${limit}` },
      {},
      false,
    ),
  dataset: (conn: Conn, slug: string) =>
    call<TDataset>(conn, { method: 'get', path: `/api/v1/datasets/${encodeURIComponent(slug)}` }, {}, false),
  series: (conn: Conn, slug: string, limit: number) =>
    call<{ slug: string; points: TSeriesPoint[] }>(
      conn,
      { method: 'get', path: `/api/v1/datasets/${encodeURIComponent(slug)}/series?limit=${limit}` },
      {},
      false,
    ),
};

export type { TBatch, TBatchAccepted };
