/** POST /api/v1/verify: delegate to runSyncVerification (which validates), send; refusals in the sync form (spec 4.1). */
import type { AppContext } from '../context.js';
import { currentKey } from '../http/auth.js';
import { syncErrorForm } from '../http/errors.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { runSyncVerification } from '../verify/run-sync.js';
import type { RouteHandlers } from './types.js';

export function verifyHandlers(ctx: AppContext): RouteHandlers<'verify'> {
  const deps = {
    credits: ctx.store.credits,
    history: ctx.store.history,
    reference: ctx.reference,
    registry: ctx.registry,
    onlineRegisters: ctx.onlineRegisters,
    now: ctx.now,
    metrics: ctx.metrics,
  };
  return {
    verify: [
      syncErrorForm,
      async (req, res) => {
        res.json(await runSyncVerification(req.body, currentKey(res), deps, { idemKey: idempotencyKeyOf(res) }));
      },
    ],
  };
}
