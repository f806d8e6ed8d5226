/**
 * The extraction process: a child of the connector (process-pool.ts) that runs the worker-thread
 * pool and answers extraction tasks over IPC. It lowers all its threads to nice 19 first, so the
 * threads its pool, tesseract and V8 start later inherit that too (not when a test's pool starts it
 * with NORMAL_PRIORITY_ARG, priority.ts).
 */
import { isExtractError, toErrorData } from '../errors.js';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FromHost, ToHost } from './process-host-protocol.js';
import { createThreadPool, type ExtractionPool } from './thread-pool.js';
import { lowerProcessPriority, NORMAL_PRIORITY_ARG, type ExtractionPriority } from './priority.js';

const priority: ExtractionPriority = process.argv.includes(NORMAL_PRIORITY_ARG) ? 'normal' : 'lowest';
if (priority === 'lowest') lowerProcessPriority();

let pool: ExtractionPool | null = null;

// In a build this file is dist/connector/extract-host.js and the pool's worker sits beside it (the
// pool module itself may be in a shared chunk, so it cannot find it). From sources there is no
// worker.js here and the pool uses its tsx shim.
const builtWorker = fileURLToPath(new URL('./worker.js', import.meta.url));
const workerFile = existsSync(builtWorker) ? { workerFile: builtWorker } : {};

/**
 * Answers the connector, unless it has gone: a task may finish after the connector exited (a stop
 * whose budget ran out). Without the check and the callback, Node raises ERR_IPC_CHANNEL_CLOSED as
 * an unhandled 'error' event, and this process would die printing a stack trace into the connector's log.
 */
function send(msg: FromHost): void {
  if (!process.connected) return;
  process.send?.(msg, undefined, undefined, () => undefined);
}

// Ctrl-C in a terminal signals the whole process group. The connector decides when this process
// ends (it stops it, or the channel closes): dying here under a task would only make the pool start
// another process to read the document again while the connector is stopping.
process.on('SIGINT', () => undefined);

process.on('message', (msg: ToHost) => {
  if (msg.type === 'init') {
    // The connector sends no more tasks than there are threads, so this pool never queues or refuses.
    pool = createThreadPool({ ...msg.options, ...workerFile, priority, maxQueue: Number.MAX_SAFE_INTEGER });
    send({ type: 'ready' });
    return;
  }
  const { id, pdf } = msg;
  if (!pool) {
    send({ type: 'failed', id, message: 'extraction process got a task before its init' });
    return;
  }
  pool.run(pdf).then(
    (result) => send({ type: 'done', id, out: { ok: true, result } }),
    (err: unknown) => {
      if (isExtractError(err)) send({ type: 'done', id, out: { ok: false, error: toErrorData(err) } });
      else send({ type: 'failed', id, message: err instanceof Error ? err.message : String(err) });
    },
  );
});

// The connector went away (stopped or crashed): nothing is left to answer, so stop working.
process.on('disconnect', () => {
  void (pool?.destroy() ?? Promise.resolve()).finally(() => process.exit(0));
});
