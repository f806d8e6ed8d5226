/** GET /api/v1/datasets and /datasets/{slug}/series as plain functions: read with a parsed query, shape. */
import type { TDataset, TDatasetListQuery, TSeriesQuery } from '../../../shared/dataset.js';
import { AppError } from '../errors.js';
import type { DatasetStore } from '../store/types.js';
import { searchTerms } from './search-query.js';
import { datasetView } from './views.js';

export async function listDatasets(store: DatasetStore, query: TDatasetListQuery) {
  const { q, category, source, cadence, limit, offset } = query;
  // A q without a letter or digit lists as if absent: a search box cleared to "" or holding only
  // punctuation is a user still typing, not an error (docs/datasets.md).
  const terms = q ? searchTerms(q) : null;
  const { items, total } = await store.search({
    ...(terms ? { terms } : {}),
    ...(category ? { category } : {}),
    ...(source ? { source } : {}),
    ...(cadence ? { cadence } : {}),
    limit,
    offset,
  });
  return { datasets: items.map(datasetView), total, limit, offset };
}

export async function getDataset(store: DatasetStore, slug: string): Promise<TDataset> {
  const d = await store.get(slug);
  if (!d) throw new AppError('not_found', `No dataset "${slug}". List them at /api/v1/datasets.`);
  return datasetView(d);
}

export async function readSeries(store: DatasetStore, slug: string, query: TSeriesQuery) {
  const d = await store.get(slug);
  if (!d) throw new AppError('not_found', `No dataset "${slug}". List them at /api/v1/datasets.`);
  const { limit, direction } = query;
  return { slug, direction, limit, points: await store.series(slug, limit, direction) };
}
