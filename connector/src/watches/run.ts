/**
 * One run of a leased watch: opened (every policy on the cadence, the marked ones after an import) or
 * carried on where a dead process left it, then worked through in chunks. Each chunk reserves its credits
 * (live keys: 1 per policy, as a batch does), re-verifies its policies through the engine, and commits
 * their states, settlement and changes in one transaction; the run closes once every policy is in, with
 * its deliveries enqueued in the closing transaction. So a kill -9 loses at most the chunk in hand, which
 * the next holder checks again on the credits already reserved, and no change is committed or sent twice.
 *
 * A balance that cannot cover the next chunk stops the run there (stop_reason), never overdrawn; what it
 * found so far is reported. Pausing stops it the same way after the chunk in hand.
 */
import crypto from 'node:crypto';
import type { TErrorBody } from '../../../shared/errors.js';
import type { TPolicy } from '../../../shared/policy.js';
import type { TVerificationResult } from '../../../shared/verification.js';
import { isCharged } from '../credits/charge.js';
import { billingPeriod } from '../credits/period.js';
import { recordVerification } from '../history/record.js';
import { verifyOne } from '../jobs/verify-one.js';
import type { Logger } from '../logger.js';
import type { ApiKeyRecord, Store, WatchItemOutcome, WatchItemRecord, WatchRecord, WatchRunRecord } from '../store/types.js';
import type { EngineDeps } from '../verify/engine.js';
import { viewFor, type ReferenceData } from '../verify/reference-data.js';
import { nextRunAfter } from './cadence.js';
import { compareStates, stateOf, type ItemState } from './compare.js';
import { runDeliveries } from './deliveries.js';
import { probeOf } from './probe.js';

export interface RunDeps {
  store: Pick<Store, 'watches' | 'keys' | 'history' | 'insurers'>;
  /** The engine, but for its reference data: each chunk takes it as of the chunk's start from `reference`. */
  engine: Omit<EngineDeps, 'reference'>;
  reference: { fresh(): Promise<ReferenceData> };
  logger: Logger;
  now: () => Date;
  /** Policies committed per transaction. */
  chunkSize: number;
  /** Verifications of a chunk in flight at once. */
  concurrency: number;
  /** True once the connector is stopping: the run hands the watch back between chunks. */
  stopping: () => boolean;
  /** Wakes the webhook outbox, the write-back processor and the mail sender once a run's deliveries are written. */
  onDelivery?: () => void;
}

type WatchedPolicy = TPolicy & { end_date?: string };

/** What checking one policy gave: a result or the engine's refusal; `skipped` keeps its last state (the check could not be made). */
type Checked = { result: TVerificationResult; cost: number } | { error: TErrorBody } | { skipped: true };

const isActive = (key: ApiKeyRecord | null): key is ApiKeyRecord => key !== null && key.status === 'active';

/** Runs `fn` over `items`, `concurrency` at a time, keeping their order in the answer. */
async function mapLimited<T, R>(items: T[], concurrency: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return out;
}

export async function runWatch(watch: WatchRecord, owner: string, deps: RunDeps): Promise<void> {
  const { store } = deps;
  let run: WatchRunRecord | null = watch.run_id ? await store.watches.run(watch.run_id) : null;
  if (!run) {
    const now = deps.now().toISOString();
    const trigger = watch.next_run_at <= now ? 'schedule' : 'register_change';
    run = await store.watches.openRun(watch.id, owner, {
      id: `wrn_${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`,
      trigger,
      at: now,
    });
    if (!run) return;
  }
  const opened = run;
  const ref = `watch:${run.id}`;
  const key = await store.keys.get(watch.key_id);

  const close = async (status: 'complete' | 'stopped', reason: string | null): Promise<void> => {
    const at = deps.now().toISOString();
    const counted = (await store.watches.run(opened.id)) ?? opened;
    const closed: WatchRunRecord = { ...counted, status, stop_reason: reason, finished_at: at };
    const changes = await store.watches.changes(opened.id);
    const closedOnce = await store.watches.closeRun({
      watch_id: watch.id,
      run_id: opened.id,
      owner,
      key_id: watch.key_id,
      status,
      stop_reason: reason,
      next_run_at: opened.trigger === 'schedule' ? nextRunAfter(watch.cadence, new Date(opened.started_at)) : null,
      ...runDeliveries(watch, closed, changes, at),
      ref,
      at,
    });
    if (closedOnce) {
      deps.logger.info(
        { watch_id: watch.id, run_id: opened.id, status, reason, checked: counted.checked, changed: changes.length },
        'watch run closed',
      );
      deps.onDelivery?.();
    }
  };

  if (!isActive(key)) return close('stopped', 'the API key is no longer active');
  const charged = isCharged(key);

  for (;;) {
    if (deps.stopping()) {
      // The next holder (this instance restarted, or another) carries the run on at once.
      await store.watches.release(watch.id, owner);
      return;
    }
    const current = await store.watches.get(watch.id);
    if (!current || current.lease_owner !== owner || current.run_id !== opened.id) return;
    if (current.paused_at) return close('stopped', 'the watch was paused');
    let items = await store.watches.pendingItems(watch.id, opened.id, deps.chunkSize);
    if (items.length === 0) return close('complete', null);
    let exhausted = false;
    if (charged) {
      const reserved = await reserveFor(watch, opened.id, owner, items, ref, deps);
      if (reserved === null) return;
      exhausted = reserved.length < items.length;
      items = reserved;
      if (items.length === 0) return close('stopped', 'credits exhausted for this billing period');
    }
    if (!(await checkChunk(watch, opened.id, owner, key, items, ref, deps))) return;
    if (exhausted) return close('stopped', 'credits exhausted for this billing period');
  }
}

/**
 * Reserves 1 credit for each policy of the chunk that holds none yet (a dead holder's reservations are
 * kept). When the balance can't cover them all, as many as it covers; returns the policies that hold a
 * credit, in order, or null once the watch is lost.
 */
async function reserveFor(
  watch: WatchRecord,
  runId: string,
  owner: string,
  items: WatchItemRecord[],
  ref: string,
  deps: RunDeps,
): Promise<WatchItemRecord[] | null> {
  const held = items.filter((i) => i.reserved > 0);
  let need = items.filter((i) => i.reserved === 0);
  // Twice at most: a spender elsewhere may take some of the balance between the refusal and the second try.
  for (let attempt = 0; need.length > 0 && attempt < 2; attempt++) {
    const now = deps.now();
    const r = { amount: need.length, period: billingPeriod(now), ref };
    const out = await deps.store.watches.reserve(
      watch.id,
      runId,
      owner,
      need.map((i) => i.idx),
      r,
      now.toISOString(),
    );
    if (out === null) return null;
    if (out.ok) return items.filter((i) => i.reserved > 0 || need.includes(i));
    need = need.slice(0, Math.max(0, out.balance));
  }
  return held;
}

/** Marks for a re-check the chunk's policies whose probe the reference data, changed since the chunk began, no longer gives. */
async function markStale(
  watch: WatchRecord,
  key: ApiKeyRecord,
  items: WatchItemRecord[],
  outcomes: WatchItemOutcome[],
  deps: RunDeps,
): Promise<void> {
  const view = viewFor(await deps.reference.fresh(), key.mode);
  const stale = outcomes.filter((o, i) => {
    if (o.state === null) return false;
    const { end_date: _end, ...policy } = JSON.parse(items[i]!.input) as WatchedPolicy;
    return probeOf(view, policy, JSON.parse(o.state) as ItemState) !== o.probe;
  });
  await deps.store.watches.markRecheck(
    stale.map((o) => ({ watch_id: watch.id, idx: o.idx })),
    deps.now().toISOString(),
  );
}

/** Checks the chunk's policies and commits them in one transaction; false once the watch is lost. */
async function checkChunk(
  watch: WatchRecord,
  runId: string,
  owner: string,
  key: ApiKeyRecord,
  items: WatchItemRecord[],
  ref: string,
  deps: RunDeps,
): Promise<boolean> {
  // As of now, not as of the engine's last look: a re-check an import triggered must see that import.
  const version = await deps.store.insurers.version();
  const reference = await deps.reference.fresh();
  const engine: EngineDeps = { ...deps.engine, reference: { get: async () => reference } };
  const checked = await mapLimited(items, deps.concurrency, async (item): Promise<Checked> => {
    const { end_date: _end, ...policy } = JSON.parse(item.input) as WatchedPolicy;
    try {
      const out = await verifyOne(policy, key, engine);
      return out.ok ? { result: out.result, cost: out.cost } : { error: out.error };
    } catch (err) {
      deps.logger.warn({ err, watch_id: watch.id, index: item.idx }, 'watch policy not checked; it keeps its last state');
      return { skipped: true };
    }
  });
  const at = deps.now().toISOString();
  const view = viewFor(reference, key.mode);
  const outcomes: WatchItemOutcome[] = items.map((item, i) => {
    const c = checked[i]!;
    const input = JSON.parse(item.input) as WatchedPolicy;
    const before = item.last_state ? (JSON.parse(item.last_state) as ItemState) : null;
    // A registry that could not be reached says nothing about the policy: it keeps its last state (and costs nothing).
    const unreachable = 'result' in c && before !== null && c.result.flags.includes('registry_unavailable');
    if ('skipped' in c || unreachable) return { idx: item.idx, state: null, probe: null, charge: 0, change: null };
    const after = stateOf(c, input.end_date ?? null, at);
    const change = compareStates(before, after, watch.expiry_window_days);
    return {
      idx: item.idx,
      state: JSON.stringify(after),
      probe: probeOf(view, input, after),
      charge: 'result' in c ? c.cost : 0,
      change: change
        ? { before: JSON.stringify(before), after: JSON.stringify(after), reasons: JSON.stringify(change.reasons), why: change.why }
        : null,
    };
  });
  const committed = await deps.store.watches.commitChunk({
    watch_id: watch.id,
    run_id: runId,
    owner,
    key_id: key.id,
    items: outcomes,
    ref,
    at,
  });
  if (!committed) return false;
  // An import while the chunk ran is not seen by the scan (register-rechecks.ts passes over pending policies): marked here.
  if ((await deps.store.insurers.version()) !== version) await markStale(watch, key, items, outcomes, deps);
  // The history (docs/history.md) is written after the commit: a crash in between can lose these entries, never duplicate them.
  for (const [i, c] of checked.entries()) {
    if (!('result' in c) || outcomes[i]!.state === null) continue;
    const { end_date: _end, ...input } = JSON.parse(items[i]!.input) as WatchedPolicy;
    await recordVerification(deps.store, { key_id: key.id, source: 'watch', source_id: watch.id, input, result: c.result, at }).catch(
      (err: unknown) => deps.logger.warn({ err, watch_id: watch.id }, 'watch result not recorded in the history'),
    );
  }
  return true;
}
