/**
 * What the gauges read from the store when Prometheus scrapes, rather than counting every event: the
 * queue's depth (pending jobs by kind and batches, queued and running, the oldest queued one's age)
 * and the write-back lag. Each is one query over the open-work indexes, so a scrape costs the same
 * whatever the traffic, and the figures hold for work other instances took or left, too.
 */
import type { Logger } from '../logger.js';
import type { QueueDepth, Store } from '../store/types.js';

/** Kinds of queued work, as the `kind` label names them. */
export type WorkKind = 'verification' | 'extraction' | 'batch';

export type Depths = Record<WorkKind, { queued: number; running: number; oldestAgeS: number }>;

export interface ScrapeReaders {
  /** Null when the store did not answer. */
  depth(): Promise<Depths | null>;
  /** Seconds the first due write-back has waited (0: none due); null when the store did not answer. */
  writebackLagS(): Promise<number | null>;
}

const ageS = (since: string | null, now: Date) => (since === null ? 0 : Math.max(0, (now.getTime() - Date.parse(since)) / 1000));

/**
 * Three gauges read the depth: the first of a scrape starts the queries and the other two share them
 * (prom-client asks every metric at once), so one scrape is one read of each table.
 */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= read().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

export function storeReaders(store: Pick<Store, 'jobs' | 'batches' | 'writebacks'>, now: () => Date, logger: Logger): ScrapeReaders {
  const failed = (what: string) => (err: unknown) => {
    logger.warn({ err: (err as Error).message }, `metrics: the ${what} could not be read from the store`);
    return null;
  };
  const view = (d: QueueDepth, at: Date) => ({ queued: d.queued, running: d.running, oldestAgeS: ageS(d.oldest_queued, at) });
  return {
    depth: shared(async () => {
      const at = now();
      const iso = at.toISOString();
      try {
        const [jobs, batch] = await Promise.all([store.jobs.depth(iso), store.batches.depth(iso)]);
        return { verification: view(jobs.verification, at), extraction: view(jobs.extraction, at), batch: view(batch, at) };
      } catch (err) {
        return failed('queue depth')(err);
      }
    }),
    async writebackLagS() {
      const at = now();
      try {
        const due = await store.writebacks.dueKeys(at.toISOString());
        const first = due.reduce<string | null>((min, e) => (min === null || e.oldest < min ? e.oldest : min), null);
        return ageS(first, at);
      } catch (err) {
        return failed('write-back lag')(err);
      }
    },
  };
}
