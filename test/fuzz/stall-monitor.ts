/**
 * Watches this process's event loop for stalls, telling a blocked loop from a descheduled process.
 *
 * A timer ticks every `tickMs`. Between two ticks the loop ran whatever was ready; if that took
 * longer than `thresholdMs` of wall time, the loop was late. It was *blocked* (a stall) when the
 * main thread also spent more than `thresholdMs` of CPU time in that interval: code ran without
 * yielding. When the interval is long but the main thread's CPU time is not, the process was not
 * running (descheduled on a loaded machine, or stopped): that is a pause, counted but not a stall.
 * Main-thread CPU time comes from /proc (test/helpers/thread-cpu.ts), or process.threadCpuUsage()
 * on a node that has it, so libuv's pool (where zlib inflates) and GC helper threads don't count.
 */
import { mainThreadCpuMs } from '../helpers/thread-cpu.js';

export interface Stall {
  /** Wall-clock (Date.now) bounds of the interval in which the loop did not get round. */
  from: number;
  to: number;
  wallMs: number;
  cpuMs: number;
}

export interface StallReport {
  stalls: Stall[];
  /** Intervals over the threshold in wall time but not in CPU time: the process was not running. */
  pauses: number;
  ticks: number;
  maxWallMs: number;
  maxCpuMs: number;
  /** Where CPU time came from; 'process' (all threads) only where neither source exists, which over-counts. */
  cpuSource: 'thread' | 'proc' | 'process';
}

type ThreadCpu = () => { user: number; system: number };

function cpuClock(): { read: () => number; source: StallReport['cpuSource'] } {
  const threadCpuUsage = (process as unknown as { threadCpuUsage?: ThreadCpu }).threadCpuUsage;
  if (typeof threadCpuUsage === 'function') {
    return {
      read: () => {
        const u = threadCpuUsage.call(process);
        return (u.user + u.system) / 1000;
      },
      source: 'thread',
    };
  }
  if (!Number.isNaN(mainThreadCpuMs(process.pid))) return { read: () => mainThreadCpuMs(process.pid), source: 'proc' };
  return {
    read: () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    },
    source: 'process',
  };
}

export function startStallMonitor(opts: { thresholdMs?: number; tickMs?: number; onStall?: (s: Stall) => void } = {}): {
  report: () => StallReport;
  stop: () => void;
} {
  const threshold = opts.thresholdMs ?? 200;
  const clock = cpuClock();
  const report: StallReport = { stalls: [], pauses: 0, ticks: 0, maxWallMs: 0, maxCpuMs: 0, cpuSource: clock.source };
  let lastWall = performance.now();
  let lastCpu = clock.read();
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = clock.read();
    const wallMs = wall - lastWall;
    const cpuMs = cpu - lastCpu;
    lastWall = wall;
    lastCpu = cpu;
    report.ticks++;
    report.maxWallMs = Math.max(report.maxWallMs, wallMs);
    report.maxCpuMs = Math.max(report.maxCpuMs, cpuMs);
    if (wallMs <= threshold) return;
    if (cpuMs > threshold) {
      const to = Date.now();
      const stall = { from: Math.round(to - wallMs), to, wallMs: Math.round(wallMs), cpuMs: Math.round(cpuMs) };
      report.stalls.push(stall);
      opts.onStall?.(stall);
    } else {
      report.pauses++;
    }
  }, opts.tickMs ?? 10);
  return { report: () => report, stop: () => clearInterval(timer) };
}
