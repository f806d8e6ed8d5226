/**
 * Submitting policies in batches of 100 and collecting the results, shared by =VERIFYPOLICY and
 * the "Verify selected rows" sidebar. Budget: one UrlFetch request per batch to submit (all sent in
 * one fetchAll) and, normally, one to collect it.
 */
import { MAX_BATCH_SIZE, type TBatch } from '../../shared/batch.js';
import type { TVerifyRequest } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import { api, callMany, ConnectorError, type CallOpts, type Conn } from './connector.js';

export { MAX_BATCH_SIZE };

/**
 * Until the connector holds GET /batches/{id}?wait= open, the first poll comes after this
 * estimate of the processing time (the connector's bench: a batch of 100 completes in ~25 ms;
 * 4 workers drain ~5,000 items/s), so one GET per batch normally finds it complete.
 */
export const POLL_BASE_MS = 300;
export const POLL_MS_PER_ROW = 0.5;
/** Seconds of long-poll asked for on each GET (ignored by a connector that doesn't support it). */
export const LONG_POLL_SECONDS = 20;

export function chunk<T>(items: T[], size = MAX_BATCH_SIZE): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export type Submitted = { ok: true; batchId: string } | { ok: false; error: ConnectorError };

/** One fetchAll for every chunk; a 402 or 429 on one chunk leaves the others submitted. */
export function submitChunks(conn: Conn, chunks: TVerifyRequest[][], opts: CallOpts = {}, sheetTarget?: TSheetTarget): Submitted[] {
  const outs = callMany<{ batch_id: string }>(conn, chunks.map((c) => api.submitBatchReq(c, sheetTarget)), opts);
  return outs.map((o) => (o.ok ? { ok: true, batchId: o.body.batch_id } : { ok: false, error: o.error }));
}

export function firstPollDelayMs(rows: number): number {
  return Math.round(POLL_BASE_MS + rows * POLL_MS_PER_ROW);
}

/**
 * One round: GETs every listed batch in one fetchAll (long-poll when supported) and returns them.
 * A batch whose GET failed is left out; errors that concern the whole connection are thrown.
 */
export function pollRound(conn: Conn, ids: string[], waitSeconds: number, opts: CallOpts = {}): Map<string, TBatch> {
  const outs = callMany<TBatch>(conn, ids.map((id) => api.getBatchReq(id, waitSeconds)), opts);
  const got = new Map<string, TBatch>();
  outs.forEach((o, i) => {
    if (o.ok) got.set(ids[i]!, o.body);
    else if (o.error.kind === 'unauthorized' || o.error.kind === 'unreachable') throw o.error;
  });
  return got;
}

/**
 * Polls until every batch is complete or the deadline passes; returns the complete ones. The
 * first round comes after `firstDelayMs`; later rounds back off (0.5 s, 1 s, 2 s...).
 */
export function collect(conn: Conn, ids: string[], firstDelayMs: number, deadline: number, opts: CallOpts = {}): Map<string, TBatch> {
  const done = new Map<string, TBatch>();
  let open = [...new Set(ids)];
  let delay = firstDelayMs;
  let backoff = 500;
  while (open.length > 0) {
    const left = deadline - Date.now();
    if (left <= delay) break;
    if (delay > 0) Utilities.sleep(delay);
    const wait = Math.max(0, Math.min(LONG_POLL_SECONDS, Math.floor((deadline - Date.now()) / 1000) - 2));
    const got = pollRound(conn, open, wait, { ...opts, deadline });
    for (const [id, b] of got) if (b.status === 'complete') done.set(id, b);
    open = open.filter((id) => !done.has(id));
    delay = backoff;
    backoff = Math.min(backoff * 2, 4000);
  }
  return done;
}
