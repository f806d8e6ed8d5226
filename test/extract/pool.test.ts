import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { ExtractError } from '../../connector/src/extract/errors.js';
import {
  createThreadPool,
  ExtractionQueueFullError,
  type ExtractionPool,
  type ExtractionPoolOptions,
} from '../../connector/src/extract/running/thread-pool.js';
import { EXTRACTION_NICE, SCHED_IDLE } from '../../connector/src/extract/running/priority.js';
import {
  createProcessExtractionPool,
  ExtractionProcessError,
  type ProcessPoolOptions,
} from '../../connector/src/extract/running/process-pool.js';
import { built } from '../helpers/build.js';
import { alive } from '../helpers/services.js';
import { corpusPdf, corpusTruth, registerRows } from './helpers.js';

// The run's bundle, as production runs it (a process starts in ~0.8 s; ~4 s from the sources under tsx).
const { extractHost, worker } = built();
const threadPool = (o: ExtractionPoolOptions) => createThreadPool({ ...o, workerFile: worker });
const processPool = (o: ProcessPoolOptions) => createProcessExtractionPool({ ...o, hostFile: extractHost });

let pool: ExtractionPool | null = null;
afterEach(async () => {
  await pool?.destroy();
  pool = null;
});

/**
 * Nice value and scheduling policy of every thread of a process: fields 19 and 41 of
 * /proc/<pid>/task/<tid>/stat (counted after the parenthesised name, which may contain spaces).
 */
function niceByThread(pid: number | 'self'): { tid: number; nice: number; policy: number }[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ tid: Number(tid), nice: Number(fields[16]), policy: Number(fields[38]) }];
    } catch {
      return []; // the thread ended between listing and reading
    }
  });
}

const hasChrt = (() => {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

async function until(check: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Both pools keep one contract; the connector runs the process pool, which runs the thread pool inside.
describe.each([
  ['thread pool (in this process)', threadPool],
  ['process pool (extraction process)', processPool],
])('%s', (_name, make) => {
  it('extracts with the register rows it was given', async () => {
    pool = make({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    const r = await pool.run(corpusPdf('002'));
    expect(r.fields.insurer).toBe(corpusTruth('002').insurer);
    expect(r.fields.vehicle_registration).toBe(corpusTruth('002').vehicle_registration);
  });

  it('rebuilds ExtractError with its code across the boundary', async () => {
    pool = make({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    const err = await pool.run(Buffer.from('not a pdf')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).code).toBe('corrupt_pdf');
  });

  it('reports queueFull and refuses work once maxQueue tasks wait', async () => {
    pool = make({ rows: await registerRows(), threads: 1, maxQueue: 2, limits: EXTRACT_LIMIT_DEFAULTS });
    expect(pool.queueFull()).toBe(false);
    const pdf = corpusPdf('002');
    const running = [pool.run(pdf), pool.run(pdf), pool.run(pdf)];
    expect(pool.queueFull()).toBe(true);
    await expect(pool.run(pdf)).rejects.toBeInstanceOf(ExtractionQueueFullError);
    const results = await Promise.all(running);
    expect(results.map((r) => r.fields.policy_number)).toEqual(Array(3).fill(corpusTruth('002').policy_number));
    expect(pool.queueFull()).toBe(false);
  });
});

describe.runIf(process.platform === 'linux')('extraction priority', () => {
  it('thread pool: its thread and the OCR threads it starts run at nice 19, the main thread keeps its own', async () => {
    const before = niceByThread('self').filter((t) => t.nice === EXTRACTION_NICE).length;
    // The test run may itself be niced (nice npm test): the main thread must keep what it had, not a fixed 0.
    const mainBefore = niceByThread('self').find((t) => t.tid === process.pid)?.nice;
    pool = threadPool({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    const r = await pool.run(corpusPdf('001'));
    expect(corpusTruth('001').kind).toBe('scanned');
    expect(r.fields.policy_number).toBe(corpusTruth('001').policy_number);
    const threads = niceByThread('self');
    expect(threads.find((t) => t.tid === process.pid)?.nice).toBe(mainBefore);
    expect(mainBefore).not.toBe(EXTRACTION_NICE);
    // The pool's thread and the tesseract worker thread(s) it started, at least.
    expect(threads.filter((t) => t.nice === EXTRACTION_NICE).length - before).toBeGreaterThanOrEqual(2);
  });

  it('process pool: every thread of the extraction process runs at nice 19 in SCHED_IDLE, and none of this process changes', async () => {
    const mine = niceByThread('self').filter((t) => t.nice === EXTRACTION_NICE).length;
    expect(niceByThread('self').filter((t) => t.policy === SCHED_IDLE)).toEqual([]);
    const p = processPool({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    pool = p;
    const r = await p.run(corpusPdf('001'));
    expect(r.fields.policy_number).toBe(corpusTruth('001').policy_number);
    const pid = p.pid();
    expect(pid).not.toBeNull();
    const threads = niceByThread(pid!);
    // node's own threads, the pool thread and tesseract's: all of them, not only some.
    expect(threads.length).toBeGreaterThan(5);
    expect(threads.filter((t) => t.nice !== EXTRACTION_NICE)).toEqual([]);
    // chrt is util-linux, on every Debian; without it the class stays normal (priority.ts).
    if (hasChrt) expect(threads.filter((t) => t.policy !== SCHED_IDLE)).toEqual([]);
    expect(niceByThread('self').filter((t) => t.nice === EXTRACTION_NICE).length).toBe(mine);
    expect(niceByThread('self').filter((t) => t.policy === SCHED_IDLE)).toEqual([]);
  });
});

describe('process pool lifecycle', { timeout: 90_000 }, () => {
  it.runIf(process.platform === 'linux')('with no build beside it, runs process-host.ts from the sources under tsx', async () => {
    const p = createProcessExtractionPool({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    pool = p;
    const r = await p.run(corpusPdf('002'));
    expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
    const argv = fs.readFileSync(`/proc/${p.pid()!}/cmdline`, 'utf8').split('\0');
    expect(argv).toEqual(expect.arrayContaining(['--import', 'tsx']));
    expect(argv.some((a) => a.endsWith('connector/src/extract/running/process-host.ts'))).toBe(true);
  });

  it.runIf(process.platform === 'linux')(
    "starts the extraction process with its own node flags and malloc setting, not the connector's",
    async () => {
      const p = processPool({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
      pool = p;
      await p.run(corpusPdf('002'));
      const pid = p.pid()!;
      const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      expect(argv).toEqual(expect.arrayContaining(['--max-semi-space-size=2', '--v8-pool-size=1']));
      const env = fs.readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      expect(env).toContain('MALLOC_MMAP_THRESHOLD_=131072');
      expect(process.env.MALLOC_MMAP_THRESHOLD_).toBeUndefined();
    },
  );

  // What happens to the tasks of a process that dies, and who is blamed: process-limits.test.ts.

  it('ends the process after idleMs without work and starts it again for the next task', async () => {
    const p = processPool({ rows: await registerRows(), threads: 1, maxQueue: 4, idleMs: 300, limits: EXTRACT_LIMIT_DEFAULTS });
    pool = p;
    await p.run(corpusPdf('002'));
    const first = p.pid()!;
    await until(() => p.pid() === null && !alive(first));
    const r = await p.run(corpusPdf('004'));
    expect(r.fields.policy_number).toBe(corpusTruth('004').policy_number);
    expect(p.pid()).not.toBe(first);
  });

  it('destroy ends the process and refuses later tasks', async () => {
    const p = processPool({ rows: await registerRows(), threads: 1, maxQueue: 4, limits: EXTRACT_LIMIT_DEFAULTS });
    await p.run(corpusPdf('002'));
    const pid = p.pid()!;
    await p.destroy();
    expect(alive(pid)).toBe(false);
    await expect(p.run(corpusPdf('002'))).rejects.toBeInstanceOf(ExtractionProcessError);
  });
});
