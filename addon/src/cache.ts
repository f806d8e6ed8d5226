/**
 * What =VERIFYPOLICY remembers between executions, so a recalculation neither refetches nor
 * re-charges:
 * - Results, in the document cache, under a hash of the input and of whose answer it is (the
 *   connector and the granted key's tag: resultScope), packed into at most 64 items (one per first
 *   character of the input hash, up to 100 KB each) rather than one item per policy: CacheService keeps at most
 *   1,000 items and then only the 900 farthest from expiry (Cache reference, put), so one item per
 *   policy would lose results, and re-charge, past ~900 distinct policies. Each entry carries its
 *   own expiry: 6 hours (CacheService's maximum) for verified and unverified, 10 minutes for
 *   inconclusive (a registry outage should not stick).
 * - Submitted batches not yet collected, in document properties, which are never evicted: one
 *   property per batch ("cc.p.<batch id>" -> "<submitted, epoch s>|<hash>,<hash>,…", about 1.7 KB
 *   for 100 policies, under the 9 KB a value), kept under a budget well inside the 500 KB a store.
 * - How many fresh single-cell calls this minute (takeSingleCellCall), in the document cache.
 */
import type { TPolicy } from '../../shared/policy.js';
import type { TVerificationResult, TVerificationStatus } from '../../shared/verification.js';
import type { Conn } from './connector.js';
import { keyTag } from './key-tag.js';

export const RESULT_TTL_SECONDS = 6 * 60 * 60;
export const INCONCLUSIVE_TTL_SECONDS = 10 * 60;
/** How long a submitted batch is worth collecting rather than submitting again (the connector keeps batches). */
export const PENDING_TTL_SECONDS = 6 * 60 * 60;
/** Characters of the input hash kept in packs and pending records (96 bits: collisions are out of reach). */
export const HASH_CHARS = 16;
const PACK = 'r2:';
/** Under CacheService's 100 KB a value, with room for the JSON around the entries. */
const PACK_MAX_BYTES = 100 * 1024 - 512;
const PENDING = 'cc.p.';
/** Bytes of document properties pending records may use (the store holds 500 KB; the grant, schedules and bindings need little). */
export const PENDING_BUDGET_BYTES = 300 * 1024;

/** What a cell needs from a result. */
export interface CachedResult {
  s: TVerificationStatus;
  c: number;
  i: string;
  f: string[];
}
/** One packed entry: status, confidence, insurer, flags, expiry (epoch seconds). */
type Entry = [TVerificationStatus, number, string, string[], number];

export function toCached(r: TVerificationResult): CachedResult {
  return { s: r.status, c: r.confidence_score, i: r.insurer?.name ?? '', f: r.flags };
}

/**
 * Whose answers these are: the connector and the key's tag (never the key). Part of every input
 * hash, so a result or pending batch recorded for one key is never found for another (a pk_test_
 * key's demo answers are no answer for a pk_live_ key, and its batches are not the other's).
 */
export function resultScope(conn: Conn): string {
  return `${conn.url}\u0000${keyTag(conn.key ?? '')}`;
}

/** Matching ignores case, whitespace, dashes and dots in the number (as the connector does); provider case too. */
export function inputHash(scope: string, p: TPolicy): string {
  const number = p.policy_number.toUpperCase().replace(/[\s\-\u2010-\u2015.]/g, '');
  const text = ['v2', scope, number, p.country, p.insurance_type, (p.provider ?? '').trim().toLowerCase()].join('\u0000');
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, text, Utilities.Charset.UTF_8);
  return Utilities.base64EncodeWebSafe(digest).replace(/=+$/, '').slice(0, HASH_CHARS);
}

const nowSec = () => Math.floor(Date.now() / 1000);
const packKey = (hash: string) => PACK + hash.charAt(0);
/** The document cache: shared by this spreadsheet's users only (never the script cache, which every user of the add-on shares). */
const cache = () => CacheService.getDocumentCache();

function readPacks(keys: string[]): Map<string, Record<string, Entry>> {
  const out = new Map<string, Record<string, Entry>>();
  const c = cache();
  if (!c || keys.length === 0) return out;
  const raw = c.getAll(keys);
  for (const k of keys) {
    try {
      out.set(k, raw[k] ? (JSON.parse(raw[k]) as Record<string, Entry>) : {});
    } catch {
      out.set(k, {});
    }
  }
  return out;
}

export function getResults(hashes: string[]): Map<string, CachedResult> {
  const packs = readPacks([...new Set(hashes.map(packKey))]);
  const now = nowSec();
  const out = new Map<string, CachedResult>();
  for (const h of hashes) {
    const e = packs.get(packKey(h))?.[h];
    if (e && e[4] > now) out.set(h, { s: e[0], c: e[1], i: e[2], f: e[3] });
  }
  return out;
}

/** Merges results into their packs (re-read first, so another execution's writes are kept), dropping expired entries and, over 100 KB, the soonest to expire. */
export function putResults(results: Map<string, CachedResult>): void {
  const c = cache();
  if (!c || results.size === 0) return;
  const now = nowSec();
  const packs = readPacks([...new Set([...results.keys()].map(packKey))]);
  for (const [h, r] of results)
    packs.get(packKey(h))![h] = [r.s, r.c, r.i, r.f, now + (r.s === 'inconclusive' ? INCONCLUSIVE_TTL_SECONDS : RESULT_TTL_SECONDS)];
  const out: Record<string, string> = {};
  for (const [k, pack] of packs) {
    let entries = Object.entries(pack).filter(([, e]) => e[4] > now);
    let text = JSON.stringify(Object.fromEntries(entries));
    if (text.length > PACK_MAX_BYTES) {
      entries = entries.sort((a, b) => b[1][4] - a[1][4]);
      while (entries.length && (text = JSON.stringify(Object.fromEntries(entries))).length > PACK_MAX_BYTES)
        entries = entries.slice(0, Math.floor(entries.length * 0.9));
    }
    out[k] = text;
  }
  c.putAll(out, RESULT_TTL_SECONDS);
}

/** Every pack key: CacheService has no listing, and a hash starts with one of 64 web-safe base64 characters. */
const PACK_KEYS = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'].map((ch) => PACK + ch);

/**
 * Forgets every cached result (one removeAll), when the granted key is revoked or replaced by
 * another. Pending records stay: they are the connector's batches of the key that submitted
 * them, found again only under that key's scope, and expire on their own.
 */
export function forgetResults(): void {
  cache()?.removeAll(PACK_KEYS);
}

export interface PendingItem {
  batchId: string;
  index: number;
}

interface PendingRecords {
  /** hash -> where its result will be. */
  items: Map<string, PendingItem>;
  /** Bytes the store holds now. */
  storeBytes: number;
}

/**
 * Every document property, in one read: a run of =VERIFYPOLICY reads the grant and its pending
 * records from this alone, so a recalculation answered from the cache costs one property
 * operation ("Quotas for Google Services": 50,000 property reads and writes a day per consumer user).
 */
export function readDocProperties(): Record<string, string> {
  return PropertiesService.getDocumentProperties().getProperties();
}

/** Every live pending record in `all` (expired ones are deleted on the way). */
function readPending(all: Record<string, string>): PendingRecords {
  const props = PropertiesService.getDocumentProperties();
  const items = new Map<string, PendingItem>();
  const cutoff = nowSec() - PENDING_TTL_SECONDS;
  let storeBytes = 0;
  for (const [k, v] of Object.entries(all)) {
    storeBytes += k.length + v.length;
    if (!k.startsWith(PENDING)) continue;
    const [at, list] = v.split('|');
    if (Number(at) < cutoff || !list) {
      props.deleteProperty(k);
      continue;
    }
    list.split(',').forEach((h, index) => items.set(h, { batchId: k.slice(PENDING.length), index }));
  }
  return { items, storeBytes };
}

/**
 * The pending records of `hashes`, with every other policy of their batches (collected together,
 * so each result of a paid batch is cached, never asked for again), and how many more batches may
 * be recorded; `all` is readDocProperties().
 */
export function getPending(hashes: string[], all: Record<string, string>): { pending: Map<string, PendingItem>; roomBatches: number } {
  const { items, storeBytes } = readPending(all);
  const batches = new Set<string>();
  for (const h of hashes) {
    const p = items.get(h);
    if (p) batches.add(p.batchId);
  }
  const pending = new Map<string, PendingItem>();
  for (const [h, p] of items) if (batches.has(p.batchId)) pending.set(h, p);
  // A record of 100 hashes is about 1.7 KB.
  const perBatch = PENDING.length + 40 + 100 * (HASH_CHARS + 1) + 12;
  return { pending, roomBatches: Math.max(0, Math.floor((PENDING_BUDGET_BYTES - storeBytes) / perBatch)) };
}

/** Records submitted batches before anything waits on them (one setProperties call). */
export function putPending(batches: { batchId: string; hashes: string[] }[]): void {
  if (batches.length === 0) return;
  const at = nowSec();
  PropertiesService.getDocumentProperties().setProperties(
    Object.fromEntries(batches.map((b) => [PENDING + b.batchId, `${at}|${b.hashes.join(',')}`])),
  );
}

/** Forgets collected (or vanished) batches. */
export function dropPending(batchIds: string[]): void {
  const props = PropertiesService.getDocumentProperties();
  for (const id of batchIds) props.deleteProperty(PENDING + id);
}

/**
 * Fresh single-cell calls (one policy not cached, not pending, outside a range) each document may
 * make a minute. A column of per-row formulas would spend one UrlFetch call per row of the user's
 * 20,000 a day ("Quotas for Google Services", consumer accounts), and past the quota every feature
 * of the add-on fails for up to 24 h; beyond this, a cell answers USE_A_RANGE instead.
 */
export const SINGLE_CELL_CALLS_PER_MINUTE = 30;
const MINUTE = 'cc.m.';

/**
 * Counts one fresh single-cell call against this minute's budget (in the document cache, which
 * costs no property operation); false when the budget is spent. A read-modify-write: callers
 * hold the document lock (locks.ts), so executions at the same time don't each see the same count.
 */
export function takeSingleCellCall(): boolean {
  const c = cache();
  if (!c) return true;
  const key = MINUTE + Math.floor(Date.now() / 60_000);
  const used = Number(c.get(key) ?? 0);
  if (used >= SINGLE_CELL_CALLS_PER_MINUTE) return false;
  c.put(key, String(used + 1), 120);
  return true;
}
