/** Every route's handlers, by name: the groups together must name each route of the table (shared/routes/) once. */
import type { RouteName } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { accountHandlers } from './account.js';
import { datasetHandlers } from './datasets.js';
import { historyHandlers } from './history.js';
import { jobHandlers } from './jobs.js';
import { metaHandlers } from './meta.js';
import { sheetHandlers } from './sheets.js';
import type { RouteHandlers } from './types.js';
import { verifyHandlers } from './verify.js';
import { watchHandlers } from './watches.js';

export function routeHandlers(ctx: AppContext): RouteHandlers<RouteName> {
  return {
    ...metaHandlers(ctx),
    ...verifyHandlers(ctx),
    ...jobHandlers(ctx),
    ...historyHandlers(ctx),
    ...watchHandlers(ctx),
    ...sheetHandlers(ctx),
    ...accountHandlers(ctx),
    ...datasetHandlers(ctx),
  };
}
