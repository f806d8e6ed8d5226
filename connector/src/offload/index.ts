/**
 * Reading large request bodies on a worker thread, so that the event loop keeps serving every other
 * request meanwhile. A 14 MB PDF sent as base64 JSON to /api/v1/verify/async (an 18.8 MB body)
 * cost ~270 ms of main-thread CPU in one go: decoding and parsing the JSON, then checking and
 * decoding the base64 (found by the fuzz suite, test/fuzz). The body's bytes are moved to the
 * thread and the decoded document moved back, neither copied; what else comes back is small
 * (offload/body.ts). Under OFF_THREAD_BYTES the same function runs inline: a thread round trip
 * would cost more than it saves.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { readJsonBody, type ReadBody } from './body.js';
import type { ShapeLimits } from './json-shape.js';

/** Bodies from this size up are read on the worker thread. */
export const OFF_THREAD_BYTES = 1024 * 1024;

export interface OffloadTask {
  bytes: Uint8Array;
  documentFields: readonly string[];
  shape?: ShapeLimits;
}

export interface Offload {
  /** readJsonBody, on the worker thread for a large body. */
  readBody(bytes: Buffer, documentFields?: readonly string[], shape?: ShapeLimits): Promise<ReadBody>;
  /** Worker threads running now (0 or 1): for tests. */
  threads(): number;
  destroy(): Promise<void>;
}

// In a build the worker is dist/connector/offload-worker.js, beside the bundle that holds this
// module (scripts/build.mjs); from the sources, the shim loads worker.ts through tsx.
const BUILT_WORKER = fileURLToPath(new URL('./offload-worker.js', import.meta.url));
const SOURCE_WORKER = fileURLToPath(new URL('./worker-shim.mjs', import.meta.url));

const asBuffer = (u: Uint8Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);

export function createOffload(): Offload {
  let pool: Piscina | null = null;
  return {
    async readBody(bytes, documentFields = [], shape) {
      if (bytes.length < OFF_THREAD_BYTES) return readJsonBody(bytes, documentFields, shape);
      if (!pool) {
        // One thread: it exists to keep large bodies off the event loop, not to read them in parallel.
        pool = new Piscina({
          filename: existsSync(BUILT_WORKER) ? BUILT_WORKER : SOURCE_WORKER,
          minThreads: 0,
          maxThreads: 1,
          idleTimeout: 30_000,
        });
        // A thread that fails outside a task would otherwise end the process with an 'error' event.
        pool.on('error', () => undefined);
      }
      // Moved, not copied, when the buffer owns its memory (a large one does: it is never pooled).
      const owns = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const task: OffloadTask = { bytes, documentFields, shape };
      const out = (await pool.run(task, { transferList: owns ? [bytes.buffer as ArrayBuffer] : [] })) as ReadBody<Uint8Array>;
      if (!out.ok) return out;
      const documents = Object.fromEntries(
        Object.entries(out.documents).map(([field, doc]) => [field, doc.ok ? { ok: true as const, value: asBuffer(doc.value) } : doc]),
      );
      return { ...out, documents };
    },
    threads: () => pool?.threads.length ?? 0,
    async destroy() {
      await pool?.destroy();
      pool = null;
    },
  };
}
