/** The shipped catalogue (connector/data/datasets/catalogue.json): how each dataset is read and where it comes from. */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { CADENCES } from '../../../shared/dataset.js';
import type { DatasetMeta, SeriesPoint, Store } from '../store/types.js';
import { readCsvSeries, stepToMonthEnd } from './read-series.js';

const ZRefresh = z.object({
  url: z.url(),
  format: z.enum(['csv', 'json']),
  date_column: z.string().optional(),
  value_column: z.string().optional(),
  path: z.string().optional(),
});

export const ZCatalogueEntry = z.object({
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]{1,80}$/),
  title: z.string().min(1),
  description: z.string(),
  category: z.string().min(1),
  source: z.string().min(1),
  source_url: z.url(),
  licence: z.string().optional(),
  cadence: z.enum(CADENCES),
  unit: z.string(),
  file: z.string(),
  date_column: z.string(),
  value_column: z.string(),
  filter: z.record(z.string(), z.array(z.string())).optional(),
  transform: z.enum(['step_to_month_end']).optional(),
  provenance: z.string(),
  refresh: ZRefresh.optional(),
});
export type CatalogueEntry = z.infer<typeof ZCatalogueEntry>;

const ZCatalogue = z.object({ description: z.string(), datasets: z.array(ZCatalogueEntry) });

export function readCatalogue(dir: string): CatalogueEntry[] {
  const parsed = ZCatalogue.parse(JSON.parse(fs.readFileSync(path.join(dir, 'catalogue.json'), 'utf8')));
  const slugs = new Set<string>();
  for (const d of parsed.datasets) {
    if (slugs.has(d.slug)) throw new Error(`catalogue.json: slug ${d.slug} appears twice`);
    slugs.add(d.slug);
  }
  return parsed.datasets;
}

export function entryMeta(e: CatalogueEntry): DatasetMeta {
  return {
    slug: e.slug,
    title: e.title,
    description: e.description,
    category: e.category,
    source: e.source,
    source_url: e.source_url,
    licence: e.licence ?? null,
    cadence: e.cadence,
    unit: e.unit,
    refresh: e.refresh ?? null,
  };
}

export function entryPoints(dir: string, e: CatalogueEntry, now: Date): SeriesPoint[] {
  const points = readCsvSeries(fs.readFileSync(path.join(dir, e.file), 'utf8'), {
    date_column: e.date_column,
    value_column: e.value_column,
    filter: e.filter,
  });
  return e.transform === 'step_to_month_end' ? stepToMonthEnd(points, now.toISOString().slice(0, 10)) : points;
}

/**
 * Loads every shipped dataset whose points are not in the store yet (a refreshed or operator-loaded
 * series is never overwritten by the shipped copy); metadata is always brought up to date.
 */
export async function seedDatasets(store: Pick<Store, 'datasets'>, dir: string, now: Date): Promise<number> {
  let loaded = 0;
  const at = now.toISOString();
  for (const e of readCatalogue(dir)) {
    const existing = await store.datasets.get(e.slug);
    await store.datasets.upsert(entryMeta(e), at);
    if (!existing || existing.point_count === 0) {
      await store.datasets.writePoints(e.slug, entryPoints(dir, e, now), 'replace', at);
      loaded++;
    }
  }
  return loaded;
}
