/**
 * The limits only the pools can enforce, on the real extraction process (running/process-host.ts, pdf.js, canvas,
 * tesseract): the time limit ends the document's thread, the memory ceiling ends the process, and an
 * end of the process is charged to the document that caused it and to no other.
 *
 * The pools here run at normal priority: at nice 19 in SCHED_IDLE, which test/extract/pool.test.ts
 * checks, any other work on the machine stretched these tests several times over.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { EXTRACT_LIMIT_DEFAULTS } from '../../connector/src/config.js';
import { ExtractError } from '../../connector/src/extract/errors.js';
import type { ExtractLimits } from '../../connector/src/extract/limits.js';
import { createThreadPool, type ExtractionPool } from '../../connector/src/extract/running/thread-pool.js';
import { EXTRACTION_NICE, SCHED_IDLE } from '../../connector/src/extract/running/priority.js';
import {
  createProcessExtractionPool,
  ExtractionProcessError,
  residentMb,
  type ProcessExtractionPool,
} from '../../connector/src/extract/running/process-pool.js';
import { built } from '../helpers/build.js';
import { corpusPdf, corpusTruth, registerRows } from './helpers.js';
import { flateBomb, hugeBlankPages, longTextShow } from './hostile.js';

// The run's bundle, as production runs it: a process starts in ~0.8 s (~4 s from the sources under tsx).
const { extractHost, worker } = built();

let pool: ExtractionPool | null = null;
afterEach(async () => {
  await pool?.destroy();
  pool = null;
});

async function processPool(
  limits: Partial<ExtractLimits>,
  extra: {
    threads?: number;
    graceMs?: number;
    hostFile?: string;
    readResidentMb?: (pid: number) => Promise<number | 'gone'>;
    readStallMs?: number;
  } = {},
): Promise<ProcessExtractionPool> {
  const p = createProcessExtractionPool({
    rows: await registerRows(),
    threads: extra.threads ?? 1,
    maxQueue: 4,
    limits: { ...EXTRACT_LIMIT_DEFAULTS, ...limits },
    hostFile: extractHost,
    priority: 'normal',
    ...extra,
  });
  pool = p;
  return p;
}

async function threadPool(limits: Partial<ExtractLimits>): Promise<ExtractionPool> {
  pool = createThreadPool({
    rows: await registerRows(),
    workerFile: worker,
    threads: 1,
    maxQueue: 4,
    limits: { ...EXTRACT_LIMIT_DEFAULTS, ...limits },
    priority: 'normal',
  });
  return pool;
}

async function failure(task: Promise<unknown>): Promise<Error> {
  const err = await task.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  return err as Error;
}

async function until(check: () => boolean, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Nice value and scheduling policy of every thread of a process (fields 19 and 41 of its tasks' stat, after the name). */
function threadPriorities(pid: number | 'self'): { tid: number; nice: number; policy: number }[] {
  return fs.readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return [{ tid: Number(tid), nice: Number(fields[16]), policy: Number(fields[38]) }];
    } catch {
      return []; // the thread ended meanwhile
    }
  });
}

describe.runIf(process.platform === 'linux')('the priority these tests run at', { timeout: 60_000 }, () => {
  it("priority 'normal': no thread of the extraction process, and no pool thread here, is lowered", async () => {
    // What every thread inherits: this test process's own priority (the run may itself be niced).
    const own = threadPriorities('self').find((t) => t.tid === process.pid)!;
    const lowered = (pid: number | 'self') => threadPriorities(pid).filter((t) => t.nice !== own.nice || t.policy === SCHED_IDLE);
    expect(own.nice).not.toBe(EXTRACTION_NICE);
    const p = await processPool({});
    await p.run(corpusPdf('002'));
    expect(lowered(p.pid()!)).toEqual([]);
    await p.destroy();
    const before = lowered('self').length;
    const t = await threadPool({});
    await t.run(corpusPdf('002'));
    expect(lowered('self')).toHaveLength(before);
  });
});

/** The flate bomb with the stream limit opened up: pdf.js decodes and parses it for minutes. */
const SLOW = flateBomb();
const NO_STREAM_LIMIT: Partial<ExtractLimits> = { maxStreamBytes: 1e12 };

/**
 * A page that, with the page and pixel limits opened up, makes pdf.js paint a 1.7 GB canvas
 * (10,000 pt at 150 dpi: 20,834 px a side): the memory a hostile document could take without them.
 */
const MEMORY_HOG = hugeBlankPages(1, 10_000);
const NO_PAGE_LIMITS: Partial<ExtractLimits> = { maxPageAreaPt2: 1e12, maxTotalAreaPt2: 1e12, maxPagePixels: 1e12, maxTotalPixels: 1e12 };

describe('time limits', { timeout: 120_000 }, () => {
  it('thread pool: a document past its processor time fails over_limit; its thread is ended and the next document is read', async () => {
    const p = await threadPool({ ...NO_STREAM_LIMIT, cpuMs: 3000 });
    const err = await failure(p.run(SLOW));
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).code).toBe('over_limit');
    expect((err as ExtractError).publicMessage).toBe('Reading the PDF took more than 3 s of processor time, the limit per document.');
    const r = await p.run(corpusPdf('002'));
    expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
  });

  it('process pool: the same through the process, which stays up', async () => {
    const p = await processPool({ ...NO_STREAM_LIMIT, cpuMs: 3000 });
    await p.run(corpusPdf('002'));
    const pid = p.pid();
    const err = await failure(p.run(SLOW));
    expect((err as ExtractError).publicMessage).toBe('Reading the PDF took more than 3 s of processor time, the limit per document.');
    const r = await p.run(corpusPdf('004'));
    expect(r.fields.policy_number).toBe(corpusTruth('004').policy_number);
    expect(p.pid()).toBe(pid);
  });

  it('a document past its wall time fails over_limit, whether or not it uses the processor', async () => {
    const p = await threadPool({ ...NO_STREAM_LIMIT, wallMs: 2000 });
    const err = await failure(p.run(SLOW));
    expect((err as ExtractError).publicMessage).toBe('Reading the PDF took longer than 2 s, the limit per document.');
  });

  it.runIf(process.platform === 'linux')(
    'a process that does not answer after the wall time and the grace is killed; the document fails over_limit, the next one is read',
    async () => {
      // The backstop counts from the hand-over, a new thread's start-up included: room for that on a loaded machine.
      const p = await processPool({ wallMs: 8_000 }, { graceMs: 500 });
      await p.run(corpusPdf('002'));
      const first = p.pid()!;
      const task = p.run(corpusPdf('002'));
      // Frozen, the process answers nothing: only the pool's own backstop can end the task.
      process.kill(first, 'SIGSTOP');
      const err = await failure(task);
      expect((err as ExtractError).publicMessage).toBe('Reading the PDF took longer than 8 s, the limit per document.');
      const r = await p.run(corpusPdf('004'));
      expect(r.fields.policy_number).toBe(corpusTruth('004').policy_number);
      expect(p.pid()).not.toBe(first);
    },
  );
});

describe('heap limit per thread', { timeout: 120_000 }, () => {
  it("a thread's V8 heap is half the memory limit: a document whose parse outgrows it fails over_limit, and the next document is read", async () => {
    const p = await threadPool({ memoryMb: 128 });
    // The smallest heap a thread gets (threadHeapMb). Measured on the bundle: text pages and scans read
    // within it; two million words in one text show do not.
    const pdf = longTextShow();
    expect(pdf.length).toBeLessThan(64 * 1024);
    const err = await failure(p.run(pdf));
    expect((err as ExtractError).publicMessage).toBe("Reading the PDF needed more than 64 MB of memory, the extractor's limit.");
    const r = await p.run(corpusPdf('004'));
    expect(r.fields.policy_number).toBe(corpusTruth('004').policy_number);
  });
});

// The ceilings leave room for the host's own modules (~100 MB built, ~400 MB under tsx).
describe.runIf(process.platform === 'linux')('memory ceiling', { timeout: 180_000 }, () => {
  it('a document that takes the process past the ceiling is stopped there: over_limit, and the next document is read in a new process', async () => {
    const p = await processPool({ ...NO_PAGE_LIMITS, memoryMb: 700 });
    await p.run(corpusPdf('002'));
    const first = p.pid()!;
    let peak = 0;
    const watch = setInterval(() => {
      try {
        // VmHWM: the process's own high-water mark, so growth between two samples is not missed.
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(fs.readFileSync(`/proc/${first}/status`, 'utf8'))![1]) / 1024);
      } catch {
        // gone
      }
    }, 10);
    const err = await failure(p.run(MEMORY_HOG)).finally(() => clearInterval(watch));
    expect((err as ExtractError).code).toBe('over_limit');
    expect((err as ExtractError).publicMessage).toBe("Reading the PDF needed more than 700 MB of memory, the extractor's limit.");
    // It grew to the ceiling (the page needs 1.7 GB) and was stopped on the way. The last reading here can
    // come up to 10 ms before the pool's own monitor saw the crossing (699.3 MB in one loaded CI run).
    expect(peak).toBeGreaterThan(700 * 0.9);
    expect(peak).toBeLessThan(1700);
    const r = await p.run(corpusPdf('002'));
    expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
    expect(p.pid()).not.toBe(first);
  });

  it('with two documents in the process, the one over the ceiling is found by running each alone: it fails, the other is read', async () => {
    const p = await processPool({ ...NO_PAGE_LIMITS, memoryMb: 1024 }, { threads: 2 });
    const [hog, scan] = await Promise.allSettled([p.run(MEMORY_HOG), p.run(corpusPdf('001'))]);
    expect(hog.status).toBe('rejected');
    expect(((hog as PromiseRejectedResult).reason as ExtractError).code).toBe('over_limit');
    expect(scan.status).toBe('fulfilled');
    expect((scan as PromiseFulfilledResult<{ fields: { policy_number?: string } }>).value.fields.policy_number).toBe(
      corpusTruth('001').policy_number,
    );
  });
});

describe.runIf(process.platform === 'linux')('memory that cannot be read', { timeout: 120_000 }, () => {
  it('fails closed: the process is ended, its document fails with ExtractionProcessError (not a document error); with readings back, the next is read', async () => {
    let readable = false;
    const reads: number[] = [];
    const p = await processPool(
      {},
      {
        readResidentMb: async (pid: number) => {
          reads.push(pid);
          if (readable) return 100;
          // What a read gives while the connector's descriptors are exhausted.
          throw Object.assign(new Error(`EMFILE: too many open files, open '/proc/${pid}/status'`), { code: 'EMFILE' });
        },
      },
    );
    const err = await failure(p.run(corpusPdf('001')));
    expect(err).toBeInstanceOf(ExtractionProcessError);
    expect(err).not.toBeInstanceOf(ExtractError);
    expect(err.message).toMatch(/memory could not be read.*EMFILE/);
    expect(reads.length).toBeGreaterThan(0);
    const first = reads[0]!;
    readable = true;
    const r = await p.run(corpusPdf('002'));
    expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
    expect(p.pid()).not.toBe(first);
  });

  it('a reading that never comes back counts as one that could not be taken', async () => {
    // A short stall bound: with the default 2 s a warm machine may read the scan before it passes.
    const p = await processPool({}, { readResidentMb: () => new Promise<number>(() => undefined), readStallMs: 200 });
    const err = await failure(p.run(corpusPdf('001')));
    expect(err).toBeInstanceOf(ExtractionProcessError);
    expect(err.message).toMatch(/memory could not be read \(no reading in \d+ ms\)/);
  });

  it('residentMb: megabytes for a live process, gone for one that ended', async () => {
    expect(await residentMb(process.pid)).toBeGreaterThan(10);
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => child.once('exit', r));
    expect(await residentMb(child.pid!)).toBe('gone');
  });
});

describe.runIf(process.platform === 'linux')('process ends nobody asked for', { timeout: 120_000 }, () => {
  it('a process killed under a document: the document runs again, alone, in a new process and is read', async () => {
    const p = await processPool({});
    await p.run(corpusPdf('002'));
    const first = p.pid()!;
    const scanTask = p.run(corpusPdf('001'));
    const textTask = p.run(corpusPdf('002'));
    process.kill(first, 'SIGKILL');
    const [scan, text] = await Promise.all([scanTask, textTask]);
    expect(scan.fields.policy_number).toBe(corpusTruth('001').policy_number);
    expect(text.fields.policy_number).toBe(corpusTruth('002').policy_number);
    expect(p.pid()).not.toBe(first);
  });

  /** Kills each new process once it runs the one task, `times` times; the pids killed. */
  function killEachRun(p: ProcessExtractionPool, times: number, signal: NodeJS.Signals): { killed: number[]; stop: () => void } {
    const killed: number[] = [];
    const timer = setInterval(() => {
      const pid = p.pid();
      if (pid && p.running() === 1 && !killed.includes(pid) && killed.length < times) {
        killed.push(pid);
        process.kill(pid, signal);
      }
    }, 20);
    return { killed, stop: () => clearInterval(timer) };
  }

  it('a genuine PDF under which the process is killed from outside twice is not blamed: it runs again and is read', async () => {
    const p = await processPool({});
    await p.run(corpusPdf('002'));
    const task = p.run(corpusPdf('001'));
    const killer = killEachRun(p, 2, 'SIGKILL');
    const r = await task.finally(killer.stop);
    expect(killer.killed).toHaveLength(2);
    expect(r.fields.policy_number).toBe(corpusTruth('001').policy_number);
  });

  it('killed from outside at every run, the task fails with ExtractionProcessError (retried by the job queue), never a document error', async () => {
    const p = await processPool({});
    await p.run(corpusPdf('002'));
    const task = p.run(corpusPdf('001'));
    const killer = killEachRun(p, 3, 'SIGTERM');
    const err = await failure(task).finally(killer.stop);
    expect(killer.killed).toHaveLength(3);
    expect(err).toBeInstanceOf(ExtractionProcessError);
    expect(err).not.toBeInstanceOf(ExtractError);
    const r = await p.run(corpusPdf('002'));
    expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
  });

  it('a document under which the process ends by itself twice, the second time alone, fails corrupt_pdf; the next one is read', async () => {
    // The host, except that a document starting with CRASH makes the process end at once, as a native fault in pdf.js would.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-host-'));
    const crashing = path.join(dir, 'host.mjs');
    fs.writeFileSync(
      crashing,
      [
        // Imported first: the host listens before the pool's init can arrive.
        `import ${JSON.stringify(pathToFileURL(extractHost).href)};`,
        `process.on('message', (m) => { if (m.type === 'run' && Buffer.from(m.pdf).toString('latin1', 0, 5) === 'CRASH') process.exit(70); });`,
      ].join('\n'),
    );
    try {
      const p = await processPool({}, { hostFile: crashing });
      await p.run(corpusPdf('002'));
      const err = await failure(p.run(Buffer.concat([Buffer.from('CRASH'), corpusPdf('002')])));
      expect((err as ExtractError).code).toBe('corrupt_pdf');
      expect((err as ExtractError).publicMessage).toMatch(/made the reader stop/);
      const r = await p.run(corpusPdf('002'));
      expect(r.fields.policy_number).toBe(corpusTruth('002').policy_number);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a process that cannot start fails its tasks with ExtractionProcessError (no document is blamed; the job queue retries)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'covercheck-host-'));
    const broken = path.join(dir, 'host.mjs');
    fs.writeFileSync(broken, 'process.exit(3);\n');
    try {
      const p = await processPool({}, { hostFile: broken });
      const errs = await Promise.all([failure(p.run(corpusPdf('002'))), failure(p.run(corpusPdf('004')))]);
      for (const err of errs) {
        expect(err).toBeInstanceOf(ExtractionProcessError);
        expect(err.message).toMatch(/before it was ready/);
      }
      await until(() => p.pending() === 0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
