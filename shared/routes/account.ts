/** GET /api/v1/account: the key's own plan, scopes and balance. */
import { ZAccountSchema } from '../account.js';
import { ok, type RouteContract } from './types.js';

export const accountRoutes = {
  account: {
    method: 'get',
    path: '/api/v1/account',
    access: 'key',
    summary: "The calling key's plan, scopes and credit balance",
    responses: { 200: ok(ZAccountSchema, 'Account') },
  },
} satisfies Record<string, RouteContract>;
