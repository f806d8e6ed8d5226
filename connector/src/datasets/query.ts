/** GET /api/v1/datasets and /datasets/{slug}/series as plain functions: validate the query, read, shape. */
import { z } from 'zod';
import { ZDatasetListQuerySchema, ZSeriesQuerySchema, type TDataset } from '../../../shared/dataset.js';
import { AppError } from '../errors.js';
import type { DatasetStore } from '../store/types.js';
import { searchTerms } from './search-query.js';
import { datasetView } from './views.js';

function badQuery(err: z.ZodError): AppError {
  const issue = err.issues[0]!;
  if (issue.code === 'unrecognized_keys') return new AppError('invalid_request', `Unknown query parameter${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}.`);
  const field = issue.path.join('.');
  if (field === 'cadence') return new AppError('invalid_request', 'cadence must be one of daily, weekly, monthly, quarterly.');
  if (field === 'direction') return new AppError('invalid_request', 'direction must be latest or earliest.');
  return new AppError('invalid_request', field ? `${field}: ${issue.message}.` : issue.message);
}

/** Repeated parameters (?q=a&q=b) arrive as arrays; they are refused rather than guessed at. */
function singleValues(query: Record<string, unknown>): Record<string, unknown> {
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') throw new AppError('invalid_request', `Query parameter ${k} must be given once, as text.`);
  }
  return query;
}

export async function listDatasets(store: DatasetStore, rawQuery: Record<string, unknown>) {
  const parsed = ZDatasetListQuerySchema.safeParse(singleValues(rawQuery));
  if (!parsed.success) throw badQuery(parsed.error);
  const { q, category, source, cadence, limit, offset } = parsed.data;
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

export async function readSeries(store: DatasetStore, slug: string, rawQuery: Record<string, unknown>) {
  const parsed = ZSeriesQuerySchema.safeParse(singleValues(rawQuery));
  if (!parsed.success) throw badQuery(parsed.error);
  const d = await store.get(slug);
  if (!d) throw new AppError('not_found', `No dataset "${slug}". List them at /api/v1/datasets.`);
  const { limit, direction } = parsed.data;
  return { slug, direction, limit, points: await store.series(slug, limit, direction) };
}
