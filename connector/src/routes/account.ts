/** GET /api/v1/account: the key's own plan, scopes and balance (the add-on's "test connection"). */
import type { TAccount } from '../../../shared/account.js';
import type { AppContext } from '../context.js';
import { isCharged, spendableBalance } from '../credits/charge.js';
import { billingPeriod } from '../credits/period.js';
import { currentKey } from '../http/auth.js';
import type { RouteHandlers } from './types.js';

export function accountHandlers(ctx: AppContext): RouteHandlers<'account'> {
  return {
    account: [
      async (_req, res) => {
        const key = currentKey(res);
        const now = ctx.now();
        const body: TAccount = {
          key_id: key.id,
          name: key.name,
          mode: key.mode,
          plan: key.plan,
          scopes: key.scopes,
          credits: { balance: spendableBalance(key, now), allowance: key.allowance, period: billingPeriod(now), charged: isCharged(key) },
        };
        res.json(body);
      },
    ],
  };
}
