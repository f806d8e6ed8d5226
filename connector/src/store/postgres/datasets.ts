/**
 * The dataset catalogue in PostgreSQL: metadata with a weighted tsvector (GIN-indexed) for
 * search, and series points keyed by (slug, date).
 *
 * Search matches SQLite's FTS5 setup: every term a required prefix, accents ignored. Accent
 * folding happens here in JS for both the indexed text and the terms, rather than with the
 * `unaccent` extension, which needs a superuser to install.
 */
import type { DatasetStore, SeriesPoint } from '../types/datasets.js';
import { all, one, tx, type Db } from './db.js';
import { toDataset } from './rows.js';

/** Lower case, accents removed ("Zürich" -> "zurich"), as SQLite's `remove_diacritics 2`. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
}

/** Terms are letters and digits only (datasets/search-query.ts), so they need no escaping. */
function toTsQuery(terms: string[]): string {
  return terms.map((t) => `${fold(t)}:*`).join(' & ');
}

const COLS = `slug, title, description, category, source, source_url, licence, cadence, unit, refresh, first_date, last_date, point_count,
  last_refreshed_at, last_refresh_attempt_at, last_refresh_error, updated_at`;

export function datasetStore(db: Db): DatasetStore {
  return {
    async upsert(meta, at) {
      await db.query(
        `INSERT INTO datasets (slug, title, description, category, source, source_url, licence, cadence, unit, refresh, updated_at, search)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11,
           setweight(to_tsvector('simple', $12), 'A') || setweight(to_tsvector('simple', $13), 'B') || setweight(to_tsvector('simple', $14), 'C'))
         ON CONFLICT (slug) DO UPDATE SET title = excluded.title, description = excluded.description, category = excluded.category,
           source = excluded.source, source_url = excluded.source_url, licence = excluded.licence, cadence = excluded.cadence,
           unit = excluded.unit, refresh = excluded.refresh, updated_at = excluded.updated_at, search = excluded.search`,
        [
          meta.slug,
          meta.title,
          meta.description,
          meta.category,
          meta.source,
          meta.source_url,
          meta.licence,
          meta.cadence,
          meta.unit,
          meta.refresh ? JSON.stringify(meta.refresh) : null,
          at,
          fold(meta.title),
          fold(`${meta.category} ${meta.source}`),
          fold(meta.description),
        ],
      );
    },
    async writePoints(slug, points, mode, at) {
      // Last value wins for a date given twice, as sequential upserts would do (one INSERT can't touch a row twice).
      const byDate = new Map<string, number>();
      for (const p of points) byDate.set(p.date, p.value);
      return tx(db, async (c) => {
        if (mode === 'replace') await c.query('DELETE FROM dataset_points WHERE slug = $1', [slug]);
        await c.query(
          `INSERT INTO dataset_points (slug, date, value) SELECT $1, d, v FROM unnest($2::date[], $3::float8[]) AS t(d, v)
           ON CONFLICT (slug, date) DO UPDATE SET value = excluded.value`,
          [slug, [...byDate.keys()], [...byDate.values()]],
        );
        await c.query(
          `UPDATE datasets SET (point_count, first_date, last_date) = (SELECT count(*)::int, min(date), max(date) FROM dataset_points WHERE slug = $1),
             last_refreshed_at = $2, last_refresh_attempt_at = $2, last_refresh_error = NULL WHERE slug = $1`,
          [slug, at],
        );
        return points.length;
      });
    },
    async recordRefreshFailure(slug, error, at) {
      await db.query('UPDATE datasets SET last_refresh_attempt_at = $1, last_refresh_error = $2 WHERE slug = $3', [at, error, slug]);
    },
    async get(slug) {
      const r = await one(db, `SELECT ${COLS} FROM datasets WHERE slug = $1`, [slug]);
      return r ? toDataset(r) : null;
    },
    async search(query) {
      const params: unknown[] = [];
      const where: string[] = [];
      const hasTerms = Boolean(query.terms?.length);
      if (hasTerms) {
        params.push(toTsQuery(query.terms!));
        where.push(`search @@ to_tsquery('simple', $${params.length})`);
      }
      for (const f of ['category', 'source', 'cadence'] as const) {
        if (query[f] === undefined) continue;
        params.push(query[f]);
        where.push(`lower(${f}) = lower($${params.length})`);
      }
      // ts_rank's default weights (A 1.0, B 0.4, C 0.2) rank title matches above the rest, as bm25's column weights do in SQLite.
      const order = hasTerms
        ? `ts_rank(search, to_tsquery('simple', $1)) DESC, slug COLLATE "C"`
        : `lower(title) COLLATE "C", slug COLLATE "C"`;
      params.push(query.limit, query.offset);
      const rows = await all(
        db,
        `SELECT ${COLS}, count(*) OVER ()::int AS total_rows FROM datasets ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY ${order} LIMIT $${params.length - 1} OFFSET $${params.length}`,
        params,
      );
      const windowTotal = rows[0]?.total_rows as number | undefined;
      if (windowTotal !== undefined) return { items: rows.map(toDataset), total: windowTotal };
      // A page past the end has no row to carry the total: count separately.
      const count = await one<{ n: number }>(
        db,
        `SELECT count(*)::int AS n FROM datasets ${where.length ? `WHERE ${where.join(' AND ')}` : ''}`,
        params.slice(0, -2),
      );
      return { items: [], total: count!.n };
    },
    async series(slug, limit, direction) {
      const rows = await all<SeriesPoint>(
        db,
        `SELECT date, value FROM dataset_points WHERE slug = $1 ORDER BY date ${direction === 'latest' ? 'DESC' : 'ASC'} LIMIT $2`,
        [slug, limit],
      );
      return direction === 'latest' ? rows.reverse() : rows;
    },
    async refreshable() {
      return (await all(db, `SELECT ${COLS} FROM datasets WHERE refresh IS NOT NULL ORDER BY slug COLLATE "C"`)).map(toDataset);
    },
    async count() {
      return (await one<{ n: number }>(db, 'SELECT count(*)::int AS n FROM datasets'))!.n;
    },
  };
}
