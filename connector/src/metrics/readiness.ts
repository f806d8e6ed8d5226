/**
 * GET /readyz's checks: whether this instance can do its work now, each check named with its result
 * (shared/readiness.ts). The store must answer; Redis, when configured, must be connected and answer;
 * the extraction process, when extraction is on, must not have failed its last document (it starts
 * on demand, so it is not started to be asked: extraction.ts). A check that does not settle within
 * the deadline has failed, so a hung dependency cannot hang the probe.
 */
import type { TReadiness, TReadinessCheck } from '../../../shared/readiness.js';

/** A check: resolves when it passed, throws (its message is the detail) when it did not. */
type Check = () => Promise<void>;

export interface ReadinessChecks {
  store: Check;
  /** Null: not configured. */
  redis: Check | null;
  /** Null: extraction is off. */
  extraction: Check | null;
}

const DEADLINE_MS = 2_000;

async function run(check: Check | null, deadlineMs: number): Promise<TReadinessCheck> {
  if (!check) return { status: 'off' };
  const started = performance.now();
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${deadlineMs} ms`)), deadlineMs);
      }),
    ]);
    return { status: 'ok', ms: Math.round(performance.now() - started) };
  } catch (err) {
    return { status: 'failed', ms: Math.round(performance.now() - started), detail: (err as Error).message };
  } finally {
    clearTimeout(timer);
  }
}

export async function checkReadiness(checks: ReadinessChecks, deadlineMs = DEADLINE_MS): Promise<TReadiness> {
  const [store, redis, extraction] = await Promise.all([
    run(checks.store, deadlineMs),
    run(checks.redis, deadlineMs),
    run(checks.extraction, deadlineMs),
  ]);
  const ready = [store, redis, extraction].every((c) => c.status !== 'failed');
  return { status: ready ? 'ready' : 'not_ready', checks: { store, redis, extraction } };
}

/** The store's check: a trivial query. */
export const storeCheck =
  (store: { ping(): Promise<boolean> }): Check =>
  async () => {
    if (!(await store.ping().catch(() => false))) throw new Error('the store is not answering');
  };

/** Redis's check: connected (no wait while it reconnects), then a PING. */
export const redisCheck =
  (client: { status: string; ping(): Promise<unknown> }): Check =>
  async () => {
    if (client.status !== 'ready') throw new Error(`Redis is not connected (${client.status})`);
    await client.ping();
  };

/** The extraction process's check, from what its last document showed. */
export const extractionCheck =
  (health: { problem(): string | null }): Check =>
  async () => {
    const problem = health.problem();
    if (problem) throw new Error(problem);
  };
