/** Storage of the dataset catalogue: metadata, its search, and series points. */

export type Cadence = 'daily' | 'weekly' | 'monthly' | 'quarterly';

/** Where and how the refresher fetches a dataset's points (CSV or JSON adapter). */
export interface RefreshSource {
  url: string;
  format: 'csv' | 'json';
  date_column?: string;
  value_column?: string;
  /** JSON: dotted path to the array of points in the document (default: the document itself). */
  path?: string;
}

export interface DatasetMeta {
  slug: string;
  title: string;
  description: string;
  category: string;
  source: string;
  source_url: string;
  licence: string | null;
  cadence: Cadence;
  unit: string;
  refresh: RefreshSource | null;
}

export interface DatasetRecord extends DatasetMeta {
  first_date: string | null;
  last_date: string | null;
  point_count: number;
  last_refreshed_at: string | null;
  last_refresh_attempt_at: string | null;
  last_refresh_error: string | null;
  updated_at: string;
}

export interface SeriesPoint {
  date: string;
  value: number;
}

export interface DatasetQuery {
  /** Search words from datasets/search-query.ts; every one must match, as a prefix. */
  terms?: string[];
  category?: string;
  source?: string;
  cadence?: Cadence;
  limit: number;
  offset: number;
}

export interface DatasetStore {
  /** Creates or updates the metadata (and its search index entry); points are untouched. */
  upsert(meta: DatasetMeta, at: string): Promise<void>;
  /**
   * Writes points: `replace` swaps the whole series, `merge` adds and overwrites by date. In one
   * transaction with the dataset's counts, range and last_refreshed_at.
   */
  writePoints(slug: string, points: SeriesPoint[], mode: 'replace' | 'merge', at: string): Promise<number>;
  recordRefreshFailure(slug: string, error: string, at: string): Promise<void>;
  get(slug: string): Promise<DatasetRecord | null>;
  /** Ranked by relevance when `terms` are given (title counts most), otherwise by title. */
  search(query: DatasetQuery): Promise<{ items: DatasetRecord[]; total: number }>;
  /** `limit` points from the latest or earliest end, returned in ascending date order. */
  series(slug: string, limit: number, direction: 'latest' | 'earliest'): Promise<SeriesPoint[]>;
  /** Datasets with a refresh source. */
  refreshable(): Promise<DatasetRecord[]>;
  count(): Promise<number>;
}
