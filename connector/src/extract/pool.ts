/**
 * Runs extractFields in worker threads (piscina) so OCR and PDF parsing never block an event loop.
 * The connector runs this pool inside its extraction process (process-pool.ts, host.ts), not in
 * its own process; the pool interface is the same either way.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { InsurerRecord } from '../store/types.js';
import { ExtractError, type ExtractErrorCode } from './errors.js';
import type { ExtractResult } from './pipeline.js';
import type { ExtractTaskResult, ExtractWorkerData } from './worker.js';

/** `run` was refused because `maxQueue` tasks are already waiting; callers answer 503/429 with Retry-After. */
export class ExtractionQueueFullError extends Error {
  readonly code = 'queue_full';
  constructor(cause?: unknown) {
    super('extraction queue is full', { cause });
    this.name = 'ExtractionQueueFullError';
  }
}

export interface ExtractionPoolOptions {
  /** Register rows for the insurer matcher; copied once into every thread. */
  rows: InsurerRecord[];
  /** Worker threads. Default: cores - 1 (at least 1), leaving a core for the HTTP server. */
  threads?: number;
  /** Tasks waiting beyond the running ones before `run` is refused; `queueFull()` reports it. Default 16. */
  maxQueue?: number;
  /** Tesseract workers per thread. One: pages of one document are OCRed in turn and threads give the parallelism. */
  ocrWorkersPerThread?: number;
  languages?: string;
  /**
   * The worker module. Default: the tsx shim, which loads worker.ts from the sources (tests, tsx).
   * A build passes its compiled worker: the bundle may put this module in a shared chunk, so no
   * path relative to it is reliable there (host.ts passes dist/connector/worker.js).
   */
  workerFile?: string;
}

export interface ExtractionPool {
  /** Extracts fields in a worker thread. Rejects with ExtractError for unreadable documents, ExtractionQueueFullError when full. */
  run(pdf: Uint8Array): Promise<ExtractResult>;
  /** True when another `run` would be refused: answer 429/503 with Retry-After instead of queueing. */
  queueFull(): boolean;
  /** Tasks running or queued. */
  pending(): number;
  destroy(): Promise<void>;
}

const SOURCE_WORKER = fileURLToPath(new URL('./worker-shim.mjs', import.meta.url));

/** Creates the pool in this process. Threads start lazily; each builds its OCR workers on its first task (~0.5 s). */
export function createThreadPool(options: ExtractionPoolOptions): ExtractionPool {
  const threads = Math.max(1, options.threads ?? os.availableParallelism() - 1);
  const maxQueue = options.maxQueue ?? 16;
  const workerData: ExtractWorkerData = {
    rows: options.rows,
    ocrWorkers: options.ocrWorkersPerThread ?? 1,
    languages: options.languages ?? 'eng+deu+fra',
  };
  const piscina = new Piscina({
    filename: options.workerFile ?? SOURCE_WORKER,
    minThreads: 0,
    maxThreads: threads,
    maxQueue,
    // One document per thread at a time: OCR inside already uses the thread fully.
    concurrentTasksPerWorker: 1,
    idleTimeout: 60_000,
    workerData,
  });
  // A thread that fails outside a task (its module does not load, say) is reported here as well as
  // to the tasks it fails; without a listener the event would end the whole process.
  piscina.on('error', () => undefined);
  let destroyed = false;
  let inFlight = 0;

  return {
    async run(pdf: Uint8Array): Promise<ExtractResult> {
      if (piscina.queueSize >= maxQueue) throw new ExtractionQueueFullError();
      inFlight++;
      try {
        let out: ExtractTaskResult;
        try {
          out = (await piscina.run(pdf)) as ExtractTaskResult;
        } catch (err) {
          if (err instanceof Error && /queue is at limit/i.test(err.message)) throw new ExtractionQueueFullError(err);
          throw err;
        }
        if (out.ok) return out.result;
        throw new ExtractError(out.code as ExtractErrorCode, out.message);
      } finally {
        inFlight--;
      }
    },
    queueFull(): boolean {
      return piscina.queueSize >= maxQueue;
    },
    pending(): number {
      return inFlight;
    },
    async destroy(): Promise<void> {
      if (destroyed) return;
      destroyed = true;
      await piscina.destroy();
    },
  };
}
