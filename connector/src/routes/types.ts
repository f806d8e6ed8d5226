/** The connector's half of a route: its own handlers, by the route's name in the table (shared/routes/). */
import type { RequestHandler } from 'express';
import type { RouteName } from '../../../shared/routes/index.js';

/**
 * Handlers for the routes `N`, run after the middleware the route's contract mounts (app.ts: access,
 * body reader, idempotency, scope). A group of routes returns its names; routes/index.ts checks that
 * the groups together name every route of the table.
 */
export type RouteHandlers<N extends RouteName> = { [K in N]: RequestHandler[] };
