/**
 * The connector's extraction pool: the worker-thread pool (pool.ts) run in a child process
 * (host.ts) rather than in the connector's own. Why a process and not only threads:
 *  - Latency. Threads share one address space, one V8 platform and one allocator with the request
 *    handler: OCR's heavy mapping and unmapping of memory and its isolates' garbage collection stalled
 *    sync verifications for tens of milliseconds although the OCR threads ran at nice 19 (see docs/benchmarks.md,
 *    "Extraction and request latency"). The process has its own, and every thread of it runs at nice 19.
 *  - Memory. tesseract's WASM heap only grows; the process is ended after IDLE_MS without work,
 *    which returns all of it, and a document that makes pdf.js or tesseract run out of memory ends
 *    that process, not the connector.
 * The queue is bounded here, before anything is sent: `run` refuses with ExtractionQueueFullError
 * once `threads + maxQueue` tasks are pending. When the process dies, its pending tasks reject with
 * ExtractionProcessError (the job queue retries them) and the next task starts a new one.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ExtractError, type ExtractErrorCode } from './errors.js';
import type { FromHost, ToHost } from './host-protocol.js';
import { ExtractionQueueFullError, type ExtractionPool, type ExtractionPoolOptions } from './pool.js';
import type { ExtractResult } from './pipeline.js';

/** The extraction process ended (crashed, was killed, ran out of memory) before answering. */
export class ExtractionProcessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractionProcessError';
  }
}

export interface ProcessPoolOptions extends ExtractionPoolOptions {
  /** The process ends after this long without a task; the next task starts it again (~0.3 s). Default 60 s. */
  idleMs?: number;
  /** The host module. Default: extract-host.js next to this file when it exists (a build), else host.ts under tsx. */
  hostFile?: string;
}

export interface ProcessExtractionPool extends ExtractionPool {
  /** The extraction process's pid while it runs. */
  pid(): number | null;
}

const HOST_FLAGS = ['--max-semi-space-size=2', '--v8-pool-size=1'];
/**
 * glibc serves allocations above a threshold with their own mmap, returned to the kernel on free,
 * but raises that threshold (up to 32 MB) each time such a block is freed, after which page-sized
 * buffers (rendered pages, decoded images) stay in the heap as fragments between pages. A fixed
 * threshold keeps returning them: 11 MB less at peak over four scans, measured in one process.
 */
const HOST_ENV = { MALLOC_MMAP_THRESHOLD_: String(128 * 1024) };

function defaultHost(): { file: string; execArgv: string[] } {
  const compiled = fileURLToPath(new URL('./extract-host.js', import.meta.url));
  if (existsSync(compiled)) return { file: compiled, execArgv: [] };
  return { file: fileURLToPath(new URL('./host.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

export function createProcessExtractionPool(options: ProcessPoolOptions): ProcessExtractionPool {
  const threads = Math.max(1, options.threads ?? os.availableParallelism() - 1);
  const maxQueue = options.maxQueue ?? 16;
  const idleMs = options.idleMs ?? 60_000;
  const host = options.hostFile ? { file: options.hostFile, execArgv: options.hostFile.endsWith('.ts') ? ['--import', 'tsx'] : [] } : defaultHost();
  const pending = new Map<number, { resolve: (r: ExtractResult) => void; reject: (e: Error) => void }>();
  let child: ChildProcess | null = null;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | null = null;
  let destroyed = false;

  const queueFull = () => pending.size >= threads + maxQueue;

  const failAll = (why: string) => {
    for (const [id, task] of pending) {
      pending.delete(id);
      task.reject(new ExtractionProcessError(why));
    }
  };

  const start = (): ChildProcess => {
    // Not the connector's node flags (its young generation is sized for request handling): a small
    // young generation and one V8 helper thread, as background work needs (measured: 15 MB less at peak).
    const proc = fork(host.file, [], {
      execArgv: [...HOST_FLAGS, ...host.execArgv],
      env: { ...process.env, ...HOST_ENV },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const init: ToHost = {
      type: 'init',
      options: { rows: options.rows, threads, ...(options.ocrWorkersPerThread ? { ocrWorkersPerThread: options.ocrWorkersPerThread } : {}), ...(options.languages ? { languages: options.languages } : {}) },
    };
    proc.send(init);
    proc.on('message', (msg: FromHost) => {
      const task = pending.get(msg.id);
      if (!task) return;
      pending.delete(msg.id);
      if (msg.type === 'failed') task.reject(new ExtractionProcessError(msg.message));
      else if (msg.out.ok) task.resolve(msg.out.result);
      else task.reject(new ExtractError(msg.out.code as ExtractErrorCode, msg.out.message));
      if (pending.size === 0) armIdle();
    });
    proc.on('exit', (code, signal) => {
      if (child === proc) child = null;
      failAll(`extraction process ended (${signal ?? `exit code ${code}`}) before answering`);
    });
    // An IPC send to a process that is already gone fails here rather than throwing at the caller.
    proc.on('error', () => undefined);
    return proc;
  };

  const armIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (pending.size === 0 && child) {
        child.kill('SIGTERM');
        child = null;
      }
    }, idleMs);
    idleTimer.unref();
  };

  return {
    run(pdf: Uint8Array): Promise<ExtractResult> {
      if (destroyed) return Promise.reject(new ExtractionProcessError('extraction pool is shut down'));
      if (queueFull()) return Promise.reject(new ExtractionQueueFullError());
      if (idleTimer) {
        clearTimeout(idleTimer);
        idleTimer = null;
      }
      child ??= start();
      const id = nextId++;
      const done = new Promise<ExtractResult>((resolve, reject) => pending.set(id, { resolve, reject }));
      const task: ToHost = { type: 'run', id, pdf };
      child.send(task);
      return done;
    },
    queueFull,
    pending: () => pending.size,
    pid: () => child?.pid ?? null,
    async destroy(): Promise<void> {
      if (destroyed) return;
      destroyed = true;
      if (idleTimer) clearTimeout(idleTimer);
      const proc = child;
      child = null;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
        proc.kill('SIGTERM');
        await exited;
      }
      failAll('extraction pool is shut down');
    },
  };
}
