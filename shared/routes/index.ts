/**
 * The route table: every route the connector serves, in the order app.ts mounts them. The connector
 * gives each name its handlers (connector/src/routes/); the OpenAPI document is a loop over this table.
 */
import { accountRoutes } from './account.js';
import { datasetRoutes } from './datasets.js';
import { historyRoutes } from './history.js';
import { jobRoutes } from './jobs.js';
import { metaRoutes } from './meta.js';
import { sheetRoutes } from './sheets.js';
import type { RouteContract } from './types.js';
import { verifyRoutes } from './verify.js';
import { watchRoutes } from './watches.js';

export const ROUTES = {
  ...metaRoutes,
  ...verifyRoutes,
  ...jobRoutes,
  ...historyRoutes,
  ...watchRoutes,
  ...sheetRoutes,
  ...accountRoutes,
  ...datasetRoutes,
} satisfies Record<string, RouteContract>;

export type RouteName = keyof typeof ROUTES;

export { ASYNC_BODY_LIMIT } from './jobs.js';
export * from './types.js';
