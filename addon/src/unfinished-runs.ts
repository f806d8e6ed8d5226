/**
 * Runs the sidebar left unfinished. A run is paid for when it is submitted, and its results are
 * written by the sidebar's polls: close the sidebar (or lose the connection) before they come in,
 * and the rows stay blank, so the next run would submit them again and pay twice. So a new run
 * first takes over the open batches of this user's earlier runs on the same sheet: each policy of
 * such a batch is matched, by its input hash, to the row that holds it now; the batch is collected
 * (or, if its submission was never confirmed, sent again with its first Idempotency-Key, which the
 * connector answers with the batch it made, charging nothing) and its results written into those
 * rows. The earlier run's head marks the batch as taken, in the same putAll that records the new
 * run, so no batch is written by two runs.
 *
 * Kept in the user cache: `runs:open`, the ids and sheets of the user's last runs (6 hours, as the
 * runs themselves).
 */
import type { TPolicy } from '../../shared/policy.js';
import type { TSheetTarget } from '../../shared/sheets.js';
import { bounded, cache, headKey, idempotencyKey, load, loadPieces, type RunBatch, type RunPiece, type RunState } from './run-state.js';

const INDEX = 'runs:open';
/** Runs remembered per user: the index stays a small item however often the sidebar runs. */
const INDEX_RUNS = 20;

interface IndexEntry {
  id: string;
  sheet: string;
}

export interface Adopted {
  batches: RunBatch[];
  pieces: RunPiece[];
  /** The rows they cover: not to be submitted again. */
  rows: Set<number>;
  /** Items to write with the new run's record: the earlier runs' heads, and the index. */
  items: Record<string, string>;
  note: string | null;
}

function readIndex(): IndexEntry[] {
  try {
    const raw = cache().get(INDEX);
    return raw ? (JSON.parse(raw) as IndexEntry[]) : [];
  } catch {
    return [];
  }
}

/**
 * The open batches of this user's earlier runs on `sheet` whose policies are in `valid` now (by
 * input hash), ready to go into the run `runId`; and the index with that run added.
 */
export function adoptUnfinished(
  runId: string,
  sheet: string,
  valid: { row: number; policy: TPolicy; hash: string }[],
  target: TSheetTarget | undefined,
): Adopted {
  const index = readIndex();
  const out: Adopted = { batches: [], pieces: [], rows: new Set(), items: {}, note: null };
  const rowsByHash = new Map<string, number[]>();
  for (const v of valid) rowsByHash.set(v.hash, [...(rowsByHash.get(v.hash) ?? []), v.row]);
  let taken = 0;
  for (const entry of index.filter((e) => e.sheet === sheet)) {
    let earlier: RunState;
    try {
      earlier = load(entry.id);
    } catch {
      continue;
    }
    // A batch sent again must be the same request: the same write-back target, or none.
    if (JSON.stringify(earlier.target ?? null) !== JSON.stringify(target ?? null)) continue;
    const open = earlier.batches.map((b, n) => (b.done ? -1 : n)).filter((n) => n >= 0);
    const pieces = loadPieces(earlier.id, open);
    let changed = false;
    for (const n of open) {
      const piece = pieces.get(n);
      if (!piece) continue;
      const at = piece.hashes.split(',').map((h) => {
        const free = (rowsByHash.get(h) ?? []).find((r) => !out.rows.has(r));
        if (free === undefined) return 0;
        out.rows.add(free);
        return free;
      });
      const found = at.filter((r) => r > 0).length;
      if (found === 0) continue;
      const b = earlier.batches[n]!;
      out.batches.push({
        id: b.id,
        n: found,
        due: b.id ? Date.now() : 0,
        done: false,
        completed: 0,
        key: b.key ?? idempotencyKey(earlier.id, n),
      });
      out.pieces.push({ rows: [], hashes: piece.hashes, policies: piece.policies, at });
      taken += found;
      // Taken over: the earlier run, should its sidebar poll again, neither collects nor writes it.
      b.done = true;
      earlier.done += b.n - b.completed;
      b.completed = b.n;
      changed = true;
    }
    if (changed) {
      earlier.notes.push('Some of its batches were taken over by a later run on this sheet, which writes their results.');
      out.items[headKey(earlier.id)] = bounded(headKey(earlier.id), earlier);
    }
  }
  out.items[INDEX] = JSON.stringify([{ id: runId, sheet }, ...index.filter((e) => e.id !== runId)].slice(0, INDEX_RUNS));
  if (taken)
    out.note = `${taken} row${taken === 1 ? ' was' : 's were'} already sent by an earlier run that did not finish (the sidebar was closed): their results are collected now, without paying again.`;
  return out;
}
