/** Messages between the connector and its extraction process (process-pool.ts <-> process-host.ts), over Node's IPC channel. */
import type { ExtractionPoolOptions } from './thread-pool.js';
import type { ExtractTaskResult } from './thread-worker.js';

/** The thread pool the host builds: the connector's options less what only the connector side uses. */
export type HostInit = Pick<ExtractionPoolOptions, 'rows' | 'threads' | 'ocrWorkersPerThread' | 'languages' | 'limits'>;

export type ToHost = { type: 'init'; options: HostInit } | { type: 'run'; id: number; pdf: Uint8Array };

export type FromHost =
  /** The pool is built: tasks may be sent (a process that ends before this could not start). */
  | { type: 'ready' }
  | { type: 'done'; id: number; out: ExtractTaskResult }
  /** The task threw something other than an unreadable-document outcome (a thread crashed, say). */
  | { type: 'failed'; id: number; message: string };
