/**
 * =VERIFYPOLICY: whole ranges (batched) or single cells (one call each, within a per-minute
 * budget), cached, with readable cell errors. Per execution it reads the document properties once;
 * a cell's first run makes one UrlFetch call, a recalculation none.
 */
import { parsePolicyInput, type TPolicy } from '../../shared/policy.js';
import type { TVerificationResult } from '../../shared/verification.js';
import { chunk, collect, firstPollDelayMs, submitChunks } from './batches.js';
import {
  dropPending,
  getPending,
  getResults,
  inputHash,
  putPending,
  putResults,
  readDocProperties,
  resultScope,
  SINGLE_CELL_CALLS_PER_MINUTE,
  takeSingleCellCall,
  toCached,
  type CachedResult,
  type PendingItem,
} from './cache.js';
import { api, callMany, type Conn, type ConnectorError } from './connector.js';
import { identifierText } from './identifiers.js';
import { LOCK_WAIT_MS, withDocumentLock } from './locks.js';
import { grantConn } from './settings.js';

type Cell = string | number | boolean | Date | null | undefined;
type Arg = Cell | Cell[][];
type Out = string | number;

/**
 * A custom function has 30 s ("Quotas for Google Services"); stop waiting at 25 s so the cache and
 * the pending records are written and the cells answered before Sheets ends the execution.
 */
export const CUSTOM_FUNCTION_BUDGET_MS = 25_000;
/**
 * What a pending cell tells the user to do. Sheets recalculates a custom function only when its
 * formula or a cell it references is edited (custom functions guide), never by itself, so the
 * cell names the one action that does it (pending-cells.ts).
 */
export const UPDATE_PENDING_ACTION = 'Extensions > Covercheck > Update pending results';
/** The cell of a policy submitted but not finished in time: its batch is recorded, so the next run collects it without paying again. */
export const STILL_RUNNING = `Still verifying (already submitted, no second charge): in a minute, choose ${UPDATE_PENDING_ACTION}.`;
/** The cell of a policy not submitted because the pending records are at their budget. */
export const QUEUED = `Queued: too many policies in flight (nothing charged for this one yet): in a minute, choose ${UPDATE_PENDING_ACTION}.`;
/**
 * The cell of a policy not submitted because another execution held the spreadsheet's lock past
 * this one's short wait (locks.ts): it may be submitting the same policies, so this one does not.
 */
export const BUSY = `Waiting: another Covercheck run in this spreadsheet is submitting or saving (nothing charged for this one yet): in a minute, choose ${UPDATE_PENDING_ACTION}.`;
/** The cell of a policy whose recorded batch the connector no longer has: the next run submits it again. */
export const GONE = `The connector no longer has this batch: choose ${UPDATE_PENDING_ACTION} to verify again.`;
/**
 * The cell of a fresh single-cell call past this minute's budget (cache.ts): a formula per row
 * spends one UrlFetch call per row of the user's daily quota, one formula over a range one per 100 rows.
 */
export const USE_A_RANGE = `Not verified: more than ${SINGLE_CELL_CALLS_PER_MINUTE} single-cell =VERIFYPOLICY formulas this minute, each spending one of your 20,000 daily Google calls; use one formula over a range instead, e.g. =VERIFYPOLICY(A2:A500, B2:B500, C2:C500), which verifies 100 rows per call. Nothing was charged.`;

const cellText = (v: Cell): string =>
  v === null || v === undefined ? '' : v instanceof Date ? v.toISOString().slice(0, 10) : String(v).trim();

function column(arg: Arg): Cell[] | null {
  if (!Array.isArray(arg)) return null;
  return arg.map((row) => (Array.isArray(row) ? row[0] : (row as Cell)));
}

function render(r: CachedResult, full: boolean): Out[] {
  return full ? [r.s, r.c, r.i, r.f.join(', ')] : [r.s];
}

function textRow(text: string, full: boolean): Out[] {
  return full ? [text, '', '', ''] : [text];
}

/** Row-level outcome before rendering: a result, an error text, or blank. */
type RowOutcome = { kind: 'blank' } | { kind: 'error'; text: string } | { kind: 'policy'; policy: TPolicy; hash: string };

/** The whole computation: parse, answer from the cache, fetch the rest within the budget, render. */
function verifyPolicyImpl(args: Arg[]): Out | Out[][] {
  const deadline = Date.now() + CUSTOM_FUNCTION_BUDGET_MS;
  const [pn, country, type, provider, output] = args;
  const outArg = cellText(Array.isArray(output) ? output[0]?.[0] : output).toLowerCase() || 'status';
  if (outArg !== 'status' && outArg !== 'full') throw new Error(`output must be "status" or "full", not "${outArg}".`);
  const full = outArg === 'full';
  const cols = [pn, country, type, provider].map((a) => column(a as Arg));
  const rangeMode = cols.some((c) => c !== null);
  const n = rangeMode ? Math.max(...cols.map((c) => (c ? c.length : 0))) : 1;
  const cell = (i: number, k: number): Cell => {
    const c = cols[k];
    return c ? c[i] : (([pn, country, type, provider][k] as Cell) ?? '');
  };
  const at = (i: number, k: number): string => cellText(cell(i, k));

  const docProps = readDocProperties();
  const conn = grantConn(docProps);
  const scope = resultScope(conn);
  const rows: RowOutcome[] = [];
  for (let i = 0; i < n; i++) {
    // The argument is the cell's value, not its text: a number or Date Sheets made of the policy number is refused, never sent.
    const id = identifierText(cell(i, 0));
    const raw = { policy_number: id.ok ? id.text : '', country: at(i, 1), insurance_type: at(i, 2), provider: at(i, 3) };
    if (!id.ok) {
      rows.push({ kind: 'error', text: id.error });
      continue;
    }
    if (rangeMode && !raw.policy_number && !raw.country && !raw.insurance_type) {
      rows.push({ kind: 'blank' });
      continue;
    }
    const parsed = parsePolicyInput(raw);
    if (!parsed.ok) rows.push({ kind: 'error', text: parsed.problem.detail });
    else rows.push({ kind: 'policy', policy: parsed.policy, hash: inputHash(scope, parsed.policy) });
  }

  const byHash = new Map<string, TPolicy>();
  for (const r of rows) if (r.kind === 'policy') byHash.set(r.hash, r.policy);
  const results = getResults([...byHash.keys()]);
  const errors = new Map<string, string>();
  const misses = [...byHash.keys()].filter((h) => !results.has(h));

  if (misses.length > 0) {
    const { pending } = getPending(misses, docProps);
    const fresh = misses.filter((h) => !pending.has(h));
    if (!rangeMode && fresh.length === 1) {
      const taken = withDocumentLock(
        LOCK_WAIT_MS.customFunction,
        () => (takeSingleCellCall() ? 'yes' : 'no'),
        () => 'busy',
      );
      if (taken !== 'yes') {
        const text = taken === 'no' ? USE_A_RANGE : BUSY;
        return full ? [textRow(text, true)] : text;
      }
    }
    // One fresh policy is answered in the same call (POST /verify): one UrlFetch call and no pending record.
    if (fresh.length === 1) verifyOne(fresh[0]!, byHash.get(fresh[0]!)!, scope, results, errors, pending.size, deadline, conn);
    fetchMisses(misses, fresh.length === 1 ? [] : fresh, pending, byHash, results, errors, deadline, conn);
  }

  const outRows: Out[][] = rows.map((r) => {
    if (r.kind === 'blank') return full ? ['', '', '', ''] : [''];
    if (r.kind === 'error') return textRow(`Error: ${r.text}`, full);
    const res = results.get(r.hash);
    if (res) return render(res, full);
    const e = errors.get(r.hash);
    return e === undefined || e === QUEUED || e === BUSY ? textRow(e ?? STILL_RUNNING, full) : textRow(`Error: ${e}`, full);
  });
  if (!rangeMode) {
    const only = rows[0]!;
    // A single cell's error shows as #ERROR! with the message on hover; a pending one (or a vanished batch) is plain text naming the action that updates it.
    if (only.kind === 'error') throw new Error(only.text);
    const e = only.kind === 'policy' && !results.has(only.hash) ? errors.get(only.hash) : undefined;
    if (e !== undefined && e !== QUEUED && e !== GONE && e !== BUSY) throw new Error(e);
    return full ? outRows : outRows[0]![0]!;
  }
  return outRows;
}

/**
 * One policy by POST /verify, under an Idempotency-Key made of whose call it is and of the exact
 * request: if the run ends before the answer is cached (Sheets stops a custom function at 30 s),
 * the next run's identical call is answered from the connector's record, not charged again; while
 * the first still runs the connector answers 409, and the cell says it is still verifying.
 */
function verifyOne(
  hash: string,
  policy: TPolicy,
  scope: string,
  results: Map<string, CachedResult>,
  errors: Map<string, string>,
  pendingCount: number,
  deadline: number,
  conn: Conn,
): void {
  const body = JSON.stringify(policy);
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, `${scope}\u0000${body}`, Utilities.Charset.UTF_8);
  const [out] = callMany<TVerificationResult>(
    conn,
    [api.verifyReq(policy, `cc-v1-${Utilities.base64EncodeWebSafe(digest).replace(/=+$/, '')}`)],
    { deadline },
  );
  if (out!.ok) {
    const r = toCached(out!.body);
    results.set(hash, r);
    // Not cached when the lock isn't had: the next run's identical call is answered from the connector's idempotency record.
    withDocumentLock(
      LOCK_WAIT_MS.customFunction,
      () => putResults(new Map([[hash, r]])),
      () => undefined,
    );
    return;
  }
  const e = out!.error;
  if (e.status === 409) errors.delete(hash);
  // A reason that concerns every call (the key, credits, a rate limit, the connector) is the formula's error, unless other rows are waiting on batches.
  else if (e.kind !== 'bad_request' && pendingCount === 0) throw new Error(e.message);
  else errors.set(hash, e.message);
}

/**
 * Submits `toSubmit` in batches and collects them with the pending ones, within the deadline.
 * Submitting is one locked section: the pending records are read again under the lock (another
 * execution may have submitted some of these policies since this one read them), the rest sent,
 * and their batches recorded before the lock is released, so two executions never pay for one
 * policy. Caching the results and forgetting the collected batches is another: without the lock
 * neither happens, and the batches stay recorded for the next run to collect without paying.
 */
function fetchMisses(
  misses: string[],
  toSubmit: string[],
  pendingAtStart: Map<string, PendingItem>,
  byHash: Map<string, TPolicy>,
  results: Map<string, CachedResult>,
  errors: Map<string, string>,
  deadline: number,
  conn: Conn,
): void {
  if (toSubmit.length === 0 && pendingAtStart.size === 0) return;
  let pending = pendingAtStart;
  let fresh: { batchId: string; hashes: string[] }[] = [];
  if (toSubmit.length > 0) {
    withDocumentLock(
      LOCK_WAIT_MS.customFunction,
      () => {
        // What other executions finished meanwhile is cached, what they submitted is recorded: neither is sent again.
        for (const [h, r] of getResults(toSubmit)) results.set(h, r);
        const now = getPending(misses, readDocProperties());
        pending = now.pending;
        fresh = submitRecorded(
          toSubmit.filter((h) => !pending.has(h) && !results.has(h)),
          now.roomBatches,
          byHash,
          errors,
          pending.size,
          deadline,
          conn,
        );
      },
      () => {
        for (const h of toSubmit) errors.set(h, BUSY);
      },
    );
  }
  const all = new Map<string, PendingItem>(pending);
  for (const b of fresh) b.hashes.forEach((h, index) => all.set(h, { batchId: b.batchId, index }));
  if (all.size === 0) return;
  const freshCount = fresh.reduce((n, b) => n + b.hashes.length, 0);
  const { done, gone } = collect(conn, [...new Set([...all.values()].map((p) => p.batchId))], firstPollDelayMs(freshCount), deadline, {
    deadline,
  });
  const fetched = new Map<string, CachedResult>();
  for (const [h, p] of all) {
    if (gone.includes(p.batchId)) errors.set(h, GONE);
    const item = done.get(p.batchId)?.results.find((r) => r.index === p.index);
    if (!item) continue;
    if (item.result) fetched.set(h, toCached(item.result));
    else if (item.error) errors.set(h, item.error.message);
  }
  for (const [h, r] of fetched) results.set(h, r);
  withDocumentLock(
    LOCK_WAIT_MS.customFunction,
    () => {
      putResults(fetched);
      dropPending([...done.keys(), ...gone]);
    },
    () => undefined,
  );
}

/** Inside the lock: sends `toSubmit` in batches (as many as the pending budget has room for) and records them; the batches made. */
function submitRecorded(
  toSubmit: string[],
  roomBatches: number,
  byHash: Map<string, TPolicy>,
  errors: Map<string, string>,
  pendingCount: number,
  deadline: number,
  conn: Conn,
): { batchId: string; hashes: string[] }[] {
  if (toSubmit.length === 0) return [];
  const chunks = chunk(toSubmit);
  const sendable = chunks.slice(0, roomBatches);
  for (const c of chunks.slice(roomBatches)) for (const h of c) errors.set(h, QUEUED);
  const submitted = sendable.length
    ? submitChunks(
        conn,
        sendable.map((c) => c.map((h) => byHash.get(h)!)),
        { deadline },
      )
    : [];
  const failures = submitted.filter((s) => !s.ok).map((s) => (s as { error: ConnectorError }).error);
  // Nothing went through and the reason concerns the whole call: show it as the formula's error.
  if (failures.length === submitted.length && failures.length > 0 && pendingCount === 0) throw new Error(failures[0]!.message);
  const fresh: { batchId: string; hashes: string[] }[] = [];
  submitted.forEach((s, ci) => {
    if (s.ok) fresh.push({ batchId: s.batchId, hashes: sendable[ci]! });
    else for (const h of sendable[ci]!) errors.set(h, s.error.message);
  });
  // Recorded before the lock is released and before any wait: the next run, or another execution, finds these batches.
  putPending(fresh);
  return fresh;
}

/**
 * Entry point behind the top-level VERIFYPOLICY stub (the JSDoc Sheets shows lives on the stub,
 * see scripts/build-addon.mjs).
 */
export function VERIFYPOLICY(policy_number: Arg, country: Arg, insurance_type: Arg, provider?: Arg, output?: Arg): Out | Out[][] {
  return verifyPolicyImpl([policy_number, country, insurance_type, provider, output]);
}
