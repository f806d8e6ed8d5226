/**
 * The fuzz's books: the watches the store holds and the credit ledger, read before and after each case
 * (server-child.ts reads them from the database), so that a request that was refused, or was never a
 * watch request, is seen if it created, removed, paused or resumed a watch, or charged a credit.
 */
import type { RawOutcome, RawRequest } from '../helpers/raw-http.js';
import { routedPath } from './check.js';

/** What a watch's owner sets; not what the runner moves as it works (run, lease, next run, re-check). */
export interface WatchRow {
  id: string;
  key_id: string;
  paused_at: string | null;
  cadence: string;
  expiry_window_days: number;
  webhook_url: string | null;
  email_to: string | null;
  sheet_target: string | null;
  notify_unchanged: number;
  policy_count: number;
  created_at: string;
}

export interface LedgerRow {
  id: number;
  key_id: string;
  delta: number;
  reason: string;
  ref: string | null;
}

export interface Books {
  watches: WatchRow[];
  /** Ledger rows written after the `since` the books were asked with (none when asked without). */
  ledger: LedgerRow[];
  /** The newest ledger row's id, to ask the next books with. */
  lastLedgerId: number;
}

/** The key ids a request may have acted as: none for a missing, revoked or malformed credential. */
export type KeyIds = Record<'test' | 'live' | 'verifyOnly' | 'other', string>;

/** The ids of the keys `auth` may stand for (a duplicated header: either; a lowercase scheme: the test key, if accepted at all). */
export function actingKeys(auth: string, ids: KeyIds): string[] {
  if (auth === 'duplicate') return [ids.test, ids.other];
  if (auth === 'lowercase') return [ids.test];
  return auth in ids ? [ids[auth as keyof KeyIds]] : [];
}

/**
 * Background work settles what it reserved under these references: a job's, a batch's, a watch run's.
 * Any other row that takes credits was taken by the request in hand.
 */
const BACKGROUND_REF = /^(job|batch|watch):/;

/** The watch operation a request is, by its method and routed path, or null for any other request. */
function watchOperation(req: RawRequest): { op: 'create' | 'pause' | 'resume' | 'delete' | 'read'; id: string | null } | null {
  const path = routedPath(req.path);
  if (path === '/api/v1/watches') return { op: req.method === 'POST' ? 'create' : 'read', id: null };
  const m = /^\/api\/v1\/watches\/([^/]+)(?:\/(pause|resume))?$/.exec(path);
  if (!m) return null;
  let id = m[1]!;
  try {
    id = decodeURIComponent(id);
  } catch {
    // A malformed escape names no watch: the id stays as sent, and matches none.
  }
  if (m[2]) return { op: req.method === 'POST' ? (m[2] as 'pause' | 'resume') : 'read', id };
  return { op: req.method === 'DELETE' ? 'delete' : 'read', id };
}

const same = (a: WatchRow, b: WatchRow) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Null when the books moved only as the answer allows, else what is wrong. Only a 2xx may touch one
 * watch, of a key the request acted as: a create adds at most one (none on a replay), the one its
 * answer names; a delete removes the watch its path names; a pause or resume changes that watch's
 * paused_at. Nothing else in any watch changes. `charges`: whether the request may take credits itself
 * (the verify routes); no other takes any, whatever its answer.
 */
export function booksProblem(
  req: RawRequest,
  outcome: RawOutcome,
  acting: string[],
  before: Books,
  after: Books,
  charges: boolean,
): string | null {
  const status = outcome.ok ? outcome.response.status : 0;
  const ok = status >= 200 && status < 300;
  const taken = after.ledger.filter((r) => r.delta < 0 && !BACKGROUND_REF.test(r.ref ?? ''));
  if (!charges && taken.length) return `credits taken by a request that takes none (answered ${status}): ${JSON.stringify(taken)}`;

  const was = new Map(before.watches.map((w) => [w.id, w]));
  const is = new Map(after.watches.map((w) => [w.id, w]));
  const added = after.watches.filter((w) => !was.has(w.id));
  const removed = before.watches.filter((w) => !is.has(w.id));
  const changed = after.watches.filter((w) => was.has(w.id) && !same(was.get(w.id)!, w));
  const touched = [...added, ...removed, ...changed];
  if (touched.length === 0) return null;
  const what = `added ${JSON.stringify(added)}, removed ${JSON.stringify(removed)}, changed ${JSON.stringify(changed)}`;
  const op = watchOperation(req);
  if (!ok || !op || op.op === 'read' || touched.length > 1) return `watches moved on a ${status} to this request: ${what}`;
  const w = touched[0]!;
  if (!acting.includes(w.key_id)) return `a watch of key ${w.key_id} moved by a request acting as ${JSON.stringify(acting)}: ${what}`;
  switch (op.op) {
    case 'create': {
      const named = outcome.ok ? (JSON.parse(outcome.response.text) as { watch_id?: string }).watch_id : undefined;
      return added.length === 1 && w.id === named ? null : `a create answered ${status} for ${named}: ${what}`;
    }
    case 'delete':
      return removed.length === 1 && w.id === op.id ? null : `a delete of ${op.id}: ${what}`;
    default: {
      const prior = was.get(w.id);
      const onlyPause = prior && changed.length === 1 && same({ ...prior, paused_at: w.paused_at }, w);
      const right = op.op === 'pause' ? w.paused_at !== null : w.paused_at === null;
      return onlyPause && right && w.id === op.id ? null : `a ${op.op} of ${op.id}: ${what}`;
    }
  }
}
