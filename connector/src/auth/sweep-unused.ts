/** Deactivates free-plan keys never used within 7 days of creation; runs at start, then on an interval. */
import { PollingLoops } from '../polling-loops.js';
import type { Logger } from '../logger.js';
import type { PortalStore } from '../store/types.js';
import { SANDBOX_KEY_NAME } from './create-key.js';
import { UNUSED_KEY_TTL_DAYS } from './keys.js';

export const UNUSED_KEY_TTL_MS = UNUSED_KEY_TTL_DAYS * 24 * 60 * 60 * 1000;

/**
 * One sweep. A key that was ever used (last_used_at set) is never touched. The operator's demo
 * sandbox key is exempt: it is re-minted at every start or fixed by COVERCHECK_SANDBOX_KEY.
 */
export async function sweepUnusedKeys(store: Pick<PortalStore, 'deactivateUnused'>, now: Date): Promise<string[]> {
  const before = new Date(now.getTime() - UNUSED_KEY_TTL_MS).toISOString();
  return store.deactivateUnused(before, now.toISOString(), [SANDBOX_KEY_NAME]);
}

export class KeySweeper {
  private readonly loops: PollingLoops;

  constructor(deps: { store: Pick<PortalStore, 'deactivateUnused'>; logger: Logger; now: () => Date }, intervalMs: number) {
    this.loops = new PollingLoops(
      'key sweep',
      async () => {
        const ids = await sweepUnusedKeys(deps.store, deps.now());
        if (ids.length) deps.logger.info({ key_ids: ids }, 'deactivated free-plan keys unused for 7 days');
        return false; // always sleep a full interval
      },
      { pollMs: intervalMs, logger: deps.logger },
    );
  }

  start(): void {
    this.loops.start(1);
  }

  /** Runs a sweep now (the loop is woken; tests and operators use it). */
  wake(): void {
    this.loops.notify();
  }

  stop(): Promise<void> {
    return this.loops.stop();
  }
}
