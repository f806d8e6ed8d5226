/** Deactivates free-plan keys never used within 7 days of creation; runs at start, then on an interval. */
import type { Logger } from '../logger.js';
import type { PortalStore } from '../store/types.js';
import { SANDBOX_KEY_NAME } from './create-key.js';
import { UNUSED_KEY_TTL_DAYS } from './keys.js';
import { periodic, type Worker } from '../workers/index.js';

export const UNUSED_KEY_TTL_MS = UNUSED_KEY_TTL_DAYS * 24 * 60 * 60 * 1000;

/**
 * One sweep. A key that was ever used (last_used_at set) is never touched. The operator's demo
 * sandbox key is exempt: it is re-minted at every start or fixed by COVERCHECK_SANDBOX_KEY.
 */
export async function sweepUnusedKeys(store: Pick<PortalStore, 'deactivateUnused'>, now: Date): Promise<string[]> {
  const before = new Date(now.getTime() - UNUSED_KEY_TTL_MS).toISOString();
  return store.deactivateUnused(before, now.toISOString(), [SANDBOX_KEY_NAME]);
}

/** The sweep as a background worker: once at start, then every `intervalMs`; `notify()` runs one now (tests and operators). */
export function createKeySweeper(
  deps: { store: Pick<PortalStore, 'deactivateUnused'>; logger: Logger; now: () => Date },
  intervalMs: number,
): Worker {
  return periodic(
    'key sweep',
    async () => {
      const ids = await sweepUnusedKeys(deps.store, deps.now());
      if (ids.length) deps.logger.info({ key_ids: ids }, 'deactivated free-plan keys unused for 7 days');
    },
    { intervalMs, logger: deps.logger },
  );
}
