/**
 * Extraction is background work next to latency-bound HTTP, so on Linux it runs at the lowest
 * priority the kernel offers without privileges: the SCHED_IDLE class where `chrt` (util-linux) is
 * there, and nice 19 in any case.
 *
 * Nice 19 only weights the share of CPU: a request that wakes the connector while the cores run OCR
 * may still wait for the OCR thread's slice to end, where a normal thread waking up preempts a
 * SCHED_IDLE one at once. In bench/extract, verify's p99 while scans were extracted was 9.7-16.1 ms
 * in four runs with SCHED_IDLE and 16.3-16.7 ms in three without (docs/extraction.md, "Process,
 * priority and memory").
 *
 * Linux priorities and classes are per thread and a new thread inherits its creator's, so lowering
 * every thread of the extraction process at its start covers the threads it starts later (the
 * pool's, tesseract's, V8's). Elsewhere, or if refused, extraction runs at normal priority.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';

export const EXTRACTION_NICE = 19;

/**
 * How a pool runs its threads: 'lowest' (what the connector does, described above) or 'normal', for
 * tests whose subject is not the priority, so that a loaded machine stretches them no more than any
 * other test.
 */
export type ExtractionPriority = 'lowest' | 'normal';

/** The extraction process's argument for 'normal', read as it starts, before it lowers anything. */
export const NORMAL_PRIORITY_ARG = '--normal-priority';

function renice(tid: number): void {
  try {
    os.setPriority(tid, EXTRACTION_NICE);
  } catch {
    // the thread ended meanwhile, or not permitted
  }
}

/** The calling thread's Linux thread id (from /proc/thread-self), or null elsewhere. */
export function currentThreadId(): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null; // not Linux
  }
}

/** Lowers the calling thread only. */
export function lowerThreadPriority(): void {
  const tid = currentThreadId();
  if (tid !== null) renice(tid);
}

/** Linux's number for the SCHED_IDLE scheduling class (field 41 of /proc/<pid>/task/<tid>/stat). */
export const SCHED_IDLE = 5;

/**
 * Moves every thread of this process into SCHED_IDLE (node has no call for sched_setscheduler,
 * and util-linux is part of every Debian). Returns whether it was done.
 */
function enterIdleClass(): boolean {
  try {
    execFileSync('chrt', ['--idle', '--all-tasks', '--pid', '0', String(process.pid)], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false; // no chrt, or refused
  }
}

/** Lowers every thread this process has now; threads started afterwards inherit it. */
export function lowerProcessPriority(): { idleClass: boolean } {
  let tids: string[];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return { idleClass: false }; // not Linux
  }
  for (const tid of tids) renice(Number(tid));
  return { idleClass: enterIdleClass() };
}
