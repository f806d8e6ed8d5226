/** Dataset records -> the contract's bodies. */
import type { TDataset } from '../../../shared/dataset.js';
import type { DatasetRecord } from '../store/types.js';

export function datasetView(d: DatasetRecord): TDataset {
  return {
    slug: d.slug,
    title: d.title,
    description: d.description,
    category: d.category,
    source: d.source,
    source_url: d.source_url,
    cadence: d.cadence,
    unit: d.unit,
    first_date: d.first_date,
    last_date: d.last_date,
    last_refreshed_at: d.last_refreshed_at,
    point_count: d.point_count,
    licence: d.licence,
    refresh: d.refresh ? { url: d.refresh.url, last_attempt_at: d.last_refresh_attempt_at, last_error: d.last_refresh_error } : null,
  };
}
