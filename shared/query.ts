/**
 * Query parameters as the contract documents them and the server reads them, from one schema: a
 * whole number arrives as text ("?limit=20") and is read strictly (no "1e3", no "20.0", no sign),
 * while the OpenAPI document shows the parameter as the integer it is, with its bounds and default.
 */
import { z } from 'zod';

/** An integer query parameter from `min` to `max` (inclusive), `dflt` when absent; `unit` only words the error. */
export function intQueryParam(name: string, min: number, max: number, dflt: number, unit?: string) {
  const message = `${name} must be a whole number ${unit ? `of ${unit} ` : ''}from ${min} to ${max}.`;
  return z
    .preprocess(
      (v) => (typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : v),
      z.number({ error: message }).int({ error: message }).min(min, { error: message }).max(max, { error: message }),
    )
    .optional()
    .default(dflt);
}

/** ?wait=N on GET /jobs/{id} and /batches/{id}: seconds to hold the answer for the work to finish. */
export const MAX_WAIT_S = 25;
export const ZWaitQuerySchema = z
  // Other parameters are ignored here, as they always were (a client's cache-buster must not fail a poll).
  .object({
    wait: intQueryParam('wait', 0, MAX_WAIT_S, 0, 'seconds').meta({
      description: `Long-poll: hold the answer up to this many seconds (0 to ${MAX_WAIT_S}) for the work to finish.`,
    }),
  });

/** Paging of GET /webhooks/deliveries. */
export const ZDeliveriesQuerySchema = z.object({
  limit: intQueryParam('limit', 1, 200, 50).meta({ description: '1 to 200, default 50.' }),
  offset: intQueryParam('offset', 0, 1_000_000, 0).meta({ description: '0 to 1000000, default 0.' }),
});
