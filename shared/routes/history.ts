/** The result history: GET /api/v1/verifications, as JSON or CSV. */
import { ZVerificationListSchema, ZVerificationsQuerySchema } from '../history.js';
import { ok, type RouteContract } from './types.js';

export const historyRoutes = {
  verifications: {
    method: 'get',
    path: '/api/v1/verifications',
    access: 'key',
    scope: 'verify',
    summary: "The calling key's verification results, newest first",
    description:
      'An addition to the spec (docs/history.md): every result the key was given (POST /verify, async jobs, batch items, watch runs) with ' +
      'the input it was asked about, kept for the result retention period. Filter by time, status, policy number or watch; page with ' +
      'next_cursor, which stays valid while new results arrive. With Accept: text/csv the same page is a CSV file with a header row; its ' +
      'next page is named by the Link header (rel="next"). A key sees only its own results.',
    request: { query: ZVerificationsQuerySchema },
    responses: {
      200: {
        ...ok(ZVerificationListSchema, 'A page of results'),
        csv: 'The same page as CSV (Accept: text/csv): a header row, one row per result, RFC 4180 quoting; a cell that would start with = + - or @ starts with an apostrophe so a spreadsheet shows it as text.',
      },
    },
  },
} satisfies Record<string, RouteContract>;
