/**
 * For stall-monitor.test.ts: runs the monitor, then on command blocks its event loop with CPU work
 * ('spin', until the main thread has used 400 ms of CPU), or not (any other line); then prints its report.
 */
import readline from 'node:readline';
import { mainThreadCpuMs } from '../helpers/thread-cpu.js';
import { startStallMonitor } from './stall-monitor.js';

const monitor = startStallMonitor();
const rl = readline.createInterface({ input: process.stdin });
process.stdout.write('ready\n');
rl.on('line', (cmd) => {
  if (cmd === 'spin') {
    const until = mainThreadCpuMs(process.pid) + 400;
    while (mainThreadCpuMs(process.pid) < until);
  }
  // Reported a few ticks later, so that the interval just ended has been measured.
  setTimeout(() => process.stdout.write(`${JSON.stringify(monitor.report())}\n`), 50);
});
