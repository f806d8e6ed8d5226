/**
 * Register-driven re-checks. When an import changes the insurer register or a sanctions list (the
 * reference-data version moves, insurers.version: an import from the CLI runs in another process), every
 * checked policy's probe (probe.ts) is taken again against the new reference data; the policies whose
 * probe changed (their insurer's authorisation, or a sanctions listing of their insurer or provider) are
 * marked for a re-check and their watches made due at once. The runner then checks only those policies
 * (a run with trigger register_change), not the whole watch: the others' insurers did not change, and
 * each re-check costs a credit.
 *
 * The version the last scan saw is kept in the store, so a restart or another instance does not scan
 * again for nothing; marks are written before the version, so a scan cut short is simply done again.
 */
import type { TPolicy } from '../../../shared/policy.js';
import type { Logger } from '../logger.js';
import type { Store } from '../store/types.js';
import { viewFor, type ReferenceData } from '../verify/reference-data.js';
import { periodic, type Worker } from '../workers/index.js';
import type { ItemState } from './compare.js';
import { probeOf } from './probe.js';

/** Policies read per page of a scan. */
const SCAN_PAGE = 1_000;

export interface RecheckDeps {
  store: Pick<Store, 'watches' | 'insurers'>;
  /** The reference data as the store holds it now (a cache that checks the version on every read). */
  reference: { get(): Promise<ReferenceData> };
  now: () => Date;
  logger: Logger;
  /** Wakes the runner when policies were marked. */
  onDue?: () => void;
}

/** One scan: the number of policies marked for a re-check (0 when the reference data did not change). */
export async function scanForRechecks(deps: RecheckDeps): Promise<number> {
  const version = await deps.store.insurers.version();
  if ((await deps.store.watches.referenceVersion()) === version) return 0;
  const reference = await deps.reference.get();
  const due: { watch_id: string; idx: number }[] = [];
  let after: { watch_id: string; idx: number } | null = null;
  for (;;) {
    const page = await deps.store.watches.probeItems(after, SCAN_PAGE);
    if (page.length === 0) break;
    const changed = page.filter((item) => {
      const { end_date: _end, ...policy } = JSON.parse(item.input) as TPolicy & { end_date?: string };
      return probeOf(viewFor(reference, item.mode), policy, JSON.parse(item.last_state) as ItemState) !== item.probe;
    });
    due.push(...changed.map((i) => ({ watch_id: i.watch_id, idx: i.idx })));
    const last = page[page.length - 1]!;
    after = { watch_id: last.watch_id, idx: last.idx };
  }
  // All in one transaction: a run opened meanwhile would otherwise re-check a page, and the rest in a second run.
  await deps.store.watches.markRecheck(due, deps.now().toISOString());
  await deps.store.watches.setReferenceVersion(version);
  const marked = due.length;
  if (marked > 0) {
    deps.logger.info({ policies: marked, reference_version: version }, 'reference data changed: watched policies due for a re-check');
    deps.onDue?.();
  }
  return marked;
}

/** The scan as a background worker: at start, then every `intervalMs`. */
export function createRecheckScanner(deps: RecheckDeps, intervalMs: number): Worker {
  return periodic('watch re-checks', async () => void (await scanForRechecks(deps)), { intervalMs, logger: deps.logger });
}
