import { afterEach, describe, expect, it } from 'vitest';
import { ExtractError } from '../../connector/src/extract/errors.js';
import { createExtractionPool, ExtractionQueueFullError, type ExtractionPool } from '../../connector/src/extract/pool.js';
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
});
