/**
 * Delta re-checks: which rows a re-run of "Verify selected rows" sends again.
 * Each row's inputs are hashed into the hidden result column "Covercheck input hash" when its
 * result is written; a re-run verifies a row only when that hash differs (new or edited inputs,
 * or another kind of key), its last result failed, or it is older than the chosen age.
 *
 * Why a hidden column and not row developer metadata: the hash moves with its row when the user
 * sorts or inserts rows (row metadata would too), but a cell is read and written in the same
 * getValues/setValues as the other result columns, while metadata is one addDeveloperMetadata per
 * row range and is capped in total size per spreadsheet.
 */
import type { TPolicy } from '../../shared/policy.js';
import { VERIFICATION_STATUSES } from '../../shared/verification.js';

/** Bumped when what goes into the hash changes, so every row is checked again once. */
const HASH_VERSION = 'h1';

/** Re-run modes offered in the sidebar: the delta (default), or every row as before. */
export const RECHECK_MODES = ['changed', 'all'] as const;
export type TRecheckMode = (typeof RECHECK_MODES)[number];

export interface RecheckOptions {
  mode: TRecheckMode;
  /** A result older than this many days is checked again (0: never for age). */
  maxAgeDays: number;
}

export const DEFAULT_RECHECK: RecheckOptions = { mode: 'changed', maxAgeDays: 30 };

/** Why a row is sent; null when it is skipped. */
export type TRecheckReason = 'all' | 'new' | 'changed' | 'failed' | 'stale';

/** What the result columns held for a row before this run. */
export interface PreviousResult {
  status: unknown;
  checkedAt: unknown;
  hash: unknown;
}

/** cyrb53 (public domain): a fast 53-bit string hash; collisions among a sheet's rows are negligible and would only skip a check. */
function cyrb53(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * The hash of a row's normalised inputs and the kind of key (a result a pk_test_ key got from
 * demo data says nothing for a pk_live_ key). Normalised, so retyping "uk" as "UK" is no change.
 */
export function inputHash(p: TPolicy, keyKind: string): string {
  return `${HASH_VERSION}:${cyrb53(JSON.stringify([keyKind, p.policy_number, p.country, p.insurance_type, p.provider ?? '']))}`;
}

/** pk_live_ or pk_test_ (what the hash records of the key, never the key). */
export function keyKind(key: string | null): string {
  return /^pk_test_/.test(key ?? '') ? 'test' : 'live';
}

/** "2026-01-05 09:00:00 UTC" (what the add-on writes) or a Date (if Sheets parsed it): epoch ms, or NaN. */
export function checkedAtMs(v: unknown): number {
  if (v instanceof Date) return v.getTime();
  const m = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC$/.exec(String(v ?? '').trim());
  return m ? Date.parse(`${m[1]}T${m[2]}Z`) : NaN;
}

const DAY_MS = 24 * 3600_000;

/** Why the row must be verified again, or null to skip it. */
export function recheckReason(prev: PreviousResult, hash: string, now: number, opts: RecheckOptions): TRecheckReason | null {
  if (opts.mode === 'all') return 'all';
  const status = String(prev.status ?? '').trim();
  const oldHash = String(prev.hash ?? '').trim();
  if (!oldHash && !status) return 'new';
  if (!(VERIFICATION_STATUSES as readonly string[]).includes(status)) return 'failed';
  if (oldHash !== hash) return 'changed';
  const at = checkedAtMs(prev.checkedAt);
  if (!Number.isFinite(at)) return 'failed';
  if (opts.maxAgeDays > 0 && now - at > opts.maxAgeDays * DAY_MS) return 'stale';
  return null;
}

/** Reads the sidebar's options, so a bad value is a readable error rather than a silent full run. */
export function recheckOptions(raw: unknown): RecheckOptions {
  if (raw === undefined || raw === null) return { ...DEFAULT_RECHECK };
  const r = raw as { mode?: unknown; maxAgeDays?: unknown };
  const mode = r.mode ?? DEFAULT_RECHECK.mode;
  if (!RECHECK_MODES.includes(mode as TRecheckMode)) throw new Error(`Re-check must be one of ${RECHECK_MODES.join(', ')}.`);
  const age = r.maxAgeDays === undefined || r.maxAgeDays === '' ? DEFAULT_RECHECK.maxAgeDays : Number(r.maxAgeDays);
  if (!Number.isFinite(age) || age < 0 || age > 3650) throw new Error('The age for re-checking must be a number of days from 0 to 3650.');
  return { mode: mode as TRecheckMode, maxAgeDays: age };
}
