/** The dataset catalogue in SQLite: metadata, an FTS5 index over it, and clustered series points. */
import type Database from 'better-sqlite3';
import type { DatasetMeta, DatasetStore, SeriesPoint } from '../types/datasets.js';
import type { Db } from './db.js';
import { toDataset, type Row } from './rows.js';

/** FTS5: every term a quoted prefix term, all required (terms are letters and digits only, datasets/search-query.ts). */
export function toFtsQuery(terms: string[]): string {
  return terms.map((w) => `"${w}"*`).join(' AND ');
}

export function datasetStore(db: Db): DatasetStore {
  const q = {
    upsert:
      db.prepare(`INSERT INTO datasets (slug, title, description, category, source, source_url, licence, cadence, unit, refresh, updated_at)
      VALUES (@slug, @title, @description, @category, @source, @source_url, @licence, @cadence, @unit, @refresh, @at)
      ON CONFLICT (slug) DO UPDATE SET title = excluded.title, description = excluded.description, category = excluded.category,
        source = excluded.source, source_url = excluded.source_url, licence = excluded.licence, cadence = excluded.cadence,
        unit = excluded.unit, refresh = excluded.refresh, updated_at = excluded.updated_at`),
    ftsDelete: db.prepare('DELETE FROM datasets_fts WHERE slug = ?'),
    ftsInsert: db.prepare('INSERT INTO datasets_fts (slug, title, description, category, source) VALUES (?, ?, ?, ?, ?)'),
    pointsDelete: db.prepare('DELETE FROM dataset_points WHERE slug = ?'),
    pointUpsert: db.prepare(
      'INSERT INTO dataset_points (slug, date, value) VALUES (?, ?, ?) ON CONFLICT (slug, date) DO UPDATE SET value = excluded.value',
    ),
    stats: db.prepare(`UPDATE datasets SET point_count = (SELECT count(*) FROM dataset_points WHERE slug = @slug),
        first_date = (SELECT min(date) FROM dataset_points WHERE slug = @slug), last_date = (SELECT max(date) FROM dataset_points WHERE slug = @slug),
        last_refreshed_at = @at, last_refresh_attempt_at = @at, last_refresh_error = NULL WHERE slug = @slug`),
    failure: db.prepare('UPDATE datasets SET last_refresh_attempt_at = ?, last_refresh_error = ? WHERE slug = ?'),
    get: db.prepare('SELECT * FROM datasets WHERE slug = ?'),
    latest: db.prepare('SELECT date, value FROM dataset_points WHERE slug = ? ORDER BY date DESC LIMIT ?'),
    earliest: db.prepare('SELECT date, value FROM dataset_points WHERE slug = ? ORDER BY date ASC LIMIT ?'),
    refreshable: db.prepare('SELECT * FROM datasets WHERE refresh IS NOT NULL ORDER BY slug'),
    count: db.prepare('SELECT count(*) AS n FROM datasets'),
  };

  const upsertTx = db.transaction((meta: DatasetMeta, at: string) => {
    q.upsert.run({ ...meta, refresh: meta.refresh ? JSON.stringify(meta.refresh) : null, at });
    q.ftsDelete.run(meta.slug);
    q.ftsInsert.run(meta.slug, meta.title, meta.description, meta.category, meta.source);
  });

  const writeTx = db.transaction((slug: string, points: SeriesPoint[], mode: 'replace' | 'merge', at: string) => {
    if (mode === 'replace') q.pointsDelete.run(slug);
    for (const p of points) q.pointUpsert.run(slug, p.date, p.value);
    q.stats.run({ slug, at });
    return points.length;
  });

  // Statements for search differ by which filters are present; prepared once per shape.
  const searchCache = new Map<string, { page: Database.Statement; total: Database.Statement }>();
  function searchStatements(hasQ: boolean, filters: string[]) {
    const key = `${hasQ}|${filters.join(',')}`;
    let s = searchCache.get(key);
    if (!s) {
      const rank = 'bm25(datasets_fts, 0, 10.0, 2.0, 4.0, 4.0)';
      if (hasQ && filters.length === 0) {
        // Without filters the ranking and the count need only the FTS table: rank there, then
        // join just the page (about 3x cheaper than joining every match; measured in bench/datasets).
        s = {
          page: db.prepare(`SELECT d.* FROM (SELECT slug, ${rank} AS r FROM datasets_fts WHERE datasets_fts MATCH @q ORDER BY r, slug LIMIT @limit OFFSET @offset) s
            JOIN datasets d ON d.slug = s.slug ORDER BY s.r, s.slug`),
          total: db.prepare('SELECT count(*) AS n FROM datasets_fts WHERE datasets_fts MATCH @q'),
        };
        searchCache.set(key, s);
        return s;
      }
      const where = filters.map((f) => `d.${f} = @${f} COLLATE NOCASE`);
      if (hasQ) {
        // Filters need the datasets table: rank every match in the FTS table, filter in the join,
        // and count in the same pass (the count query is only needed for a page past the end).
        const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
        s = {
          page: db.prepare(`SELECT d.*, count(*) OVER () AS total_rows FROM (SELECT slug, ${rank} AS r FROM datasets_fts WHERE datasets_fts MATCH @q) s
            JOIN datasets d ON d.slug = s.slug ${clause} ORDER BY s.r, s.slug LIMIT @limit OFFSET @offset`),
          total: db.prepare(
            `SELECT count(*) AS n FROM datasets_fts f JOIN datasets d ON d.slug = f.slug WHERE datasets_fts MATCH @q${where.length ? ` AND ${where.join(' AND ')}` : ''}`,
          ),
        };
        searchCache.set(key, s);
        return s;
      }
      const from = 'datasets d';
      const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
      // bm25 weights: title counts most, then category and source, then description.
      const order = 'ORDER BY d.title COLLATE NOCASE, d.slug';
      s = {
        page: db.prepare(`SELECT d.* FROM ${from} ${clause} ${order} LIMIT @limit OFFSET @offset`),
        total: db.prepare(`SELECT count(*) AS n FROM ${from} ${clause}`),
      };
      searchCache.set(key, s);
    }
    return s;
  }

  return {
    async upsert(meta, at) {
      upsertTx.immediate(meta, at);
    },
    async writePoints(slug, points, mode, at) {
      return writeTx.immediate(slug, points, mode, at);
    },
    async recordRefreshFailure(slug, error, at) {
      q.failure.run(at, error, slug);
    },
    async get(slug) {
      const r = q.get.get(slug) as Row | undefined;
      return r ? toDataset(r) : null;
    },
    async search(query) {
      const filters = (['category', 'source', 'cadence'] as const).filter((f) => query[f] !== undefined);
      const hasQ = Boolean(query.terms?.length);
      const s = searchStatements(hasQ, filters);
      const params: Record<string, unknown> = { limit: query.limit, offset: query.offset };
      if (hasQ) params.q = toFtsQuery(query.terms!);
      for (const f of filters) params[f] = query[f];
      const rows = s.page.all(params) as Row[];
      // Filtered searches carry their total on every row; otherwise (or past the end) count.
      const windowTotal = rows[0]?.total_rows as number | undefined;
      if (windowTotal !== undefined) return { items: rows.map(toDataset), total: windowTotal };
      const { limit: _l, offset: _o, ...countParams } = params;
      return { items: rows.map(toDataset), total: (s.total.get(countParams) as { n: number }).n };
    },
    async series(slug, limit, direction) {
      const rows = (direction === 'latest' ? q.latest : q.earliest).all(slug, limit) as SeriesPoint[];
      return direction === 'latest' ? rows.reverse() : rows;
    },
    async refreshable() {
      return (q.refreshable.all() as Row[]).map(toDataset);
    },
    async count() {
      return (q.count.get() as { n: number }).n;
    },
  };
}
