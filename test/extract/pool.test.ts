import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtractError } from '../../connector/src/extract/errors.js';
import { createExtractionPool, ExtractionQueueFullError, type ExtractionPool } from '../../connector/src/extract/pool.js';
import { EXTRACTION_NICE } from '../../connector/src/extract/worker.js';
import { corpusPdf, corpusTruth, registerRows } from './helpers.js';

let pool: ExtractionPool | null = null;
afterEach(async () => {
  await pool?.destroy();
  pool = null;
});

describe('extraction pool', () => {
  it('extracts in a worker thread with the register rows it was given', async () => {
    pool = createExtractionPool({ rows: await registerRows(), threads: 1, maxQueue: 4 });
    const r = await pool.run(corpusPdf('002'));
    expect(r.fields.insurer).toBe(corpusTruth('002').insurer);
    expect(r.fields.vehicle_registration).toBe(corpusTruth('002').vehicle_registration);
  });

  it('rebuilds ExtractError with its code across the thread boundary', async () => {
    pool = createExtractionPool({ rows: await registerRows(), threads: 1, maxQueue: 4 });
    const err = await pool.run(Buffer.from('not a pdf')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).code).toBe('corrupt_pdf');
  });

  it('reports queueFull and refuses work once maxQueue tasks wait', async () => {
    pool = createExtractionPool({ rows: await registerRows(), threads: 1, maxQueue: 2 });
    expect(pool.queueFull()).toBe(false);
    const pdf = corpusPdf('002');
    const running = [pool.run(pdf), pool.run(pdf), pool.run(pdf)];
    expect(pool.queueFull()).toBe(true);
    await expect(pool.run(pdf)).rejects.toBeInstanceOf(ExtractionQueueFullError);
    const results = await Promise.all(running);
    expect(results.map((r) => r.fields.policy_number)).toEqual(Array(3).fill(corpusTruth('002').policy_number));
    expect(pool.queueFull()).toBe(false);
  });

  it.runIf(process.platform === 'linux')('runs extraction and its OCR threads at a lower CPU priority than the main thread', async () => {
    // Nice value of every thread of this process: field 19 of /proc/self/task/<tid>/stat (after the
    // parenthesised name, which may itself contain spaces).
    const niceByThread = () =>
      fs.readdirSync('/proc/self/task').map((tid) => {
        const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
        return { tid: Number(tid), nice: Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) };
      });
    const before = niceByThread().filter((t) => t.nice === EXTRACTION_NICE).length;
    pool = createExtractionPool({ rows: await registerRows(), threads: 1, maxQueue: 4 });
    const r = await pool.run(corpusPdf('001'));
    expect(corpusTruth('001').kind).toBe('scanned');
    expect(r.fields.policy_number).toBe(corpusTruth('001').policy_number);
    const threads = niceByThread();
    expect(threads.find((t) => t.tid === process.pid)?.nice).toBe(0);
    // The pool's thread and the tesseract worker thread(s) it started, at least.
    expect(threads.filter((t) => t.nice === EXTRACTION_NICE).length - before).toBeGreaterThanOrEqual(2);
  });
});
