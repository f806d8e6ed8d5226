/** The dataset catalogue (spec 4.7, 4.8); who may call it (no key, or a key with the datasets scope) is the route's access in the table. */
import { ROUTES } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { getDataset, listDatasets, readSeries } from '../datasets/query.js';
import { parseQuery } from '../http/query.js';
import type { RouteHandlers } from './types.js';

export function datasetHandlers(ctx: AppContext): RouteHandlers<'datasetList' | 'dataset' | 'datasetSeries'> {
  const store = ctx.store.datasets;
  return {
    datasetList: [
      async (req, res) => {
        res.json(await listDatasets(store, parseQuery(ROUTES.datasetList.request.query, req.query as Record<string, unknown>)));
      },
    ],
    dataset: [
      async (req, res) => {
        res.json(await getDataset(store, String(req.params.slug)));
      },
    ],
    datasetSeries: [
      async (req, res) => {
        res.json(
          await readSeries(
            store,
            String(req.params.slug),
            parseQuery(ROUTES.datasetSeries.request.query, req.query as Record<string, unknown>),
          ),
        );
      },
    ],
  };
}
