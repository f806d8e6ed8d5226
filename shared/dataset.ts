/** Dataset catalogue and series (spec 2.5, 4.7, 4.8). */
import { z } from 'zod';
import { intQueryParam } from './query.js';

export const CADENCES = ['daily', 'weekly', 'monthly', 'quarterly'] as const;
export const ZCadenceSchema = z.enum(CADENCES).meta({ id: 'Cadence' });

export const ZDatasetSchema = z
  .object({
    slug: z.string(),
    title: z.string(),
    description: z.string(),
    category: z.string(),
    source: z.string().meta({ description: 'The publisher.' }),
    source_url: z.string(),
    cadence: ZCadenceSchema,
    unit: z.string(),
    first_date: z.string().nullable(),
    last_date: z.string().nullable(),
    last_refreshed_at: z.string().nullable().meta({ description: 'When the points were last loaded or refreshed.' }),
    point_count: z.number().int(),
    licence: z.string().nullable(),
    refresh: z
      .object({ url: z.string(), last_attempt_at: z.string().nullable(), last_error: z.string().nullable() })
      .nullable()
      .meta({ description: 'The automatic refresh source and its last outcome, when the dataset has one.' }),
  })
  .meta({ id: 'Dataset' });
export type TDataset = z.infer<typeof ZDatasetSchema>;

export const ZSeriesPointSchema = z
  .object({ date: z.string().meta({ description: 'YYYY-MM-DD' }), value: z.number() })
  .meta({ id: 'SeriesPoint' });
export type TSeriesPoint = z.infer<typeof ZSeriesPointSchema>;

/** Largest page of datasets and largest series read, documented limits. */
export const MAX_DATASET_PAGE = 200;
export const MAX_SERIES_POINTS = 5000;

/** Query of GET /api/v1/datasets: the server reads it with this schema and the OpenAPI document shows it. Unknown parameters are refused. */
export const ZDatasetListQuerySchema = z
  .object({
    q: z
      .string()
      .max(200)
      .optional()
      .meta({
        description:
          'Full-text search over title, description, category and source; words are ANDed, prefixes match. Any text up to 200 characters is accepted: ' +
          'search syntax is ignored, and a q with no letter or digit (empty, spaces, punctuation) searches nothing and lists as if it were absent.',
      }),
    category: z.string().trim().min(1).max(100).optional().meta({ description: 'Exact category, case-insensitive.' }),
    source: z.string().trim().min(1).max(200).optional().meta({ description: 'Exact publisher, case-insensitive.' }),
    cadence: ZCadenceSchema.optional(),
    limit: intQueryParam('limit', 1, MAX_DATASET_PAGE, 50).meta({ description: `1 to ${MAX_DATASET_PAGE}, default 50.` }),
    offset: intQueryParam('offset', 0, 100_000, 0).meta({ description: '0 to 100000, default 0.' }),
  })
  .strict();
export type TDatasetListQuery = z.output<typeof ZDatasetListQuerySchema>;

/** Query of GET /api/v1/datasets/{slug}/series. */
export const ZSeriesQuerySchema = z
  .object({
    limit: intQueryParam('limit', 1, MAX_SERIES_POINTS, 100).meta({ description: `1 to ${MAX_SERIES_POINTS}, default 100.` }),
    direction: z
      .enum(['latest', 'earliest'])
      .default('latest')
      .meta({ description: 'Which end of the series: latest (default) or earliest.' }),
  })
  .strict();
export type TSeriesQuery = z.output<typeof ZSeriesQuerySchema>;

export const ZDatasetListSchema = z
  .object({ datasets: z.array(ZDatasetSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'DatasetList' });

export const ZSeriesSchema = z
  .object({
    slug: z.string(),
    direction: z.enum(['latest', 'earliest']),
    limit: z.number().int(),
    points: z
      .array(ZSeriesPointSchema)
      .meta({ description: 'Always in ascending date order; direction chooses which end of the series they come from.' }),
  })
  .meta({ id: 'Series' });
