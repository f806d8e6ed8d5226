/** POST /api/v1/verify: validate, delegate to runSyncVerification, send; refusals in the sync form (spec 4.1). */
import type { AppContext } from '../context.js';
import { currentKey, requireScope } from '../http/auth.js';
import { syncErrorForm } from '../http/errors.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { runSyncVerification } from '../verify/run-sync.js';
import type { KeyedRoute } from './types.js';

export function verifyRoutes(ctx: AppContext): KeyedRoute[] {
  const deps = { credits: ctx.store.credits, reference: ctx.reference, registry: ctx.registry, onlineRegisters: ctx.onlineRegisters, now: ctx.now };
  return [
    {
      method: 'post',
      path: '/verify',
      handlers: [
        requireScope('verify'),
        syncErrorForm,
        async (req, res) => {
          const idemKey = idempotencyKeyOf(res);
          res.json(await runSyncVerification(req.body, currentKey(res), deps, idemKey ? { idemKey } : {}));
        },
      ],
    },
  ];
}
