/** CPU time of one thread, from /proc: what the bench and the fuzz suite's stall check read. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

let clockTicks: number | undefined;

/**
 * CPU time (user + system, in ms) that a process's main thread has used so far, from /proc; NaN
 * where there is no /proc. Only the main thread: the event loop is what a request waits for, and
 * GC helpers or libuv's pool would blur it.
 */
export function mainThreadCpuMs(pid: number): number {
  try {
    clockTicks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / clockTicks;
  } catch {
    return NaN;
  }
}
