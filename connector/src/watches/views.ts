/** A watch, its runs and its changes as the contract shows them (shared/watches.ts). */
import type { TSheetTarget } from '../../../shared/sheets.js';
import type { TWatch, TWatchChange, TWatchRun } from '../../../shared/watches.js';
import type { ApiKeyRecord, NewWatch, Store, WatchChangeRecord, WatchRecord, WatchRunRecord, WatchSnapshot } from '../store/types.js';
import { projectedMonthlyCredits } from './cadence.js';
import type { ItemState } from './compare.js';

const publicState = (s: ItemState) => ({ status: s.status, end_date: s.end_date, flags: s.flags, checked_at: s.checked_at });

export function changeView(c: WatchChangeRecord): TWatchChange {
  return {
    index: c.idx,
    policy_number: c.policy_number,
    before: publicState(JSON.parse(c.before) as ItemState),
    after: publicState(JSON.parse(c.after) as ItemState),
    reasons: JSON.parse(c.reasons) as TWatchChange['reasons'],
    why: c.why,
  };
}

export function runView(r: WatchRunRecord): TWatchRun {
  return {
    run_id: r.id,
    trigger: r.trigger,
    status: r.status,
    stop_reason: r.stop_reason,
    started_at: r.started_at,
    finished_at: r.finished_at,
    policies: r.total,
    checked: r.checked,
    changed: r.changed,
    credits_charged: r.credits,
  };
}

interface ViewParts {
  key: Pick<ApiKeyRecord, 'mode'> | null;
  lastRun: WatchRunRecord | null;
  changes: WatchChangeRecord[];
  rechecks: number;
}

function view(w: Omit<WatchRecord, 'recheck_at' | 'run_id' | 'lease_owner' | 'lease_until'>, p: ViewParts): TWatch {
  return {
    watch_id: w.id,
    status: w.paused_at ? 'paused' : 'active',
    cadence: w.cadence,
    expiry_window_days: w.expiry_window_days,
    policy_count: w.policy_count,
    report: {
      webhook_url: w.webhook_url,
      email: w.email_to !== null,
      sheet_target: w.sheet_target ? (JSON.parse(w.sheet_target) as TSheetTarget) : null,
    },
    notify_unchanged: w.notify_unchanged,
    created_at: w.created_at,
    paused_at: w.paused_at,
    next_run_at: w.paused_at ? null : w.next_run_at,
    rechecks_pending: p.rechecks,
    projected_monthly_credits: projectedMonthlyCredits(p.key, w.policy_count, w.cadence),
    last_run: p.lastRun ? { ...runView(p.lastRun), changes: p.changes.map(changeView) } : null,
  };
}

/** A watch just made: no run yet. */
export function newWatchView(w: NewWatch, key: Pick<ApiKeyRecord, 'mode'>): TWatch {
  const { items, ...rest } = w;
  return view({ ...rest, policy_count: items.length, paused_at: null }, { key, lastRun: null, changes: [], rechecks: 0 });
}

/** The watch as GET shows it: its settings, next run, last run with its first changes, and what a month may cost. */
export async function watchView(snap: WatchSnapshot, store: Pick<Store, 'keys'>): Promise<TWatch> {
  return view(snap.watch, {
    key: await store.keys.get(snap.watch.key_id),
    lastRun: snap.lastRun,
    changes: snap.changes,
    rechecks: snap.rechecks,
  });
}
