/**
 * Runs extractFields in worker threads (piscina) so OCR and PDF parsing never block an event loop.
 * The connector runs this pool inside its extraction process (process-pool.ts, process-host.ts), not in
 * its own process; the pool interface is the same either way.
 *
 * Limits of the document budget enforced here, where the work can be stopped without ending the
 * process: the time limits (a task past its processor time or its wall time has its thread
 * terminated, which also ends the tesseract thread the thread started, and fails `over_limit`) and
 * a V8 heap limit per thread (half the memory limit; a document whose parse outgrows it fails
 * `over_limit` the same way).
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { InsurerRecord } from '../../store/types.js';
import { ExtractError, fromErrorData } from '../errors.js';
import { overCpu, overMemory, overWall, type ExtractLimits } from '../limits.js';
import { OCR_LANGUAGES } from '../reading/ocr-languages.js';
import type { ExtractResult } from '../pipeline.js';
import type { ExtractionPriority } from './priority.js';
import type { ExtractTask, ExtractTaskResult, ExtractWorkerData } from './thread-worker.js';

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
  /** The budget of each document (config.ts's `extraction.limits`). */
  limits: ExtractLimits;
  /**
   * The worker module. Default: the tsx shim, which loads thread-worker.ts from the sources (tests, tsx).
   * A build passes its compiled worker: the bundle may put this module in a shared chunk, so no
   * path relative to it is reliable there (process-host.ts passes dist/connector/worker.js).
   */
  workerFile?: string;
  /** Default 'lowest' (priority.ts); 'normal' only for tests that do not test the priority. */
  priority?: ExtractionPriority;
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

const SOURCE_WORKER = fileURLToPath(new URL('./thread-worker-shim.mjs', import.meta.url));

/** How often a running task's time is checked. */
const CHECK_MS = 250;

/**
 * Processor time (user and system) of one of this process's threads in ms, from /proc (null where
 * there is none). /proc counts in USER_HZ ticks, 100 a second on every Linux architecture.
 */
export function threadCpuMs(tid: number): number | null {
  try {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

/**
 * Watches a task from the moment its thread reports its start: aborts `controller` with the limit it
 * crossed once the thread has used `cpuMs` of processor time (where it can be read) or `wallMs` have passed.
 */
function watchTime(started: MessagePort, controller: AbortController, limits: Pick<ExtractLimits, 'cpuMs' | 'wallMs'>): () => void {
  let timer: NodeJS.Timeout | undefined;
  started.once('message', (tid: number | null) => {
    const since = Date.now();
    const cpuAtStart = tid === null ? null : threadCpuMs(tid);
    timer = setInterval(() => {
      const cpu = tid === null || cpuAtStart === null ? null : threadCpuMs(tid);
      if (cpu !== null && cpu - cpuAtStart! > limits.cpuMs) controller.abort(overCpu(limits));
      else if (Date.now() - since > limits.wallMs) controller.abort(overWall(limits));
    }, CHECK_MS);
  });
  return () => {
    clearInterval(timer);
    started.close();
  };
}

/** The V8 heap a thread may grow to: half the process's memory limit, so one document cannot take it all. */
export function threadHeapMb(limits: Pick<ExtractLimits, 'memoryMb'>): number {
  return Math.max(64, Math.floor(limits.memoryMb / 2));
}

/** Creates the pool in this process. Threads start lazily; each builds its OCR workers on its first task (~0.5 s). */
export function createThreadPool(options: ExtractionPoolOptions): ExtractionPool {
  const threads = Math.max(1, options.threads ?? os.availableParallelism() - 1);
  const maxQueue = options.maxQueue ?? 16;
  const { limits } = options;
  const workerData: ExtractWorkerData = {
    rows: options.rows,
    ocrWorkers: options.ocrWorkersPerThread ?? 1,
    languages: options.languages ?? OCR_LANGUAGES,
    limits,
    priority: options.priority ?? 'lowest',
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
    // The thread's JS heap only: pdf.js's decoded streams and the canvas live outside it, under the
    // process pool's watch on the whole process.
    resourceLimits: { maxOldGenerationSizeMb: threadHeapMb(limits) },
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
        // The time counts from the moment the thread starts on the document, which it reports: a
        // task waiting for a thread, or a new thread loading its modules, is not the document's time.
        const timeout = new AbortController();
        const { port1, port2 } = new MessageChannel();
        const stopWatch = watchTime(port1, timeout, limits);
        try {
          const task: ExtractTask = { pdf, started: port2 };
          out = (await piscina.run(task, { signal: timeout.signal, transferList: [port2] })) as ExtractTaskResult;
        } catch (err) {
          if (err instanceof Error && /queue is at limit/i.test(err.message)) throw new ExtractionQueueFullError(err);
          if (timeout.signal.aborted && timeout.signal.reason instanceof ExtractError) throw timeout.signal.reason;
          if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') throw overMemory(threadHeapMb(limits));
          throw err;
        } finally {
          stopWatch();
        }
        if (out.ok) return out.result;
        throw fromErrorData(out.error);
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
