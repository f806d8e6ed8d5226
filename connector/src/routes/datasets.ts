/**
 * Dataset routes (spec 4.7, 4.8). Public: no key needed, rate-limited per IP. A key may be sent to
 * use its own (larger) budget; a key that is sent must be valid and hold the datasets scope, so a
 * misconfigured client finds out rather than silently falling back to the IP budget.
 */
import type { RequestHandler } from 'express';
import type { AppContext } from '../context.js';
import { ZDatasetListQuerySchema, ZSeriesQuerySchema } from '../../../shared/dataset.js';
import { getDataset, listDatasets, readSeries } from '../datasets/query.js';
import { parseQuery } from '../http/query.js';
import { requireKey, requireScope } from '../http/auth.js';
import type { RateLimits } from '../http/rate-limit.js';

export interface PublicRoute {
  path: string;
  handlers: RequestHandler[];
}

export function datasetRoutes(ctx: AppContext, limits: RateLimits): PublicRoute[] {
  const auth = requireKey(ctx, limits);
  const scope = requireScope('datasets');
  const optionalKey: RequestHandler = (req, res, next) => {
    if (req.get('authorization') === undefined) return limits.perIp(req, res, next);
    // Keyed: authenticate, check the scope, spend the key's budget.
    Promise.resolve(
      auth(req, res, (err?: unknown) => {
        if (err) return next(err);
        scope(req, res, (err2?: unknown) => (err2 ? next(err2) : void limits.perKey(req, res, next)));
      }),
    ).catch(next);
  };
  const store = ctx.store.datasets;
  return [
    {
      path: '/datasets',
      handlers: [
        optionalKey,
        async (req, res) => {
          res.json(await listDatasets(store, parseQuery(ZDatasetListQuerySchema, req.query as Record<string, unknown>)));
        },
      ],
    },
    {
      path: '/datasets/:slug',
      handlers: [
        optionalKey,
        async (req, res) => {
          res.json(await getDataset(store, String(req.params.slug)));
        },
      ],
    },
    {
      path: '/datasets/:slug/series',
      handlers: [
        optionalKey,
        async (req, res) => {
          res.json(await readSeries(store, String(req.params.slug), parseQuery(ZSeriesQuerySchema, req.query as Record<string, unknown>)));
        },
      ],
    },
  ];
}
