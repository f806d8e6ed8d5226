/** GET /api/v1/account: the key's own plan, scopes and balance (the add-on's "test connection"). */
import { Router } from 'express';
import type { TAccount } from '../../../shared/account.js';
import type { AppContext } from '../context.js';
import { isCharged, spendableBalance } from '../credits/charge.js';
import { billingPeriod } from '../credits/period.js';
import { currentKey } from '../http/auth.js';

export function accountRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/account', async (_req, res) => {
    const key = currentKey(res);
    const now = ctx.now();
    const body: TAccount = {
      key_id: key.id,
      name: key.name,
      mode: key.mode,
      plan: key.plan,
      scopes: key.scopes,
      credits: { balance: await spendableBalance(ctx.store.credits, key, now), allowance: key.allowance, period: billingPeriod(now), charged: isCharged(key) },
    };
    res.json(body);
  });
  return router;
}
