/** POST /api/v1/verify: validate, delegate to runSyncVerification, send. */
import { Router } from 'express';
import type { AppContext } from '../context.js';
import { currentKey, requireScope } from '../http/auth.js';
import { idempotencyKeyOf } from '../http/idempotency.js';
import { runSyncVerification } from '../verify/run-sync.js';

export function verifyRoutes(ctx: AppContext): Router {
  const router = Router();
  router.post('/verify', requireScope('verify'), async (req, res) => {
    const idemKey = idempotencyKeyOf(res);
    const out = await runSyncVerification(
      req.body,
      currentKey(res),
      { credits: ctx.store.credits, reference: ctx.reference, registry: ctx.registry, now: ctx.now },
      idemKey ? { idemKey } : {},
    );
    res.status(out.status).json(out.body);
  });
  return router;
}
