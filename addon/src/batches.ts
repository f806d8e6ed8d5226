/**
 * Submitting policies in batches of 100 and collecting the results, shared by =VERIFYPOLICY and
 * the "Verify selected rows" sidebar. Budget: one UrlFetch request per batch to submit (all sent in
 * one fetchAll) and, normally, one to collect it.
 */
import { MAX_BATCH_SIZE, type TBatch } from '../../shared/batch.js';
import type { TVerifyRequest } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import { api, callMany, ConnectorError, slowestRoundTripMs, type CallOpts, type Conn } from './connector.js';

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

/**
 * One fetchAll for every chunk; a 402 or 429 on one chunk leaves the others submitted. With
 * `idempotencyKeys` (one per chunk), a chunk sent again with its key is answered with the batch
 * its first sending made, and not charged again.
 */
export function submitChunks(
  conn: Conn,
  chunks: TVerifyRequest[][],
  opts: CallOpts = {},
  sheetTarget?: TSheetTarget,
  idempotencyKeys?: string[],
): Submitted[] {
  const outs = callMany<{ batch_id: string }>(
    conn,
    chunks.map((c, i) => api.submitBatchReq(c, sheetTarget, idempotencyKeys?.[i])),
    opts,
  );
  return outs.map((o) => (o.ok ? { ok: true, batchId: o.body.batch_id } : { ok: false, error: o.error }));
}

export function firstPollDelayMs(rows: number): number {
  return Math.round(POLL_BASE_MS + rows * POLL_MS_PER_ROW);
}

/**
 * One round: GETs every listed batch in one fetchAll (long-poll when supported) and returns them,
 * and the ids the connector no longer knows (404). Errors that concern the whole connection are thrown.
 */
export function pollRound(
  conn: Conn,
  ids: string[],
  waitSeconds: number,
  opts: CallOpts = {},
): { got: Map<string, TBatch>; gone: string[] } {
  const outs = callMany<TBatch>(
    conn,
    ids.map((id) => api.getBatchReq(id, waitSeconds)),
    opts,
  );
  const got = new Map<string, TBatch>();
  const gone: string[] = [];
  outs.forEach((o, i) => {
    if (o.ok) got.set(ids[i]!, o.body);
    else if (o.error.kind === 'unauthorized' || o.error.kind === 'unreachable') throw o.error;
    else if (o.error.status === 404) gone.push(ids[i]!);
  });
  return { got, gone };
}

/**
 * Polls until every batch is complete or the deadline is near; returns the complete ones and the
 * vanished ones. The first round comes after `firstDelayMs`; later rounds back off (0.5 s, 1 s,
 * 2 s…). A round starts only when its sleep, its long-poll hold and one more round trip as slow as
 * the slowest so far all end before the deadline, so the caller always gets to answer in time.
 */
export function collect(
  conn: Conn,
  ids: string[],
  firstDelayMs: number,
  deadline: number,
  opts: CallOpts = {},
): { done: Map<string, TBatch>; gone: string[] } {
  const done = new Map<string, TBatch>();
  const gone: string[] = [];
  let open = [...new Set(ids)];
  let delay = firstDelayMs;
  let backoff = 500;
  while (open.length > 0) {
    const wait = Math.min(LONG_POLL_SECONDS, Math.floor((deadline - Date.now() - delay - slowestRoundTripMs()) / 1000) - 1);
    if (wait < 0) break;
    if (delay > 0) Utilities.sleep(delay);
    const round = pollRound(conn, open, wait, { ...opts, deadline });
    for (const [id, b] of round.got) if (b.status === 'complete') done.set(id, b);
    gone.push(...round.gone);
    open = open.filter((id) => !done.has(id) && !round.gone.includes(id));
    delay = backoff;
    backoff = Math.min(backoff * 2, 4000);
  }
  return { done, gone };
}
