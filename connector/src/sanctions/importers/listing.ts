/** What every sanctions list importer returns, and the collector that builds it from one name at a time. */
import { normaliseInsurerName } from '../../insurers/normalise.js';
import type { SanctionRecord } from '../../store/types.js';

/** A parsed official list: the rows to store under `list`, and counts an operator can check against the source. */
export interface ParsedSanctionsList {
  /** The file kind as read, e.g. "OFSI consolidated list CSV". */
  kind: string;
  /** The store's list name the rows belong to (`SanctionStore.replaceList`). */
  list: string;
  /** The publication or generation date the file states, as written; null when it states none. */
  published: string | null;
  /** One row per distinct name of each listed entity. */
  records: SanctionRecord[];
  /** Listed entities (distinct references) with at least one name. */
  entities: number;
  /** Listings (distinct references) left out, by their type as the file words it ("Individual", "person", "Ship"). */
  skipped: Record<string, number>;
}

/**
 * Gathers entity names under their reference. A name that folds to the same matching key as one already
 * held for the same reference ("... LIMITED" and "... Ltd") is kept once: the index would find either by it.
 */
export class ListingCollector {
  private readonly records: SanctionRecord[] = [];
  private readonly seen = new Map<string, Set<string>>();
  private readonly skipped = new Map<string, Set<string>>();

  constructor(private readonly list: string) {}

  addName(reference: string, name: string): void {
    const clean = name.replace(/\s+/g, ' ').trim();
    if (!clean) return;
    // Names in other scripts fold to nothing under the Latin-only key; they are still distinct names.
    const key = normaliseInsurerName(clean) || clean.toLowerCase();
    const keys = this.seen.get(reference) ?? new Set<string>();
    if (keys.has(key)) return;
    keys.add(key);
    this.seen.set(reference, keys);
    this.records.push({ name: clean, country: null, list: this.list, reference, demo: false });
  }

  /** Notes a listing that is not an entity; a listing spread over several rows counts once. */
  skip(type: string, reference: string): void {
    const label = type.trim() || '(no type)';
    const refs = this.skipped.get(label) ?? new Set<string>();
    refs.add(reference);
    this.skipped.set(label, refs);
  }

  result(kind: string, published: string | null): ParsedSanctionsList {
    const skipped = Object.fromEntries([...this.skipped].map(([type, refs]) => [type, refs.size]));
    return { kind, list: this.list, published, records: this.records, entities: this.seen.size, skipped };
  }
}

/** Largest file an importer accepts, in bytes and so in characters of its text: the official files are tens of megabytes. */
export const MAX_SANCTIONS_TEXT = 256 * 1024 * 1024;

/** Throws when `text` is over the size bound or empty, naming the file kind. */
export function checkSize(text: string, what: string): void {
  if (text.length > MAX_SANCTIONS_TEXT) throw new Error(`${what}: the file is larger than ${MAX_SANCTIONS_TEXT / 1024 / 1024} MB`);
  if (!text.trim()) throw new Error(`${what}: the file is empty`);
}

/** Whether the text is XML rather than CSV: after a byte order mark and blank space, it opens a tag. */
export function looksLikeXml(text: string): boolean {
  for (let i = 0; i < text.length && i < 4096; i++) {
    const c = text[i];
    if (c === '\ufeff' || c === ' ' || c === '\t' || c === '\r' || c === '\n') continue;
    return c === '<';
  }
  return false;
}
