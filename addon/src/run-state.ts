/**
 * The state of a "Verify selected rows" run between the sidebar's calls, in the user cache:
 * recorded before anything is paid for, in items of bounded size (see "Run state" below).
 */
import { MAX_BATCH_SIZE } from './batches.js';
import type { TPolicy } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import type { TLanguage } from '../../shared/packs/index.js';
import { expand } from './row-runs.js';
import type { RunSummary } from './run-summary.js';

export const RUN_TTL_SECONDS = 6 * 60 * 60;

export interface RunBatch {
  /** The connector's batch id; null until a save after submitting recorded it (the next poll submits it again, with its Idempotency-Key). */
  id: string | null;
  /** Policies in the batch (its rows, hashes and policies are in its piece). */
  n: number;
  /** Epoch ms before which polling this batch is probably wasted. */
  due: number;
  done: boolean;
  completed: number;
  /** The Idempotency-Key of a batch taken over from an earlier run (unfinished-runs.ts); else the run's own. */
  key?: string;
}

export interface RunState {
  id: string;
  sheet: string;
  cols: number[];
  total: number;
  done: number;
  errors: number;
  batches: RunBatch[];
  notes: string[];
  writeBack?: { written: number; missing: string[]; failed: string | null };
  /** Policy numbers not found beyond the MAX_MISSING_KEPT named in writeBack.missing. */
  missingMore?: number;
  /** The write-back target the batches were sent with: a batch sent again must be the same request. */
  target?: TSheetTarget;
  first: number;
  last: number;
  policyCol: number;
  skipped: number;
  credits: number;
  lang: TLanguage;
  summary: RunSummary | null;
}

/*
 * Run state. Everything the connector may charge for is recorded before it is sent, so no accepted
 * batch can be lost or paid for twice:
 * - the head, `run:<id>`: counts, notes, and per batch its id, size and progress (under 100 bytes
 *   a batch, at most MAX_RUN_BATCHES of them);
 * - one piece per batch, `run:<id>:b:<n>`: its sheet rows, input hashes and policies as sent,
 *   at most 100 policies and PIECE_BUDGET_BYTES.
 * Why pieces: one item holding every batch's rows passes CacheService's 100 KB per value at about
 * 9,500 policies on non-adjacent rows, and a save that fails after submitting leaves batches
 * charged that nothing can write. Head and pieces go in one putAll before anything is submitted;
 * if that fails, nothing is sent. Each batch is sent with the Idempotency-Key
 * `covercheck-rows-<run id>-<n>`, which the connector keeps per API key: when the save after
 * submitting (the batch ids) fails, the next poll sends the unrecorded batches again, from their
 * pieces, with the same keys and bodies, and the connector answers with the batches it already
 * made, charging nothing. Every item is asserted under
 * ITEM_MAX_BYTES, half of the 100 KB, so that a future field can't bring the failure back unseen.
 * A run is at most MAX_RUN_BATCHES batches: with its head it stays well under the 1,000 items a
 * cache keeps (more are evicted), leaving room for the add-on's other user-cache items.
 */
export const ITEM_MAX_BYTES = 50 * 1024;
const PIECE_BUDGET_BYTES = 24 * 1024;
export const MAX_RUN_BATCHES = 400;

export interface RunPiece {
  /** Sheet rows as [start, length] runs, in submission order. */
  rows: number[][];
  /** Input hashes, comma-separated, in the same order. */
  hashes: string;
  /** The batch's policies exactly as sent, to send it again with its Idempotency-Key. */
  policies: TPolicy[];
  /**
   * A batch taken over from an earlier run: the row of each of its policies now, 0 for one no
   * longer in the sheet (its result is not written). Used instead of `rows`.
   */
  at?: number[];
}

/** The sheet row of each of the piece's policies, in order; 0 for one whose row is gone. */
export const rowsOf = (p: RunPiece): number[] => p.at ?? expand(p.rows);

export const headKey = (runId: string) => `run:${runId}`;
export const pieceKey = (runId: string, n: number) => `run:${runId}:b:${n}`;
export const idempotencyKey = (runId: string, n: number) => `covercheck-rows-${runId}-${n}`;

/** UTF-8 bytes of a string (what CacheService's 100 KB counts; V8 in Apps Script has no TextEncoder). */
function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c < 0xdc00 ? 4 : c >= 0xdc00 && c < 0xe000 ? 0 : 3;
  }
  return n;
}

export function bounded(key: string, value: unknown): string {
  const text = JSON.stringify(value);
  const bytes = utf8Bytes(text);
  if (bytes > ITEM_MAX_BYTES)
    throw new Error(`Internal limit: the run's cache item ${key} would be ${bytes} bytes, over ${ITEM_MAX_BYTES}. Select fewer rows.`);
  return text;
}

/**
 * Batches of at most 100 policies whose pieces stay within PIECE_BUDGET_BYTES (a row run and a
 * hash cost at most ~40 bytes beside the policy's JSON).
 */
export function pieceChunks<T extends { policy: TPolicy }>(items: T[]): T[][] {
  const out: T[][] = [];
  let cur: T[] = [];
  let bytes = 0;
  for (const it of items) {
    const b = utf8Bytes(JSON.stringify(it.policy)) + 40;
    if (cur.length && (cur.length >= MAX_BATCH_SIZE || bytes + b > PIECE_BUDGET_BYTES)) {
      out.push(cur);
      cur = [];
      bytes = 0;
    }
    cur.push(it);
    bytes += b;
  }
  if (cur.length) out.push(cur);
  return out;
}

/** An exception's message (Apps Script's own exceptions aren't instances of this script's Error). */
export const messageOf = (e: unknown) =>
  typeof e === 'object' && e !== null && 'message' in e ? String((e as { message: unknown }).message) : String(e);

export const cache = () => CacheService.getUserCache()!;
export function save(state: RunState): void {
  cache().put(headKey(state.id), bounded(headKey(state.id), state), RUN_TTL_SECONDS);
}
/** The head and every piece in one call, before anything is sent, with `also` (other items that must change with them). */
export function record(state: RunState, pieces: RunPiece[], also: Record<string, string> = {}): void {
  const items: Record<string, string> = { ...also, [headKey(state.id)]: bounded(headKey(state.id), state) };
  pieces.forEach((p, n) => (items[pieceKey(state.id, n)] = bounded(pieceKey(state.id, n), p)));
  cache().putAll(items, RUN_TTL_SECONDS);
}
export function load(runId: string): RunState {
  const raw = cache().get(headKey(runId));
  if (!raw) throw new Error('This run is no longer known (it ran more than 6 hours ago). Start it again.');
  return JSON.parse(raw) as RunState;
}
export function loadPieces(runId: string, ns: number[]): Map<number, RunPiece> {
  if (!ns.length) return new Map();
  const got = cache().getAll(ns.map((n) => pieceKey(runId, n)));
  const out = new Map<number, RunPiece>();
  for (const n of ns) {
    const raw = got[pieceKey(runId, n)];
    if (raw) out.set(n, JSON.parse(raw) as RunPiece);
  }
  return out;
}
