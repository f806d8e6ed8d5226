/**
 * Verification results in the document cache, keyed by a hash of the normalised input, so a
 * recalculation neither refetches nor re-charges. Lifetimes: 6 hours (CacheService's maximum) for
 * verified and unverified, 10 minutes for inconclusive (a registry outage should not stick).
 * CacheService limits respected here: keys up to 250 characters, values up to 100 KB, and
 * getAll/putAll in slices of at most 1000 keys.
 */
import type { TPolicy } from '../../shared/policy.js';
import type { TVerificationResult, TVerificationStatus } from '../../shared/verification.js';

export const RESULT_TTL_SECONDS = 6 * 60 * 60;
export const INCONCLUSIVE_TTL_SECONDS = 10 * 60;
/** How long a submitted-but-unfinished batch item is remembered, so a recalculation polls it instead of paying again. */
export const PENDING_TTL_SECONDS = 15 * 60;
const MAX_VALUE_BYTES = 100 * 1024;
const SLICE = 1000;

/** What a cell needs from a result; kept small so thousands fit in the cache. */
export interface CachedResult {
  s: TVerificationStatus;
  c: number;
  i: string;
  f: string[];
}

export function toCached(r: TVerificationResult): CachedResult {
  return { s: r.status, c: r.confidence_score, i: r.insurer?.name ?? '', f: r.flags };
}

/** Matching ignores case, whitespace, dashes and dots in the number (as the connector does); provider case too. */
export function inputHash(connectorUrl: string, p: TPolicy): string {
  const number = p.policy_number.toUpperCase().replace(/[\s\-\u2010-\u2015.]/g, '');
  const text = ['v1', connectorUrl, number, p.country, p.insurance_type, (p.provider ?? '').trim().toLowerCase()].join('\u0000');
  const digest = Utilities.computeDigest(Utilities.DigestAlgorithm.SHA_256, text, Utilities.Charset.UTF_8);
  return Utilities.base64EncodeWebSafe(digest).replace(/=+$/, '');
}

const cache = () => CacheService.getDocumentCache() ?? CacheService.getScriptCache();

function getAll(keys: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const c = cache();
  for (let i = 0; i < keys.length; i += SLICE) Object.assign(out, c.getAll(keys.slice(i, i + SLICE)));
  return out;
}

function putAll(values: Record<string, string>, ttl: number): void {
  const c = cache();
  const entries = Object.entries(values).filter(([, v]) => v.length <= MAX_VALUE_BYTES);
  for (let i = 0; i < entries.length; i += SLICE) c.putAll(Object.fromEntries(entries.slice(i, i + SLICE)), ttl);
}

export function getResults(hashes: string[]): Map<string, CachedResult> {
  const raw = getAll(hashes.map((h) => `r:${h}`));
  const out = new Map<string, CachedResult>();
  for (const h of hashes) {
    const v = raw[`r:${h}`];
    if (v) out.set(h, JSON.parse(v) as CachedResult);
  }
  return out;
}

export function putResults(results: Map<string, CachedResult>): void {
  const long: Record<string, string> = {};
  const short: Record<string, string> = {};
  for (const [h, r] of results) (r.s === 'inconclusive' ? short : long)[`r:${h}`] = JSON.stringify(r);
  putAll(long, RESULT_TTL_SECONDS);
  putAll(short, INCONCLUSIVE_TTL_SECONDS);
}

/** Pending batch items: hash -> "batchId:index". */
export function getPending(hashes: string[]): Map<string, { batchId: string; index: number }> {
  const raw = getAll(hashes.map((h) => `p:${h}`));
  const out = new Map<string, { batchId: string; index: number }>();
  for (const h of hashes) {
    const v = raw[`p:${h}`];
    const m = v ? /^(.+):(\d+)$/.exec(v) : null;
    if (m) out.set(h, { batchId: m[1]!, index: Number(m[2]) });
  }
  return out;
}

export function putPending(pending: Map<string, { batchId: string; index: number }>): void {
  const vals: Record<string, string> = {};
  for (const [h, p] of pending) vals[`p:${h}`] = `${p.batchId}:${p.index}`;
  putAll(vals, PENDING_TTL_SECONDS);
}
