/** The dataset catalogue (spec 4.7, 4.8): public, limited per IP; a key that is sent must hold the datasets scope. */
import { ZDatasetListQuerySchema, ZDatasetListSchema, ZDatasetSchema, ZSeriesQuerySchema, ZSeriesSchema } from '../dataset.js';
import { ok, type RouteContract } from './types.js';

const PUBLIC =
  'Public: no key needed, rate-limited per IP. A key may be sent to use its own budget; a key that is sent must be valid and hold the datasets scope.';

export const datasetRoutes = {
  datasetList: {
    method: 'get',
    path: '/api/v1/datasets',
    access: 'key-or-ip',
    scope: 'datasets',
    summary: 'Search and list the dataset catalogue',
    description: `${PUBLIC} Without q, datasets are ordered by title.`,
    request: { query: ZDatasetListQuerySchema },
    responses: { 200: ok(ZDatasetListSchema, 'A page of datasets and the total') },
  },
  dataset: {
    method: 'get',
    path: '/api/v1/datasets/:slug',
    access: 'key-or-ip',
    scope: 'datasets',
    summary: 'One dataset',
    description: PUBLIC,
    responses: { 200: ok(ZDatasetSchema, 'The dataset') },
  },
  datasetSeries: {
    method: 'get',
    path: '/api/v1/datasets/:slug/series',
    access: 'key-or-ip',
    scope: 'datasets',
    summary: 'Points of a dataset',
    description: `${PUBLIC} Points are always in ascending date order; direction picks which end of the series they come from.`,
    request: { query: ZSeriesQuerySchema },
    responses: { 200: ok(ZSeriesSchema, 'The points') },
  },
} satisfies Record<string, RouteContract>;
