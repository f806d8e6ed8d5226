/**
 * The FCA Financial Services Register API as an online source for the UK insurer check: a firm by
 * FRN or by name, as an InsurerRecord, with whether the firm is an insurer or an intermediary.
 *
 * Answers are cached (found and not found alike) for the TTL, so a batch naming one insurer a
 * thousand times calls the register once. A lookup never throws and never waits past its deadline,
 * which covers the time queued for the limiter as well as the calls: a slow, failing or rate-limiting
 * register is `unavailable`, which is never cached.
 */
import type { Config } from '../../config.js';
import { deadline } from '../../deadline.js';
import { createLimiters, type Limiters } from '../../redis/limiters.js';
import type { InsurerRecord } from '../../store/types.js';
import { fcaFirmToRecord } from '../importers/fca.js';
import { normaliseInsurerName } from '../normalise.js';
import { fcaApi, FcaUnavailable, type FcaPermissions, type FcaSearchHit, type Lookup } from './fca-api.js';
import { firmKindFromPermissions, type FirmKind } from './firm-kind.js';
import { limitedCalls } from '../../redis/limited-calls.js';
import { TtlCache } from './ttl-cache.js';

export type OnlineRegisterAnswer =
  { kind: 'found'; record: InsurerRecord; firmKind: FirmKind } | { kind: 'not_found' } | { kind: 'unavailable'; reason: string };

export interface OnlineRegister {
  readonly name: string;
  byReference(frn: string): Promise<OnlineRegisterAnswer>;
  /** A firm search; the firm whose name has the same matching key (normaliseInsurerName), an authorised one first. */
  byName(name: string): Promise<OnlineRegisterAnswer>;
  /** Drops waiting calls (their lookups answer `unavailable`) and the cache; later lookups answer `unavailable`. Idempotent. */
  stop(): Promise<void>;
}

export interface FcaRegisterOptions {
  baseUrl: string;
  email: string;
  key: string;
  /** Deadline of one lookup, all its calls and its time in the limiter's queue together. */
  timeoutMs: number;
  maxConcurrent: number;
  minTimeMs: number;
  perSecond?: number | null;
  cacheTtlMs: number;
  /** Entries kept at most; default 5,000. */
  cacheSize?: number;
  fetch?: typeof fetch;
  now?: () => number;
  limiters?: Limiters;
}

const NAME = 'fca-register-api';
const DEFAULT_CACHE_SIZE = 5_000;
const FRN = /^\d{6,7}$/;
/** Status ranks among firms of the same name: a current authorisation first. */
const STATUS_RANK: Record<string, number> = { authorised: 0, 'eea authorised': 1 };
/**
 * Trailing legal forms left out of the search text: the register writes "Ltd." for one firm and
 * "Limited" for another, and its search looks for the words given. The matching key drops them anyway.
 */
const TRAILING_LEGAL_FORMS = /(?:[\s,]+(?:limited|ltd\.?|plc|p\.l\.c\.|llp|company|co\.?))+\s*$/i;

/** No firm's name is longer; the cap keeps a pasted paragraph out of the search (and the pattern above cheap). */
const MAX_NAME_CHARS = 200;

type Settled = Exclude<OnlineRegisterAnswer, { kind: 'unavailable' }>;
interface Outcome {
  answer: Settled;
  /** False for an answer read only in part (the permissions failed): it is given but not kept. */
  cacheable: boolean;
  /** A second cache key the answer is kept under (a firm found by name is then known by its FRN too). */
  alsoAs?: string;
}

const NOT_FOUND: Outcome = { answer: { kind: 'not_found' }, cacheable: true };
const unavailable = (reason: string): OnlineRegisterAnswer => ({ kind: 'unavailable', reason });

function copy<A extends OnlineRegisterAnswer>(answer: A): A {
  return answer.kind === 'found' ? { ...answer, record: { ...answer.record, aliases: [...answer.record.aliases] } } : answer;
}

/** The firm of the asked name among the search hits: same matching key, best status; else the one hit there is. */
function bestHit(hits: FcaSearchHit[], key: string): FcaSearchHit | null {
  const same = hits.filter((h) => normaliseInsurerName(h.name.replace(/\s*\(Postcode:[^)]*\)\s*$/i, '')) === key);
  const rank = (h: FcaSearchHit) => STATUS_RANK[h.status.trim().toLowerCase()] ?? 2;
  if (same.length > 0) return same.reduce((best, h) => (rank(h) < rank(best) ? h : best));
  // The search also matches trading names, which the hits don't show: a sole hit is the register's own answer.
  return hits.length === 1 ? hits[0]! : null;
}

export function fcaRegister(opts: FcaRegisterOptions): OnlineRegister {
  const now = opts.now ?? Date.now;
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const calls = limitedCalls(
    `online-${NAME}`,
    { maxConcurrent: opts.maxConcurrent, minTimeMs: opts.minTimeMs, perSecond: opts.perSecond ?? null, timeoutMs: opts.timeoutMs },
    opts.limiters ?? createLimiters(null),
  );
  const api = fcaApi({ baseUrl, email: opts.email, key: opts.key, fetch: opts.fetch ?? fetch, calls });
  const cache = new TtlCache<Settled>(opts.cacheSize ?? DEFAULT_CACHE_SIZE, opts.cacheTtlMs, now);
  // After a 429 the register blocks the account for a while; calling during it would only extend the block.
  let blockedUntil = 0;
  let stopped = false;
  let stopping: Promise<void> | null = null;

  function reasonOf(err: unknown): string {
    if (err instanceof FcaUnavailable) {
      if (err.blockedForMs) blockedUntil = Math.max(blockedUntil, now() + err.blockedForMs);
      return err.message;
    }
    return `failed (${(err as Error)?.message ?? String(err)})`;
  }

  // A batch naming one firm on many rows asks once: later askers share the lookup under way.
  const inFlight = new Map<string, Promise<OnlineRegisterAnswer>>();

  function guarded(key: string, work: (lookup: Lookup) => Promise<Outcome>): Promise<OnlineRegisterAnswer> {
    const hit = cache.get(key);
    if (hit) return Promise.resolve(copy(hit));
    const pending = inFlight.get(key);
    if (pending) return pending.then(copy);
    const answer = lookupOnce(key, work);
    inFlight.set(key, answer);
    void answer.finally(() => inFlight.delete(key));
    return answer.then(copy);
  }

  function lookupOnce(key: string, work: (lookup: Lookup) => Promise<Outcome>): Promise<OnlineRegisterAnswer> {
    if (stopped) return Promise.resolve(unavailable('stopped'));
    const waitMs = blockedUntil - now();
    if (waitMs > 0)
      return Promise.resolve(unavailable(`rate limited by the FCA register; not called for another ${Math.ceil(waitMs / 1000)} s`));
    // Aborted when the lookup is over, so calls it no longer needs (a page after a failed one) stop too.
    const over = new AbortController();
    const due = deadline(opts.timeoutMs, over.signal);
    const lookup: Lookup = { signal: due.signal, started: 0 };
    return new Promise<OnlineRegisterAnswer>((settle) => {
      // Answers at the deadline even if a call ignores its signal; later settles are no-ops.
      due.signal.addEventListener(
        'abort',
        () =>
          settle(
            unavailable(lookup.started === 0 ? `timed out in queue after ${opts.timeoutMs} ms` : `timed out after ${opts.timeoutMs} ms`),
          ),
        { once: true },
      );
      work(lookup)
        .then(
          (outcome) => {
            if (outcome.cacheable) for (const k of outcome.alsoAs ? [key, outcome.alsoAs] : [key]) cache.set(k, outcome.answer);
            // Not copied here: guarded() gives each asker its own copy.
            settle(outcome.answer);
          },
          (err: unknown) => settle(unavailable(reasonOf(err))),
        )
        .finally(() => {
          over.abort();
          due.clear();
        });
    });
  }

  /** The firm's record and its permissions, read at once; a firm without readable permissions is found, of unknown kind. */
  async function readFirm(frn: string, lookup: Lookup): Promise<Outcome> {
    const [firm, permissions] = await Promise.all([
      api.firm(frn, lookup),
      api.permissions(frn, lookup).catch((err: unknown): FcaPermissions | FcaUnavailable => {
        if (err instanceof FcaUnavailable && !lookup.signal.aborted) {
          reasonOf(err);
          return err;
        }
        throw err;
      }),
    ]);
    if (!firm) return NOT_FOUND;
    const read = new Date(now()).toISOString();
    let record: InsurerRecord;
    try {
      record = fcaFirmToRecord(firm, read, 1, {
        source: NAME,
        describe: (f) => `FCA Financial Services Register API, ${baseUrl}/Firm/${f}, read ${read.slice(0, 10)}`,
      });
    } catch {
      throw new FcaUnavailable('answered with an unexpected body');
    }
    const partial = permissions instanceof FcaUnavailable;
    const firmKind = partial ? 'unknown' : firmKindFromPermissions(permissions.list, permissions.complete);
    // The record's own kind can't say "unknown"; firmKind is the answer's word on it.
    if (firmKind === 'intermediary') record = { ...record, kind: 'intermediary' };
    return { answer: { kind: 'found', record, firmKind }, cacheable: !partial };
  }

  return {
    name: NAME,

    byReference(frn) {
      const ref = frn.trim();
      // Not an FRN: the register can't hold it, and a malformed one is refused rather than looked up.
      if (!FRN.test(ref)) return Promise.resolve({ kind: 'not_found' });
      return guarded(`frn:${ref}`, (lookup) => readFirm(ref, lookup));
    },

    byName(name) {
      const key = normaliseInsurerName(name);
      if (!key) return Promise.resolve({ kind: 'not_found' });
      return guarded(`name:${key}`, async (lookup) => {
        const asked = name.replace(/\s+/g, ' ').trim().slice(0, MAX_NAME_CHARS);
        const text = asked.replace(TRAILING_LEGAL_FORMS, '').trim() || asked;
        const best = bestHit(await api.searchFirms(text, lookup), key);
        if (!best) return NOT_FOUND;
        const known = cache.get(`frn:${best.frn}`);
        if (known) return { answer: known, cacheable: true };
        return { ...(await readFirm(best.frn, lookup)), alsoAs: `frn:${best.frn}` };
      });
    },

    stop() {
      stopped = true;
      stopping ??= calls.stop().then(() => cache.clear());
      return stopping;
    },
  };
}

export interface FcaRegisterDeps {
  fetch?: typeof fetch;
  now?: () => number;
  /** The limiters the composition root made once, so the quota is shared with other instances through Redis. */
  limiters?: Limiters;
}

/** The source as configured, or null when no API e-mail and key are set (the source is off). */
export function fcaRegisterFromConfig(config: Pick<Config, 'fcaRegister' | 'registry'>, deps: FcaRegisterDeps = {}): OnlineRegister | null {
  const fca = config.fcaRegister;
  if (!fca) return null;
  return fcaRegister({
    baseUrl: fca.baseUrl,
    email: fca.email,
    key: fca.key,
    timeoutMs: fca.timeoutMs,
    maxConcurrent: config.registry.maxConcurrent,
    minTimeMs: config.registry.minTimeMs,
    perSecond: fca.perSecond,
    cacheTtlMs: fca.cacheTtlMs,
    ...deps,
  });
}
