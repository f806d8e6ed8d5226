/**
 * Refreshes datasets from their source URL on their cadence, through the CSV or JSON adapter.
 * A failed fetch or a malformed answer keeps the old points and records the error on the dataset.
 */
import type { Logger } from '../logger.js';
import type { Cadence, DatasetRecord, DatasetStore } from '../store/types.js';
import { readCsvSeries, readJsonSeries, SeriesFormatError } from './read-series.js';
import { periodic, type Worker } from '../workers/index.js';

/** How long after a successful refresh a dataset is due again. */
export const CADENCE_MS: Record<Cadence, number> = {
  daily: 24 * 3600_000,
  weekly: 7 * 24 * 3600_000,
  monthly: 30 * 24 * 3600_000,
  quarterly: 91 * 24 * 3600_000,
};
/** After a failure, try again after this long (or the cadence, if shorter). */
export const RETRY_AFTER_FAILURE_MS = 3600_000;
const MAX_BYTES = 50 * 1024 * 1024;

export function isDue(d: DatasetRecord, now: Date): boolean {
  if (!d.refresh) return false;
  const last = d.last_refreshed_at ? Date.parse(d.last_refreshed_at) : 0;
  if (now.getTime() - last < CADENCE_MS[d.cadence]) return false;
  if (d.last_refresh_error && d.last_refresh_attempt_at) {
    return now.getTime() - Date.parse(d.last_refresh_attempt_at) >= Math.min(RETRY_AFTER_FAILURE_MS, CADENCE_MS[d.cadence]);
  }
  return true;
}

export type RefreshOutcome = { slug: string; ok: true; points: number } | { slug: string; ok: false; error: string };

export async function refreshDataset(
  store: DatasetStore,
  d: DatasetRecord,
  opts: { fetch?: typeof fetch; now: () => Date; timeoutMs?: number },
): Promise<RefreshOutcome> {
  if (!d.refresh) return { slug: d.slug, ok: false, error: 'no refresh source configured' };
  const src = d.refresh;
  const fail = async (error: string): Promise<RefreshOutcome> => {
    await store.recordRefreshFailure(d.slug, error, opts.now().toISOString());
    return { slug: d.slug, ok: false, error };
  };
  let text: string;
  try {
    const res = await (opts.fetch ?? fetch)(src.url, {
      signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      headers: { accept: src.format === 'json' ? 'application/json' : 'text/csv, text/plain' },
    });
    if (!res.ok) return fail(`${src.url} answered HTTP ${res.status}`);
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MAX_BYTES) return fail(`${src.url} is larger than ${MAX_BYTES / 1048576} MB`);
    text = await res.text();
  } catch (err) {
    return fail(`${src.url} could not be fetched: ${(err as Error).message}`);
  }
  try {
    const spec = {
      ...(src.date_column ? { date_column: src.date_column } : {}),
      ...(src.value_column ? { value_column: src.value_column } : {}),
    };
    const points =
      src.format === 'csv'
        ? readCsvSeries(text, { date_column: src.date_column ?? 'date', value_column: src.value_column ?? 'value' })
        : readJsonSeries(text, { ...spec, ...(src.path ? { path: src.path } : {}) });
    if (points.length === 0) return fail('the source returned no points');
    await store.writePoints(d.slug, points, 'replace', opts.now().toISOString());
    return { slug: d.slug, ok: true, points: points.length };
  } catch (err) {
    if (err instanceof SeriesFormatError) return fail(`the source's answer is malformed: ${err.message}`);
    throw err;
  }
}

/** Checks for due datasets at start and every `intervalMs` after, and refreshes them one at a time. */
export class DatasetRefresher implements Worker {
  readonly name = 'dataset refresh';
  private readonly loop: Worker;
  private running: Promise<RefreshOutcome[]> | null = null;

  constructor(
    private readonly store: DatasetStore,
    private readonly logger: Logger,
    private readonly opts: { intervalMs: number; now: () => Date; fetch?: typeof fetch },
  ) {
    this.loop = periodic(this.name, async () => void (await this.runDue()), { intervalMs: opts.intervalMs, logger });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops looking and waits for a run in progress (the loop's, or a caller's runDue). */
  async stop(): Promise<void> {
    await this.loop.stop();
    await this.running;
  }

  notify(): void {
    this.loop.notify();
  }

  /** Refreshes every due dataset; concurrent calls share one run. */
  runDue(): Promise<RefreshOutcome[]> {
    this.running ??= (async () => {
      const out: RefreshOutcome[] = [];
      try {
        for (const d of await this.store.refreshable()) {
          if (!isDue(d, this.opts.now())) continue;
          const r = await refreshDataset(this.store, d, { now: this.opts.now, fetch: this.opts.fetch });
          this.logger[r.ok ? 'info' : 'warn'](r, 'dataset refresh');
          out.push(r);
        }
      } catch (err) {
        this.logger.error({ err }, 'dataset refresh run failed');
      }
      return out;
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }
}
