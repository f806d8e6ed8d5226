/**
 * Where a watched policy stands after a check, and what changed against the check before: the six
 * reasons of shared/watches.ts, each reported once, on the run that first sees it. A policy's first
 * check is its baseline and reports nothing.
 */
import type { TErrorBody } from '../../../shared/errors.js';
import type { TFlag, TVerificationResult } from '../../../shared/verification.js';
import type { TWatchChangeReason } from '../../../shared/watches.js';

/** A policy as one check saw it (stored per policy as JSON, and in each change as before and after). */
export interface ItemState {
  status: TVerificationResult['status'] | 'error';
  /** The registry's end date, else the one given with the policy; null when neither is known. */
  end_date: string | null;
  flags: TFlag[];
  checked_at: string;
  /** For the sheet's status cells. */
  confidence_score: number | null;
  /** The insurer the check found, with what the register-driven re-checks need (probe.ts). */
  insurer: { name: string; reference: string } | null;
  /** The error code when the policy was refused. */
  error: string | null;
}

export function stateOf(
  outcome: { result: TVerificationResult } | { error: TErrorBody },
  givenEndDate: string | null,
  checkedAt: string,
): ItemState {
  if ('error' in outcome)
    return {
      status: 'error',
      end_date: givenEndDate,
      flags: [],
      checked_at: checkedAt,
      confidence_score: null,
      insurer: null,
      error: outcome.error.error,
    };
  const r = outcome.result;
  return {
    status: r.status,
    end_date: r.coverage?.end_date ?? givenEndDate,
    flags: [...r.flags],
    checked_at: checkedAt,
    confidence_score: r.confidence_score,
    insurer: r.insurer ? { name: r.insurer.name, reference: r.insurer.reference } : null,
    error: null,
  };
}

const DAY_MS = 86_400_000;
const day = (iso: string) => iso.slice(0, 10);
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The cover had ended on the day of the check (the registry's flag, or the end date before that day). */
export function expiredAt(s: ItemState): boolean {
  return s.flags.includes('expired') || (s.end_date !== null && s.end_date < day(s.checked_at));
}

/** The cover ends within `windowDays` of the day of the check, and had not ended. */
export function inWindowAt(s: ItemState, windowDays: number): boolean {
  if (s.end_date === null || expiredAt(s)) return false;
  return s.end_date <= addDays(day(s.checked_at), windowDays);
}

export interface Change {
  reasons: TWatchChangeReason[];
  why: string;
}

const newly = (flag: TFlag, before: ItemState, after: ItemState) => after.flags.includes(flag) && !before.flags.includes(flag);

/** What changed from `before` to `after`; null when nothing did, or when there is no `before` (the baseline). */
export function compareStates(before: ItemState | null, after: ItemState, windowDays: number): Change | null {
  if (!before) return null;
  const reasons: TWatchChangeReason[] = [];
  const why: string[] = [];
  if (before.status !== after.status) {
    reasons.push('status_changed');
    why.push(`status ${before.status} -> ${after.status}`);
  }
  if (expiredAt(after) && !expiredAt(before)) {
    reasons.push('newly_expired');
    why.push(after.end_date ? `cover ended ${after.end_date}` : 'the registry shows the cover lapsed');
  }
  if (inWindowAt(after, windowDays) && !inWindowAt(before, windowDays) && !expiredAt(before)) {
    reasons.push('entering_expiry_window');
    why.push(`cover ends ${after.end_date}, within ${windowDays} days`);
  }
  if (newly('cancelled', before, after)) {
    reasons.push('cancelled');
    why.push('the registry shows the policy cancelled');
  }
  if (newly('insurer_not_authorised', before, after)) {
    reasons.push('insurer_not_authorised');
    why.push(`the insurer${after.insurer ? ` ${after.insurer.name}` : ''} is no longer authorised`);
  }
  if (newly('sanctioned', before, after)) {
    reasons.push('insurer_sanctioned');
    why.push(`the insurer${after.insurer ? ` ${after.insurer.name}` : ''} is on a sanctions list`);
  }
  return reasons.length ? { reasons, why: why.join('; ') } : null;
}
