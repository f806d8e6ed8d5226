/**
 * The fuzz suite's stall check must tell a blocked event loop from a process that did not run: a
 * loop busy for 400 ms of CPU is a stall; a process stopped for 600 ms (SIGSTOP, as a descheduled
 * process on a loaded machine would be) is a pause, not a stall.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StallReport } from './stall-monitor.js';

const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'stall-monitor-child.ts')], {
  stdio: ['pipe', 'pipe', 'inherit'],
});
const lines = readline.createInterface({ input: child.stdout! });
const next = () => new Promise<string>((resolve) => lines.once('line', resolve));
const ask = async (cmd: string): Promise<StallReport> => {
  const answer = next();
  child.stdin!.write(`${cmd}\n`);
  return JSON.parse(await answer) as StallReport;
};

beforeAll(async () => {
  expect(await next()).toBe('ready');
}, 30_000);
afterAll(() => {
  child.kill();
});

describe('startStallMonitor', () => {
  it('records a loop blocked by CPU work as a stall, with its CPU time', async () => {
    const report = await ask('spin');
    expect(report.cpuSource).not.toBe('process');
    expect(report.stalls).toHaveLength(1);
    expect(report.stalls[0]!.cpuMs).toBeGreaterThanOrEqual(350);
    expect(report.stalls[0]!.wallMs).toBeGreaterThanOrEqual(report.stalls[0]!.cpuMs - 20);
  });
  it('counts a stopped process as a pause, not a stall', async () => {
    const before = await ask('report');
    child.kill('SIGSTOP');
    await new Promise((r) => setTimeout(r, 600));
    child.kill('SIGCONT');
    const after = await ask('report');
    expect(after.stalls).toHaveLength(before.stalls.length);
    expect(after.pauses).toBeGreaterThan(before.pauses);
    expect(after.maxWallMs).toBeGreaterThanOrEqual(550);
  });
});
