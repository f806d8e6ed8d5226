/**
 * Extraction is background work next to latency-bound HTTP: on Linux it runs at nice 19, the
 * lowest priority, so under CPU contention the scheduler favours the connector's request handling.
 * Linux priorities are per thread and a new thread inherits its creator's, so lowering every
 * thread of the extraction process at its start covers the threads it starts later (the pool's,
 * tesseract's, V8's). Elsewhere, or if refused, extraction runs at normal priority.
 */
import fs from 'node:fs';
import os from 'node:os';

export const EXTRACTION_NICE = 19;

function renice(tid: number): void {
  try {
    os.setPriority(tid, EXTRACTION_NICE);
  } catch {
    // the thread ended meanwhile, or not permitted
  }
}

/** Lowers the calling thread only (its id from /proc/thread-self). */
export function lowerThreadPriority(): void {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0) renice(tid);
  } catch {
    // not Linux
  }
}

/** Lowers every thread this process has now; threads started afterwards inherit it. */
export function lowerProcessPriority(): void {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return; // not Linux
  }
  for (const tid of tids) renice(Number(tid));
}
