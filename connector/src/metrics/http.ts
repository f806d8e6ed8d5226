/**
 * The request metric: every HTTP answer counted and timed by route and status. The route is its name
 * in the route table (shared/routes/), read once per Express route from the route Express matched
 * (req.route) and kept with it; a request that matched none is `unmatched`. A path's own values (ids,
 * slugs, whatever a scanner tries) never become a label.
 *
 * Per request: a timestamp on the response, one `finish` listener shared by all requests, and one
 * observation into a series made the first time its route and status were seen; nothing allocated.
 */
import type { RequestHandler, Request, Response } from 'express';
import { ROUTES, type RouteContract } from '../../../shared/routes/index.js';
import type { Series, SeriesHistogram } from './series-histogram.js';

const STARTED = Symbol('metrics: request started');

/** Routes mounted beside the table (app.ts), by Express path: their label. */
const BESIDE_THE_TABLE: Readonly<Record<string, string>> = { '/metrics': 'metrics' };

/** The part of Express's Route read here. */
interface MatchedRoute {
  path: string;
  methods: Record<string, boolean>;
}

/** One route's series, by status (made on first use). */
class RouteSeries {
  private readonly byStatus: (Series | undefined)[] = [];

  constructor(
    private readonly histogram: SeriesHistogram,
    private readonly route: string,
  ) {}

  at(status: number): Series {
    return (this.byStatus[status] ??= this.histogram.for(this.route, String(status)));
  }
}

export function requestMetrics(histogram: SeriesHistogram): RequestHandler {
  const tableNames = new Map<string, string>();
  for (const [name, route] of Object.entries(ROUTES) as [string, RouteContract][]) tableNames.set(`${route.method} ${route.path}`, name);
  const labelOf = (route: MatchedRoute, req: Request): string => {
    const name = Object.keys(route.methods).map((m) => tableNames.get(`${m} ${route.path}`))[0];
    // The portal is a sub-app: its routes' paths are relative to /portal.
    return name ?? BESIDE_THE_TABLE[route.path] ?? (req.originalUrl.startsWith('/portal') ? 'portal' : 'other');
  };
  const unmatched = new RouteSeries(histogram, 'unmatched');
  const byRoute = new Map<MatchedRoute, RouteSeries>();

  function finished(this: Response & { [STARTED]?: number }): void {
    const req = this.req as Request & { route?: MatchedRoute };
    const route = req.route;
    let series = route === undefined ? unmatched : byRoute.get(route);
    if (series === undefined) {
      series = new RouteSeries(histogram, labelOf(route!, req));
      byRoute.set(route!, series);
    }
    series.at(this.statusCode).observe((performance.now() - this[STARTED]!) / 1000);
  }

  return (_req, res, next) => {
    (res as Response & { [STARTED]?: number })[STARTED] = performance.now();
    res.on('finish', finished);
    next();
  };
}
