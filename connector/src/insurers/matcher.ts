/** In-memory index that resolves a user-typed provider name, or a regulator reference, to a register row. */
import { distance } from 'fastest-levenshtein';
import type { TCountry } from '../../../shared/policy.js';
import type { TInsurer } from '../../../shared/verification.js';
import type { InsurerRecord } from '../store/types.js';
import { countryProfile, LANGUAGE_PACKS, LANGUAGES } from '../../../shared/packs/index.js';
import { nameTokens } from './normalise.js';

/** A register row found for a provider name, how it was found and how closely it matched (0..1). */
export interface InsurerMatch {
  record: InsurerRecord;
  score: number;
  how: 'exact' | 'alias' | 'tokens' | 'fuzzy';
}

const SCORE_EXACT = 1;
const SCORE_ALIAS = 0.97;
const SCORE_TOKENS = 0.9;
/** Fuzzy scores are similarity * this, so a fuzzy hit never outranks a token containment. */
const FUZZY_WEIGHT = 0.9;
const MIN_SIMILARITY = 0.85;
/** Fewer significant characters than this is not a name (e.g. "AG", "R+V"). */
const MIN_SIGNIFICANT_CHARS = 3;

/**
 * Words every insurer shares. A provider made only of these ("Versicherung AG") would otherwise
 * "contain" in half the register, so token containment needs at least one word outside this list.
 * The language packs list their own; the register (EIOPA) also holds insurers of languages without a pack,
 * whose commonest such words are added here. Written in key form (see normalise.ts).
 */
const GENERIC_TOKENS = new Set(
  [...LANGUAGES.flatMap((l) => LANGUAGE_PACKS[l].genericNameWords), 'assicurazioni', 'seguro', 'verzekeringen'].flatMap((w) =>
    nameTokens(w),
  ),
);

/** One searchable name of a record: its official name or one of its aliases. */
interface Entry {
  rec: number;
  key: string;
  tokens: string[];
  kind: 'name' | 'alias';
}

interface CountryIndex {
  records: InsurerRecord[];
  entries: Entry[];
  byName: Map<string, number[]>;
  byAlias: Map<string, number[]>;
  /** token -> entry ids, for containment and for fuzzy candidate selection. */
  byToken: Map<string, number[]>;
  /** token length -> distinct tokens of that length, for per-word fuzzy matching. */
  tokensByLength: Map<number, string[]>;
  /** key length -> entry ids, so fuzzy only looks at keys whose length allows a match. */
  entriesByLength: Map<number, number[]>;
  byReference: Map<string, InsurerRecord>;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Order of preference among equally good candidates: real before demo, insurer before intermediary, stronger source, authorised, reference. */
function preferRecord(a: InsurerRecord, b: InsurerRecord): number {
  if (a.demo !== b.demo) return a.demo ? 1 : -1;
  // "Hiscox" names the insurer and its MGA alike: the risk carrier is what a provider most likely means.
  if (a.kind !== b.kind) return a.kind === 'insurer' ? -1 : 1;
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.authorised !== b.authorised) return a.authorised ? -1 : 1;
  return a.reference < b.reference ? -1 : a.reference > b.reference ? 1 : 0;
}

/**
 * Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), so "Allainz" is one
 * edit from "Allianz". Only called on the few candidates that survive the cheap filters.
 */
function osaDistance(a: string, b: string): number {
  const n = a.length;
  const m = b.length;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let cur = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let v = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, (prev2[j - 2] as number) + 1);
      }
      cur[j] = v;
    }
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m] as number;
}

/**
 * Similarity 1 - d/maxLen with d the transposition-aware distance, or 0 when below the threshold.
 * fastest-levenshtein's plain distance bounds the work: a transposition costs it 2, so if half of
 * its distance already exceeds what the threshold allows, the slower exact distance is skipped.
 */
function similarity(a: string, b: string): number {
  const maxLen = Math.max(a.length, b.length);
  if (maxLen === 0) return 0;
  const allowed = Math.floor((1 - MIN_SIMILARITY) * maxLen + 1e-9);
  if (Math.abs(a.length - b.length) > allowed) return 0;
  // Short words (under 7 characters) allow no edit: equal or not similar, no distance to compute.
  if (allowed === 0) return a === b ? 1 : 0;
  const lev = distance(a, b);
  if (lev <= allowed) return 1 - lev / maxLen;
  if (Math.ceil(lev / 2) > allowed) return 0;
  const d = osaDistance(a, b);
  return d <= allowed ? 1 - d / maxLen : 0;
}

/** Key lengths a string of length n can be within the similarity threshold of. */
function lengthWindow(n: number): [number, number] {
  // |la - lb| <= (1 - s) * max(la, lb): for the longer side that is lb <= n / s.
  return [Math.ceil(n * MIN_SIMILARITY - 1e-9), Math.floor(n / MIN_SIMILARITY + 1e-9)];
}

/** Upper-case, no spaces: how references are compared. */
function referenceKey(reference: string): string {
  return reference.trim().toUpperCase().replace(/\s+/g, '');
}

/** A BaFin number with a branch/FPS suffix as in the EIOPA register ("5096ES") -> its base ("5096"). */
function referenceBase(key: string): string | null {
  const m = /^(\d{4})[A-Z]{2}$/.exec(key);
  return m ? (m[1] as string) : null;
}

function buildCountryIndex(records: InsurerRecord[]): CountryIndex {
  const idx: CountryIndex = {
    records,
    entries: [],
    byName: new Map(),
    byAlias: new Map(),
    byToken: new Map(),
    tokensByLength: new Map(),
    entriesByLength: new Map(),
    byReference: new Map(),
  };
  const seenTokens = new Set<string>();
  records.forEach((record, rec) => {
    idx.byReference.set(referenceKey(record.reference), record);
    const seenKeys = new Set<string>();
    const names: Array<[string, Entry['kind']]> = [
      [record.name, 'name'],
      ...record.aliases.map((a): [string, Entry['kind']] => [a, 'alias']),
    ];
    for (const [text, kind] of names) {
      const tokens = nameTokens(text);
      const key = tokens.join(' ');
      if (!key || seenKeys.has(key)) continue;
      seenKeys.add(key);
      const id = idx.entries.length;
      idx.entries.push({ rec, key, tokens, kind });
      push(kind === 'name' ? idx.byName : idx.byAlias, key, rec);
      push(idx.entriesByLength, key.length, id);
      for (const t of new Set(tokens)) {
        push(idx.byToken, t, id);
        if (!seenTokens.has(t)) {
          seenTokens.add(t);
          push(idx.tokensByLength, t.length, t);
        }
      }
    }
  });
  return idx;
}

/** Keeps, per (country, reference), the row the store would keep: highest priority, later wins a tie. */
function dedupeByReference(records: InsurerRecord[]): InsurerRecord[] {
  const kept = new Map<string, InsurerRecord>();
  for (const r of records) {
    const k = `${r.country}\u0000${referenceKey(r.reference)}`;
    const old = kept.get(k);
    if (!old || r.priority >= old.priority) kept.set(k, r);
  }
  return [...kept.values()];
}

/**
 * Name and reference lookup over register rows, one index per country. Everything a lookup needs is
 * computed in the constructor: exact and alias lookups are single Map reads, and fuzzy matching only
 * scores names whose length can reach the threshold and that share a first letter or a word.
 */
export class InsurerIndex {
  private readonly countries = new Map<TCountry, CountryIndex>();
  private readonly total: number;

  constructor(records: InsurerRecord[]) {
    const unique = dedupeByReference(records);
    this.total = unique.length;
    const grouped = new Map<TCountry, InsurerRecord[]>();
    for (const r of unique) push(grouped, r.country, r);
    for (const [country, rows] of grouped) this.countries.set(country, buildCountryIndex(rows));
  }

  /** Number of distinct (country, reference) rows indexed. */
  size(): number {
    return this.total;
  }

  /**
   * The row with this regulator reference in this country, or null. Case and spaces are ignored, and a
   * BaFin number with an EIOPA branch suffix ("5096ES") also finds the undertaking's own number.
   */
  byReference(country: TCountry, reference: string): InsurerRecord | null {
    const idx = this.countries.get(country);
    if (!idx) return null;
    const key = referenceKey(reference);
    const hit = idx.byReference.get(key);
    if (hit) return hit;
    const base = referenceBase(key);
    return base ? (idx.byReference.get(base) ?? null) : null;
  }

  /** Best match for a provider name within one country, or null when nothing is close enough. */
  match(country: TCountry, provider: string): InsurerMatch | null {
    const idx = this.countries.get(country);
    if (!idx) return null;
    const tokens = nameTokens(provider);
    const key = tokens.join(' ');
    if (key.replace(/ /g, '').length < MIN_SIGNIFICANT_CHARS) return null;

    const exact = this.best(idx, idx.byName.get(key));
    if (exact) return { record: exact, score: SCORE_EXACT, how: 'exact' };
    const alias = this.best(idx, idx.byAlias.get(key));
    if (alias) return { record: alias, score: SCORE_ALIAS, how: 'alias' };
    const contained = this.containment(idx, tokens);
    if (contained) return { record: contained, score: SCORE_TOKENS, how: 'tokens' };
    return this.fuzzy(idx, key, tokens);
  }

  private best(idx: CountryIndex, recs: number[] | undefined): InsurerRecord | null {
    if (!recs || recs.length === 0) return null;
    return recs.map((i) => idx.records[i] as InsurerRecord).sort(preferRecord)[0] ?? null;
  }

  /** Entries that hold every provider word; the shortest wins ("Allianz" -> "Allianz Versicherung"). */
  private containment(idx: CountryIndex, tokens: string[]): InsurerRecord | null {
    if (!tokens.some((t) => !GENERIC_TOKENS.has(t))) return null;
    const lists = [...new Set(tokens)].map((t) => idx.byToken.get(t) ?? []);
    if (lists.some((l) => l.length === 0)) return null;
    lists.sort((a, b) => a.length - b.length);
    const rest = lists.slice(1).map((l) => new Set(l));
    const hits = (lists[0] as number[]).filter((id) => rest.every((s) => s.has(id)));
    return this.shortest(idx, hits);
  }

  private shortest(idx: CountryIndex, entryIds: number[]): InsurerRecord | null {
    let bestId: number | null = null;
    for (const id of entryIds) {
      if (bestId === null || this.compareEntries(idx, id, bestId) < 0) bestId = id;
    }
    return bestId === null ? null : (idx.records[(idx.entries[bestId] as Entry).rec] as InsurerRecord);
  }

  private compareEntries(idx: CountryIndex, a: number, b: number): number {
    const ea = idx.entries[a] as Entry;
    const eb = idx.entries[b] as Entry;
    if (ea.tokens.length !== eb.tokens.length) return ea.tokens.length - eb.tokens.length;
    if (ea.key.length !== eb.key.length) return ea.key.length - eb.key.length;
    const byRecord = preferRecord(idx.records[ea.rec] as InsurerRecord, idx.records[eb.rec] as InsurerRecord);
    if (byRecord !== 0) return byRecord;
    return ea.kind === eb.kind ? 0 : ea.kind === 'name' ? -1 : 1;
  }

  /**
   * Two fuzzy readings, the better wins: the whole key against whole names (typos anywhere), and
   * word by word, each provider word matching a word of the name (a typo in "Allainz" when the
   * register only holds "Allianz Direct Versicherung").
   */
  private fuzzy(idx: CountryIndex, key: string, tokens: string[]): InsurerMatch | null {
    let bestSim = 0;
    let bestEntry: number | null = null;
    const consider = (id: number, sim: number): void => {
      if (sim < MIN_SIMILARITY) return;
      if (
        sim > bestSim + 1e-12 ||
        (Math.abs(sim - bestSim) <= 1e-12 && bestEntry !== null && this.compareEntries(idx, id, bestEntry) < 0)
      ) {
        bestSim = sim;
        bestEntry = id;
      }
    };

    // Whole key: only names of a reachable length that share the first letter or a word.
    const tokenSet = new Set(tokens);
    const [lo, hi] = lengthWindow(key.length);
    for (let len = lo; len <= hi; len++) {
      for (const id of idx.entriesByLength.get(len) ?? []) {
        const e = idx.entries[id] as Entry;
        if (e.key[0] !== key[0] && !e.tokens.some((t) => tokenSet.has(t))) continue;
        consider(id, similarity(key, e.key));
      }
    }

    // Word by word: every provider word must equal or nearly equal a word of the name.
    if (tokens.some((t) => !GENERIC_TOKENS.has(t))) {
      const perToken = [...tokenSet].map((t) => this.similarTokens(idx, t));
      if (perToken.every((m) => m.size > 0)) {
        // Entry id -> total edit distance over the provider words (best word for each).
        let acc: Map<number, number> | null = null;
        for (const matches of perToken) {
          const next = new Map<number, number>();
          for (const [tok, d] of matches) {
            for (const id of idx.byToken.get(tok) ?? []) {
              if (acc && !acc.has(id)) continue;
              const prevD: number = acc ? (acc.get(id) as number) : 0;
              const old = next.get(id);
              if (old === undefined || prevD + d < old) next.set(id, prevD + d);
            }
          }
          acc = next;
          if (acc.size === 0) break;
        }
        const chars = [...tokenSet].reduce((n, t) => n + t.length, 0);
        for (const [id, d] of acc ?? []) consider(id, 1 - d / chars);
      }
    }

    if (bestEntry === null) return null;
    const record = idx.records[(idx.entries[bestEntry] as Entry).rec] as InsurerRecord;
    return { record, score: bestSim * FUZZY_WEIGHT, how: 'fuzzy' };
  }

  /** Register words equal to or within the similarity threshold of one provider word, with their distance. */
  private similarTokens(idx: CountryIndex, token: string): Map<string, number> {
    const out = new Map<string, number>();
    if (idx.byToken.has(token)) out.set(token, 0);
    const [lo, hi] = lengthWindow(token.length);
    for (let len = lo; len <= hi; len++) {
      for (const cand of idx.tokensByLength.get(len) ?? []) {
        if (cand === token) continue;
        const sim = similarity(token, cand);
        if (sim > 0) out.set(cand, Math.round((1 - sim) * Math.max(token.length, cand.length)));
      }
    }
    return out;
  }
}

/**
 * The contract's insurer object for a matched (or directly looked-up) row. `match_score` is rounded to
 * two decimals and left out when there is no score.
 */
export function toInsurerObject(match: InsurerMatch | { record: InsurerRecord; score?: number }): TInsurer {
  const { record } = match;
  const out: TInsurer = {
    name: record.name,
    reference: record.reference,
    regulated: record.regulated,
    authorised: record.authorised,
    country: record.country,
    source: record.source,
    demo: record.demo,
    register_status: record.status_text,
    register_url: record.demo ? null : countryProfile(record.country).regulator.registerLink(record),
  };
  if (typeof match.score === 'number') out.match_score = Math.round(match.score * 100) / 100;
  return out;
}
