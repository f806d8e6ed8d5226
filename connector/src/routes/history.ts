/** GET /api/v1/verifications: the key's result history, as JSON or (Accept: text/csv) CSV. */
import { ROUTES } from '../../../shared/routes/index.js';
import type { AppContext } from '../context.js';
import { historyCsv } from '../history/csv.js';
import { listVerifications } from '../history/list.js';
import { currentKey } from '../http/auth.js';
import { parseQuery } from '../http/query.js';
import type { RouteHandlers } from './types.js';

export function historyHandlers(ctx: AppContext): RouteHandlers<'verifications'> {
  return {
    verifications: [
      async (req, res) => {
        const raw = req.query as Record<string, unknown>;
        const query = parseQuery(ROUTES.verifications.request.query, raw);
        const page = await listVerifications(currentKey(res).id, query, ctx.store);
        // JSON unless the client asks for CSV over it (no Accept, or */*, is JSON).
        if (req.accepts(['application/json', 'text/csv']) !== 'text/csv') {
          res.json(page);
          return;
        }
        if (page.next_cursor) {
          const next = new URLSearchParams({ ...(raw as Record<string, string>), cursor: page.next_cursor });
          res.set('Link', `<${req.baseUrl}${req.path}?${next}>; rel="next"`);
        }
        res.type('text/csv; charset=utf-8; header=present');
        res.set('Content-Disposition', 'attachment; filename="verifications.csv"');
        res.send(historyCsv(page.verifications));
      },
    ],
  };
}
