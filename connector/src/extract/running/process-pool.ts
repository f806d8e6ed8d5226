/**
 * The connector's extraction pool: the worker-thread pool (thread-pool.ts) run in a child process
 * (process-host.ts) rather than in the connector's own. Why a process and not only threads:
 *  - Latency. Threads share one address space, one V8 platform and one allocator with the request
 *    handler: OCR's heavy mapping and unmapping of memory and its isolates' garbage collection stalled
 *    sync verifications for tens of milliseconds although the OCR threads ran at nice 19 (see docs/benchmarks.md,
 *    "Extraction and request latency"). The process has its own, and every thread of it runs at nice 19.
 *  - Memory. tesseract's WASM heap only grows; the process is ended after IDLE_MS without work,
 *    which returns all of it, and a document that makes pdf.js or tesseract run out of memory ends
 *    that process, not the connector.
 *
 * This side schedules: tasks wait here and the process gets no more than it has threads, so a
 * task's time limit counts from its start. The queue is bounded before anything is sent: `run`
 * refuses with ExtractionQueueFullError once `threads + maxQueue` tasks are pending.
 *
 * It also holds the two limits that need the process ended (docs/document-limits.md):
 *  - Memory. V8's heap flags bound neither WASM (tesseract) nor native (canvas) memory, so the
 *    process's resident memory is read from /proc every WATCH_MS while it has tasks and the process is
 *    killed above `limits.memoryMb`. The watch fails closed: a reading that cannot be taken (the
 *    connector out of descriptors, say) ends the process too, since a document could then grow past
 *    the ceiling unseen; its tasks fail with ExtractionProcessError, which blames no document.
 *    RLIMIT_AS and RLIMIT_DATA were measured and do not serve: an idle extraction process maps 13 GB
 *    of address space (WASM guard regions) and 1.2 GB of data segment with 100 MB resident, and an
 *    allocation refused inside the process fails whichever document asked next, not the one that
 *    used the memory.
 *  - Time, as a backstop. The thread pool terminates a thread past its time limits; if the process
 *    has not answered `limits.wallMs` and `graceMs` after the task was sent, it is killed.
 *
 * When the process ends under its tasks, who pays: a task past that backstop fails `over_limit`
 * and the others run again. Over memory, or on a crash nobody asked for, a task that was alone in
 * the process is the cause (over memory: `over_limit`; a crash: it runs once more, alone, and fails
 * `corrupt_pdf` if it crashes again); tasks that were not alone run again, each alone, so the next
 * end finds its cause. A crash is the process ending by itself: a fault signal (SIGSEGV, SIGABRT
 * from V8 out of memory, ...) or an exit code. A signal only someone else sends (OUTSIDE_SIGNALS: an
 * operator, a supervisor, the kernel's OOM killer) is no document's doing: its tasks run again, alone,
 * and fail with ExtractionProcessError after MAX_ENDS ends. A process that ends before it is ready
 * (it could not start) fails its tasks with ExtractionProcessError, which the job queue retries:
 * that is no document's fault either.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ExtractError, fromErrorData } from '../errors.js';
import type { FromHost, ToHost } from './process-host-protocol.js';
import { overMemory, overWall } from '../limits.js';
import { ExtractionQueueFullError, type ExtractionPool, type ExtractionPoolOptions } from './thread-pool.js';
import { NORMAL_PRIORITY_ARG } from './priority.js';
import type { ExtractResult } from '../pipeline.js';

/** The extraction process ended (crashed, was killed, could not start) before answering, through no fault of the document. */
export class ExtractionProcessError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ExtractionProcessError';
  }
}

export interface ProcessPoolOptions extends ExtractionPoolOptions {
  /** The process ends after this long without a task; the next task starts it again (~0.3 s). Default 60 s. */
  idleMs?: number;
  /** The host module. Default: extract-host.js next to this file when it exists (a build), else process-host.ts under tsx. */
  hostFile?: string;
  /** How long after its wall-time limit a task's process is killed if the thread pool has not stopped the task. Default 10 s. */
  graceMs?: number;
  /** Reads a process's resident memory (residentMb); tests inject one that fails. */
  readResidentMb?: (pid: number) => Promise<number | 'gone'>;
  /** A reading not back after this long counts as one that could not be taken. Default READ_STALL_MS. */
  readStallMs?: number;
}

export interface ProcessExtractionPool extends ExtractionPool {
  /** The extraction process's pid while it runs. */
  pid(): number | null;
  /** Tasks in the extraction process now (pending() also counts those waiting here). */
  running(): number;
}

const HOST_FLAGS = ['--max-semi-space-size=2', '--v8-pool-size=1'];
/**
 * glibc serves allocations above a threshold with their own mmap, returned to the kernel on free,
 * but raises that threshold (up to 32 MB) each time such a block is freed, after which page-sized
 * buffers (rendered pages, decoded images) stay in the heap as fragments between pages. A fixed
 * threshold keeps returning them: 11 MB less at peak over four scans, measured in one process.
 */
const HOST_ENV = { MALLOC_MMAP_THRESHOLD_: String(128 * 1024) };

/** How often the process's memory is read while it works. */
const WATCH_MS = 50;
/** A memory reading not back after this long counts as one that could not be taken. */
const READ_STALL_MS = 2_000;
/** Process ends a task may be in without being found their cause before it is given back to the job queue. */
const MAX_ENDS = 3;

function defaultHost(): { file: string; execArgv: string[] } {
  const compiled = fileURLToPath(new URL('./extract-host.js', import.meta.url));
  if (existsSync(compiled)) return { file: compiled, execArgv: [] };
  return { file: fileURLToPath(new URL('./process-host.ts', import.meta.url)), execArgv: ['--import', 'tsx'] };
}

/** Signals that end a process only when someone sends them, never by a fault of the work it does. */
const OUTSIDE_SIGNALS = new Set<NodeJS.Signals>(['SIGKILL', 'SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT']);

/** Whether this system has /proc; without it the memory watch is off (docs/document-limits.md). */
const HAS_PROC = existsSync('/proc/self/status');

/**
 * Resident memory of a process in MB, from /proc; 'gone' when the process has ended (its exit event
 * is on its way). Throws when the reading cannot be taken, e.g. EMFILE with the descriptors
 * exhausted: the caller must then treat the process as over its ceiling. Read off the event loop: a
 * read takes ~15 µs but now and then milliseconds on a busy machine.
 */
export async function residentMb(pid: number): Promise<number | 'gone'> {
  let status: string;
  try {
    status = await readFile(`/proc/${pid}/status`, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !exists(pid)) return 'gone';
    throw err;
  }
  const rss = /VmRSS:\s+(\d+) kB/.exec(status);
  if (rss) return Number(rss[1]) / 1024;
  // An ended process not yet reaped (a zombie) has no memory lines.
  if (/^State:\s+[ZX]/m.test(status)) return 'gone';
  throw new Error(`no VmRSS in /proc/${pid}/status`);
}

/** Whether a process exists, without a descriptor (a signal 0 only checks). */
function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface Task {
  id: number;
  pdf: Uint8Array;
  resolve: (r: ExtractResult) => void;
  reject: (e: Error) => void;
  /** Was in a process that ended beside other tasks, crashed or was killed: runs alone from now on. */
  alone: boolean;
  /** Process ends it was in, and of those the ones the process made by itself. */
  ends: number;
  crashes: number;
  /** Its process, while it runs there, and the backstop of its time limit. */
  host: Host | null;
  overrun: NodeJS.Timeout | null;
}

/** Why this side ended a process; none when it ended by itself or someone else ended it. */
type Ending = { why: 'time'; task: Task } | { why: 'memory' } | { why: 'unwatched'; reason: string } | { why: 'stopped' };

interface Host {
  proc: ChildProcess;
  ready: boolean;
  ending: Ending | null;
  /** The memory watch, while the process has tasks, and whether a read is under way. */
  watch: NodeJS.Timeout | null;
  /** When the reading under way started, 0 when none is. */
  reading: number;
  /** How it ended (signal or exit code), for messages. */
  exit: string;
  /** It ended by itself (a fault signal or an exit code), not by a signal someone sent. */
  byItself: boolean;
}

export function createProcessExtractionPool(options: ProcessPoolOptions): ProcessExtractionPool {
  const threads = Math.max(1, options.threads ?? os.availableParallelism() - 1);
  const maxQueue = options.maxQueue ?? 16;
  const idleMs = options.idleMs ?? 60_000;
  const { limits } = options;
  const graceMs = options.graceMs ?? 10_000;
  const readMemory = options.readResidentMb ?? (HAS_PROC ? residentMb : null);
  const readStallMs = options.readStallMs ?? READ_STALL_MS;
  const hostModule = options.hostFile
    ? { file: options.hostFile, execArgv: options.hostFile.endsWith('.ts') ? ['--import', 'tsx'] : [] }
    : defaultHost();
  const waiting: Task[] = [];
  const running = new Map<number, Task>();
  let host: Host | null = null;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | null = null;
  let destroyed = false;

  const pending = () => running.size + waiting.length;
  const queueFull = () => pending() >= threads + maxQueue;

  /** Takes a task out of its process (done, or to wait for another). */
  const detach = (task: Task) => {
    if (task.overrun) clearTimeout(task.overrun);
    task.overrun = null;
    task.host = null;
    running.delete(task.id);
  };

  const settle = (task: Task, outcome: { result: ExtractResult } | { error: Error }) => {
    detach(task);
    if ('result' in outcome) task.resolve(outcome.result);
    else task.reject(outcome.error);
  };

  const kill = (h: Host, ending: Ending) => {
    h.ending ??= ending;
    h.proc.kill('SIGKILL');
  };

  /** Watches the current process's memory while it has tasks; an idle process is left alone. */
  const watchMemory = () => {
    const h = host;
    if (!h || !readMemory) return;
    if (running.size > 0 && !h.watch) {
      h.watch = setInterval(() => {
        if (!h.proc.pid) return;
        if (h.reading) {
          // A reading that does not come back is one that cannot be taken (libuv's threads all busy).
          if (Date.now() - h.reading > readStallMs) kill(h, { why: 'unwatched', reason: `no reading in ${readStallMs} ms` });
          return;
        }
        h.reading = Date.now();
        readMemory(h.proc.pid).then(
          (mb) => {
            h.reading = 0;
            if (mb !== 'gone' && mb > limits.memoryMb) kill(h, { why: 'memory' });
          },
          (err: Error) => {
            h.reading = 0;
            kill(h, { why: 'unwatched', reason: err.message });
          },
        );
      }, WATCH_MS);
      h.watch.unref();
    } else if (running.size === 0 && h.watch) {
      clearInterval(h.watch);
      h.watch = null;
    }
  };

  /** Sends waiting tasks while the process has free threads; a task that must run alone waits for an empty process and keeps it. */
  const dispatch = () => {
    if (destroyed) return;
    while (waiting.length > 0 && running.size < threads) {
      const next = waiting[0]!;
      const aloneRunning = [...running.values()].some((t) => t.alone);
      if (aloneRunning || (next.alone && running.size > 0)) break;
      host ??= start();
      if (!host.ready) return; // sent once it says it is ready
      waiting.shift();
      const h = host;
      next.host = h;
      next.overrun = setTimeout(() => kill(h, { why: 'time', task: next }), limits.wallMs + graceMs);
      running.set(next.id, next);
      const msg: ToHost = { type: 'run', id: next.id, pdf: next.pdf };
      h.proc.send(msg);
    }
    watchMemory();
    if (pending() === 0) armIdle();
  };

  /** Where a task goes after its process ended under it. */
  const afterEnd = (task: Task, h: Host, alone: boolean) => {
    task.ends++;
    const ending = h.ending;
    if (ending?.why === 'time') {
      if (ending.task === task) return settle(task, { error: overWall(limits) });
    } else if (ending?.why === 'memory') {
      if (alone) return settle(task, { error: overMemory(limits.memoryMb) });
      task.alone = true;
    } else if (ending?.why === 'unwatched') {
      return settle(task, {
        error: new ExtractionProcessError(
          `the extraction process's memory could not be read (${ending.reason}), so its ceiling could not be enforced; the process was ended and will be started again`,
        ),
      });
    } else if (ending === null && !h.byItself) {
      // Killed from outside: nothing says the document did it. It runs again, alone, so that if it
      // did (the OOM killer, faster than the watch) the other tasks are not ended with it again.
      task.alone = true;
    } else if (ending === null) {
      task.crashes++;
      if (alone && task.crashes >= 2) {
        return settle(task, {
          error: new ExtractError('corrupt_pdf', `extraction process ended again under this document, running alone (${h.exit})`, {
            publicMessage: 'The PDF made the reader stop. Upload the original PDF, not a converted or repaired copy.',
          }),
        });
      }
      task.alone = true;
    }
    if (task.ends >= MAX_ENDS)
      return settle(task, { error: new ExtractionProcessError(`extraction process ended ${task.ends} times under this task (${h.exit})`) });
    detach(task);
    waiting.unshift(task);
  };

  const start = (): Host => {
    // Not the connector's node flags (its young generation is sized for request handling): a small
    // young generation and one V8 helper thread, as background work needs (measured: 15 MB less at peak).
    const proc = fork(hostModule.file, options.priority === 'normal' ? [NORMAL_PRIORITY_ARG] : [], {
      execArgv: [...HOST_FLAGS, ...hostModule.execArgv],
      env: { ...process.env, ...HOST_ENV },
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const h: Host = { proc, ready: false, ending: null, watch: null, reading: 0, exit: 'running', byItself: false };
    const init: ToHost = {
      type: 'init',
      options: {
        rows: options.rows,
        threads,
        limits,
        ...(options.ocrWorkersPerThread ? { ocrWorkersPerThread: options.ocrWorkersPerThread } : {}),
        ...(options.languages ? { languages: options.languages } : {}),
      },
    };
    proc.send(init);
    proc.on('message', (msg: FromHost) => {
      if (msg.type === 'ready') {
        h.ready = true;
        dispatch();
        return;
      }
      const task = running.get(msg.id);
      if (!task || task.host !== h) return;
      if (msg.type === 'failed') settle(task, { error: new ExtractionProcessError(msg.message) });
      else if (msg.out.ok) settle(task, { result: msg.out.result });
      else settle(task, { error: fromErrorData(msg.out.error) });
      dispatch();
    });
    proc.on('exit', (code, signal) => {
      h.exit = signal ?? `exit code ${code}`;
      h.byItself = signal ? !OUTSIDE_SIGNALS.has(signal) : code !== 0;
      if (h.watch) clearInterval(h.watch);
      if (host === h) host = null;
      const under = [...running.values()].filter((t) => t.host === h);
      if (!h.ready && h.ending?.why !== 'stopped') {
        // It never started: nothing ran, and the waiting tasks would only start another such process.
        for (const task of waiting.splice(0))
          settle(task, { error: new ExtractionProcessError(`extraction process ended (${h.exit}) before it was ready`) });
      }
      for (const task of under) afterEnd(task, h, under.length === 1);
      dispatch();
    });
    // An IPC send to a process that is already gone fails here rather than throwing at the caller.
    proc.on('error', () => undefined);
    return h;
  };

  const armIdle = () => {
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      idleTimer = null;
      if (pending() === 0 && host) {
        host.ending = { why: 'stopped' };
        host.proc.kill('SIGTERM');
        host = null;
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
      const done = new Promise<ExtractResult>((resolve, reject) => {
        waiting.push({ id: nextId++, pdf, resolve, reject, alone: false, ends: 0, crashes: 0, host: null, overrun: null });
      });
      dispatch();
      return done;
    },
    queueFull,
    pending,
    pid: () => host?.proc.pid ?? null,
    running: () => running.size,
    async destroy(): Promise<void> {
      if (destroyed) return;
      destroyed = true;
      if (idleTimer) clearTimeout(idleTimer);
      const h = host;
      host = null;
      const shutDown = () => new ExtractionProcessError('extraction pool is shut down');
      for (const task of [...waiting.splice(0), ...running.values()]) settle(task, { error: shutDown() });
      if (h && h.proc.exitCode === null && h.proc.signalCode === null) {
        h.ending = { why: 'stopped' };
        const exited = new Promise<void>((resolve) => h.proc.once('exit', () => resolve()));
        h.proc.kill('SIGTERM');
        await exited;
      }
    },
  };
}
