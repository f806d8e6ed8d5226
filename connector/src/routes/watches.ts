/** Watches: policies re-verified on a cadence, reporting what changed (docs/monitoring.md). */
import { ROUTES } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { currentKey } from '../http/auth.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { parseOrRefuse } from '../parse.js';
import { createWatch, deleteWatch, getWatch, listWatches, pauseWatch, resumeWatch, type CreateWatchDeps } from '../watches/index.js';
import type { RouteHandlers } from './types.js';

type WatchRoute = 'watchCreate' | 'watchList' | 'watchGet' | 'watchPause' | 'watchResume' | 'watchDelete';

export function watchHandlers(ctx: AppContext): RouteHandlers<WatchRoute> {
  const notify = () => ctx.watches.notify();
  const deps: CreateWatchDeps = {
    store: ctx.store,
    sheetBindings: ctx.sheets?.bindings ?? null,
    allowPrivateWebhooks: ctx.config.webhooks.allowPrivate,
    lookup: ctx.lookup,
    now: ctx.now,
    notify,
  };
  const id = (params: Record<string, unknown>) => String(params.watch_id);
  return {
    watchCreate: [
      async (req, res) => {
        const idemKey = idempotencyKeyOf(res);
        res.status(201).json(await createWatch(req.body, currentKey(res), deps, idemKey ? { idemKey } : {}));
      },
    ],
    watchList: [
      async (_req, res) => {
        res.json({ watches: await listWatches(currentKey(res).id, ctx.store) });
      },
    ],
    watchGet: [
      async (req, res) => {
        res.json(await getWatch(currentKey(res).id, id(req.params), ctx.store));
      },
    ],
    watchPause: [
      async (req, res) => {
        // The body is optional: none reads as {}.
        parseOrRefuse(ROUTES.watchPause.request.body, req.body ?? {});
        res.json(await pauseWatch(currentKey(res).id, id(req.params), { store: ctx.store, now: ctx.now }));
      },
    ],
    watchResume: [
      async (req, res) => {
        parseOrRefuse(ROUTES.watchResume.request.body, req.body ?? {});
        res.json(await resumeWatch(currentKey(res).id, id(req.params), { store: ctx.store, notify }));
      },
    ],
    watchDelete: [
      async (req, res) => {
        await deleteWatch(currentKey(res).id, id(req.params), ctx.store);
        res.status(204).end();
      },
    ],
  };
}
