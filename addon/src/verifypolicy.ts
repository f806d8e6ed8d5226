/** =VERIFYPOLICY: single cells or whole ranges, batched, cached, with readable cell errors. */
import { parsePolicyInput, type TPolicy } from '../../shared/policy.js';
import { chunk, collect, firstPollDelayMs, submitChunks } from './batches.js';
import { getPending, getResults, inputHash, putPending, putResults, toCached, type CachedResult } from './cache.js';
import { api, ConnectorError } from './connector.js';
import { grantConn } from './settings.js';

type Cell = string | number | boolean | Date | null | undefined;
type Arg = Cell | Cell[][];
type Out = string | number;

/** Custom functions stop after 30 s; leave room for writing the cache and returning. */
export const CUSTOM_FUNCTION_BUDGET_MS = 25_000;

const cellText = (v: Cell): string => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim());

function column(arg: Arg): Cell[] | null {
  if (!Array.isArray(arg)) return null;
  return arg.map((row) => (Array.isArray(row) ? row[0] : (row as Cell)));
}

function render(r: CachedResult, full: boolean): Out[] {
  return full ? [r.s, r.c, r.i, r.f.join(', ')] : [r.s];
}

function errRow(text: string, full: boolean): Out[] {
  const msg = `Error: ${text}`;
  return full ? [msg, '', '', ''] : [msg];
}

/** Row-level outcome before rendering: a result, an error text, or blank. */
type RowOutcome = { kind: 'blank' } | { kind: 'error'; text: string } | { kind: 'policy'; policy: TPolicy; hash: string };

/**
 * The whole computation, callable with an explicit clock (the bench and tests use it through the
 * exported entry point, which uses the real one).
 */
export function verifyPolicyImpl(args: Arg[], now: () => number = Date.now): Out | Out[][] {
  const start = now();
  const deadline = start + CUSTOM_FUNCTION_BUDGET_MS;
  const [pn, country, type, provider, output] = args;
  const outArg = cellText(Array.isArray(output) ? output[0]?.[0] : output).toLowerCase() || 'status';
  if (outArg !== 'status' && outArg !== 'full') throw new Error(`output must be "status" or "full", not "${outArg}".`);
  const full = outArg === 'full';
  const cols = [pn, country, type, provider].map((a) => column(a as Arg));
  const rangeMode = cols.some((c) => c !== null);
  const n = rangeMode ? Math.max(...cols.map((c) => (c ? c.length : 0))) : 1;
  const at = (i: number, k: number): string => {
    const c = cols[k];
    return cellText(c ? c[i] : (([pn, country, type, provider][k] as Cell) ?? ''));
  };

  const conn = grantConn();
  const rows: RowOutcome[] = [];
  for (let i = 0; i < n; i++) {
    const raw = { policy_number: at(i, 0), country: at(i, 1), insurance_type: at(i, 2), provider: at(i, 3) };
    if (rangeMode && !raw.policy_number && !raw.country && !raw.insurance_type) {
      rows.push({ kind: 'blank' });
      continue;
    }
    const parsed = parsePolicyInput(raw);
    if (!parsed.ok) rows.push({ kind: 'error', text: parsed.problem.detail });
    else rows.push({ kind: 'policy', policy: parsed.policy, hash: inputHash(conn.url, parsed.policy) });
  }

  const byHash = new Map<string, TPolicy>();
  for (const r of rows) if (r.kind === 'policy') byHash.set(r.hash, r.policy);
  const results = getResults([...byHash.keys()]);
  const errors = new Map<string, string>();
  const misses = [...byHash.keys()].filter((h) => !results.has(h));

  if (misses.length === 1 && getPending(misses).size === 0) {
    // One policy to fetch: the sync route is one call where a batch is two.
    const h = misses[0]!;
    try {
      const r = toCached(api.verifyOne(conn, byHash.get(h)!, { deadline }));
      results.set(h, r);
      putResults(new Map([[h, r]]));
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      // In a range, a refused input is that row's error; anything else concerns the whole formula.
      if (!rangeMode || !(e instanceof ConnectorError && e.kind === 'bad_request')) throw new Error(msg);
      errors.set(h, msg);
    }
  } else if (misses.length > 0) {
    fetchMisses(misses, byHash, results, errors, deadline, conn);
  }

  const outRows: Out[][] = rows.map((r) => {
    if (r.kind === 'blank') return full ? ['', '', '', ''] : [''];
    if (r.kind === 'error') return errRow(r.text, full);
    const res = results.get(r.hash);
    if (res) return render(res, full);
    return errRow(errors.get(r.hash) ?? 'Still verifying: recalculate in a minute (already submitted, no second charge).', full);
  });
  if (!rangeMode) {
    const only = rows[0]!;
    if (only.kind === 'error') throw new Error(only.text);
    if (only.kind === 'policy' && !results.has(only.hash)) throw new Error(errors.get(only.hash) ?? 'Still verifying: recalculate in a minute.');
    return full ? outRows : outRows[0]![0]!;
  }
  return outRows;
}

function fetchMisses(
  misses: string[],
  byHash: Map<string, TPolicy>,
  results: Map<string, CachedResult>,
  errors: Map<string, string>,
  deadline: number,
  conn: ReturnType<typeof grantConn>,
): void {
  const pending = getPending(misses);
  const fresh = misses.filter((h) => !pending.has(h));
  const chunks = chunk(fresh);
  const submitted = submitChunks(conn, chunks.map((c) => c.map((h) => byHash.get(h)!)), { deadline });
  const failures = submitted.filter((s) => !s.ok).map((s) => (s as { error: ConnectorError }).error);
  // Nothing went through and the reason concerns the whole call: show it as the formula's error.
  if (failures.length === submitted.length && failures.length > 0 && pending.size === 0) throw new Error(failures[0]!.message);
  const newPending = new Map<string, { batchId: string; index: number }>();
  submitted.forEach((s, ci) => {
    chunks[ci]!.forEach((h, idx) => {
      if (s.ok) newPending.set(h, { batchId: s.batchId, index: idx });
      else errors.set(h, s.error.message);
    });
  });
  putPending(newPending);
  const all = new Map([...pending, ...newPending]);
  const ids = [...new Set([...all.values()].map((p) => p.batchId))];
  const done = collect(conn, ids, firstPollDelayMs(newPending.size), deadline, { deadline });
  const fetched = new Map<string, CachedResult>();
  for (const [h, p] of all) {
    const b = done.get(p.batchId);
    const item = b?.results.find((r) => r.index === p.index);
    if (!item) continue;
    if (item.result) fetched.set(h, toCached(item.result));
    else if (item.error) errors.set(h, item.error.message);
  }
  for (const [h, r] of fetched) results.set(h, r);
  putResults(fetched);
}

/**
 * Entry point behind the top-level VERIFYPOLICY stub (the JSDoc Sheets shows lives on the stub,
 * see scripts/build-addon.mjs).
 */
export function VERIFYPOLICY(policy_number: Arg, country: Arg, insurance_type: Arg, provider?: Arg, output?: Arg): Out | Out[][] {
  return verifyPolicyImpl([policy_number, country, insurance_type, provider, output]);
}
