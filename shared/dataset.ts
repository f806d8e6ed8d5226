/** Dataset catalogue and series (spec 2.5, 4.7, 4.8). */
import { z } from 'zod';

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
    last_refreshed_at: z.string().nullable(),
    point_count: z.number().int(),
  })
  .meta({ id: 'Dataset' });
export type TDataset = z.infer<typeof ZDatasetSchema>;

export const ZSeriesPointSchema = z
  .object({ date: z.string().meta({ description: 'YYYY-MM-DD' }), value: z.number() })
  .meta({ id: 'SeriesPoint' });
export type TSeriesPoint = z.infer<typeof ZSeriesPointSchema>;

export const ZDatasetListSchema = z
  .object({ datasets: z.array(ZDatasetSchema), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'DatasetList' });

export const ZSeriesSchema = z
  .object({
    slug: z.string(),
    direction: z.enum(['latest', 'earliest']),
    limit: z.number().int(),
    points: z.array(ZSeriesPointSchema),
  })
  .meta({ id: 'Series' });
